//! The crypto libmongocrypt calls back into when it was built without its
//! own (the pymongocrypt wheel's build is one): AES-256-CBC without padding
//! (libmongocrypt pads), HMAC-SHA-512, HMAC-SHA-256, SHA-256 and a secure
//! random source, from the RustCrypto crates.
//!
//! Only these six are registered. No AES-256-CTR or -ECB hook: they serve
//! Queryable Encryption, which this crate does not offer, and `mongocrypt`
//! 0.4.0 wires its CTR hook to the CBC one. So the two FLE1 algorithms
//! (`AEAD_AES_256_CBC_HMAC_SHA_512-Deterministic` and `-Random`) are the
//! only ones a handle built here can run.

use std::io::Write;

use aes::cipher::block_padding::NoPadding;
use aes::cipher::{BlockModeDecrypt, BlockModeEncrypt, KeyIvInit};
use hmac::{KeyInit, Mac};
use mongocrypt::error::{Error as CryptError, ErrorKind, Result as CryptResult};
use sha2::Digest;

type CbcEncrypt = cbc::Encryptor<aes::Aes256>;
type CbcDecrypt = cbc::Decryptor<aes::Aes256>;

/// The AES block size, in bytes.
const BLOCK: usize = 16;

/// A hook's refusal, as libmongocrypt reports it (never the bytes involved).
fn refused(what: &str) -> CryptError {
    CryptError {
        kind: ErrorKind::Client,
        code: None,
        message: Some(format!("crypto hook: {what}")),
    }
}

fn written(out: &mut dyn Write, bytes: &[u8]) -> CryptResult<()> {
    out.write_all(bytes)
        .map_err(|_| refused("the output buffer is too short"))
}

/// AES-256-CBC encryption of `input`, already padded by libmongocrypt.
pub(crate) fn aes_256_cbc_encrypt(
    key: &[u8],
    iv: &[u8],
    input: &[u8],
    out: &mut dyn Write,
) -> CryptResult<()> {
    if !input.len().is_multiple_of(BLOCK) {
        return Err(refused("AES-256-CBC input is not a whole number of blocks"));
    }
    let cipher =
        CbcEncrypt::new_from_slices(key, iv).map_err(|_| refused("AES-256-CBC key or IV size"))?;
    let mut buf = vec![0u8; input.len()];
    let sealed = cipher
        .encrypt_padded_b2b::<NoPadding>(input, &mut buf)
        .map_err(|_| refused("AES-256-CBC input size"))?;
    written(out, sealed)
}

/// AES-256-CBC decryption of `input`; libmongocrypt removes the padding.
pub(crate) fn aes_256_cbc_decrypt(
    key: &[u8],
    iv: &[u8],
    input: &[u8],
    out: &mut dyn Write,
) -> CryptResult<()> {
    if !input.len().is_multiple_of(BLOCK) {
        return Err(refused("AES-256-CBC input is not a whole number of blocks"));
    }
    let cipher =
        CbcDecrypt::new_from_slices(key, iv).map_err(|_| refused("AES-256-CBC key or IV size"))?;
    let mut buf = vec![0u8; input.len()];
    let opened = cipher
        .decrypt_padded_b2b::<NoPadding>(input, &mut buf)
        .map_err(|_| refused("AES-256-CBC input size"))?;
    written(out, opened)
}

/// `count` bytes from the operating system's secure random source.
pub(crate) fn random(out: &mut dyn Write, count: u32) -> CryptResult<()> {
    let mut buf = vec![0u8; count as usize];
    getrandom::fill(&mut buf).map_err(|_| refused("the system's random source failed"))?;
    written(out, &buf)
}

pub(crate) fn hmac_sha_512(key: &[u8], input: &[u8], out: &mut dyn Write) -> CryptResult<()> {
    let mut mac = hmac::Hmac::<sha2::Sha512>::new_from_slice(key)
        .map_err(|_| refused("HMAC-SHA-512 key size"))?;
    mac.update(input);
    written(out, &mac.finalize().into_bytes())
}

pub(crate) fn hmac_sha_256(key: &[u8], input: &[u8], out: &mut dyn Write) -> CryptResult<()> {
    let mut mac = hmac::Hmac::<sha2::Sha256>::new_from_slice(key)
        .map_err(|_| refused("HMAC-SHA-256 key size"))?;
    mac.update(input);
    written(out, &mac.finalize().into_bytes())
}

pub(crate) fn sha_256(input: &[u8], out: &mut dyn Write) -> CryptResult<()> {
    written(out, &sha2::Sha256::digest(input))
}

/// Registers the hooks on a builder.
pub(crate) fn install(builder: mongocrypt::CryptBuilder) -> CryptResult<mongocrypt::CryptBuilder> {
    builder.crypto_hooks(
        aes_256_cbc_encrypt,
        aes_256_cbc_decrypt,
        random,
        hmac_sha_512,
        hmac_sha_256,
        sha_256,
    )
}

#[cfg(test)]
mod tests {
    //! Known answers from published vectors: NIST SP 800-38A F.2.5/F.2.6
    //! (CBC-AES256), RFC 4231 (HMAC-SHA-256/512, test cases 1, 2 and 6),
    //! FIPS 180-2 (SHA-256 of "abc" and of the 448-bit message).

    use super::*;

    /// Bytes from hex (spaces ignored); `"aa * 131"` repeats a byte.
    fn hex(text: &str) -> Vec<u8> {
        if let Some((byte, times)) = text.split_once(" * ") {
            return hex(byte).repeat(times.parse().unwrap());
        }
        let text: String = text.split_whitespace().collect();
        (0..text.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
            .collect()
    }

    /// Runs a hook into a buffer of `cap` bytes; returns what it wrote.
    fn run(
        cap: usize,
        hook: impl FnOnce(&mut dyn Write) -> CryptResult<()>,
    ) -> CryptResult<Vec<u8>> {
        let mut buf = vec![0u8; cap];
        let mut out: &mut [u8] = &mut buf;
        hook(&mut out)?;
        let left = out.len();
        buf.truncate(cap - left);
        Ok(buf)
    }

    const NIST_KEY: &str = "603deb1015ca71be2b73aef0857d7781 1f352c073b6108d72d9810a30914dff4";
    const NIST_IV: &str = "000102030405060708090a0b0c0d0e0f";
    const NIST_PLAIN: &str = "6bc1bee22e409f96e93d7e117393172a ae2d8a571e03ac9c9eb76fac45af8e51
                              30c81c46a35ce411e5fbc1191a0a52ef f69f2445df4f9b17ad2b417be66c3710";
    const NIST_CIPHER: &str = "f58c4c04d6e5f1ba779eabfb5f7bfbd6 9cfc4e967edb808d679f777bc6702c7d
                               39f23369a9d9bacfa530e26304231461 b2eb05e2c39be9fcda6c19078c6a9d1b";

    #[test]
    fn aes_256_cbc_matches_nist_sp800_38a() {
        let (key, iv) = (hex(NIST_KEY), hex(NIST_IV));
        let sealed = run(64, |out| {
            aes_256_cbc_encrypt(&key, &iv, &hex(NIST_PLAIN), out)
        })
        .unwrap();
        assert_eq!(sealed, hex(NIST_CIPHER));
        let opened = run(64, |out| {
            aes_256_cbc_decrypt(&key, &iv, &hex(NIST_CIPHER), out)
        })
        .unwrap();
        assert_eq!(opened, hex(NIST_PLAIN));
    }

    #[test]
    fn aes_256_cbc_refuses_partial_blocks_and_bad_sizes() {
        let (key, iv) = (hex(NIST_KEY), hex(NIST_IV));
        assert!(run(64, |out| aes_256_cbc_encrypt(&key, &iv, &[0; 15], out)).is_err());
        assert!(run(64, |out| aes_256_cbc_decrypt(&key, &iv, &[0; 17], out)).is_err());
        assert!(run(64, |out| aes_256_cbc_encrypt(
            &key[..16],
            &iv,
            &[0; 16],
            out
        ))
        .is_err());
        assert!(run(64, |out| aes_256_cbc_encrypt(&key, &iv[..8], &[0; 16], out)).is_err());
        // An output buffer too short is an error, not a short write.
        assert!(run(8, |out| aes_256_cbc_encrypt(&key, &iv, &[0; 16], out)).is_err());
    }

    /// RFC 4231 test cases: (key, data, HMAC-SHA-256, HMAC-SHA-512).
    const RFC4231: &[(&str, &str, &str, &str)] = &[
        (
            "0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b",
            "4869205468657265",
            "b0344c61d8db38535ca8afceaf0bf12b 881dc200c9833da726e9376c2e32cff7",
            "87aa7cdea5ef619d4ff0b4241a1d6cb0 2379f4e2ce4ec2787ad0b30545e17cde
             daa833b7d6b8a702038b274eaea3f4e4 be9d914eeb61f1702e696c203a126854",
        ),
        (
            "4a656665",
            "7768617420646f2079612077616e7420 666f72206e6f7468696e673f",
            "5bdcc146bf60754e6a042426089575c7 5a003f089d2739839dec58b964ec3843",
            "164b7a7bfcf819e2e395fbe73b56e0a3 87bd64222e831fd610270cd7ea250554
             9758bf75c05a994a6d034f65f8f0e6fd caeab1a34d4a6b4b636e070a38bce737",
        ),
        (
            "aa * 131",
            "54657374205573696e67204c61726765 72205468616e20426c6f636b2d53697a
             65204b6579202d2048617368204b6579 204669727374",
            "60e431591ee0b67f0d8a26aacbf5b77f 8e0bc6213728c5140546040f0ee37f54",
            "80b24263c7c1a3ebb71493c1dd7be8b4 9b46d1f41b4aeec1121b013783f8f352
             6b56d037e05f2598bd0fd2215d6a1e52 95e64f73f63f0aec8b915a985d786598",
        ),
    ];

    #[test]
    fn hmac_sha_256_matches_rfc_4231() {
        for (key, data, want, _) in RFC4231 {
            let got = run(32, |out| hmac_sha_256(&hex(key), &hex(data), out)).unwrap();
            assert_eq!(got, hex(want), "key {key}");
        }
    }

    #[test]
    fn hmac_sha_512_matches_rfc_4231() {
        for (key, data, _, want) in RFC4231 {
            let got = run(64, |out| hmac_sha_512(&hex(key), &hex(data), out)).unwrap();
            assert_eq!(got, hex(want), "key {key}");
        }
    }

    #[test]
    fn sha_256_matches_fips_180_2() {
        let abc = run(32, |out| sha_256(b"abc", out)).unwrap();
        assert_eq!(
            abc,
            hex("ba7816bf8f01cfea414140de5dae2223 b00361a396177a9cb410ff61f20015ad")
        );
        let long = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
        let got = run(32, |out| sha_256(long, out)).unwrap();
        assert_eq!(
            got,
            hex("248d6a61d20638b8e5c026930c3e6039 a33ce45964ff2167f6ecedd419db06c1")
        );
    }

    #[test]
    fn random_fills_what_is_asked_and_differs() {
        let a = run(64, |out| random(out, 48)).unwrap();
        let b = run(64, |out| random(out, 48)).unwrap();
        assert_eq!(a.len(), 48);
        assert_ne!(a, b);
        assert!(run(8, |out| random(out, 48)).is_err());
    }
}
