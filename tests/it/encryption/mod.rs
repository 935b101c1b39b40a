//! Client-side field encryption (`--features encryption`; libmongocrypt from
//! `scripts/install-mongocrypt.sh` on `MONGOCRYPT_LIB_DIR` and
//! `LD_LIBRARY_PATH`): data keys in the key vault, explicit encryption and
//! decryption against the real server.

mod explicit;
mod keys;
