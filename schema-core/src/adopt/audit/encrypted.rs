//! Fields encrypted on the client: the paths holding BSON binary subtype 6
//! in the FLE1 form (a byte saying deterministic or random, the data key's
//! UUID, the original type, the ciphertext), how many values of each
//! algorithm, and how many values beside them are stored in clear (a
//! finding: an encrypted field whose plain values an older writer left,
//! readable by anyone who reads the database). Nothing of a value is kept.

use std::fmt;

use serde::Serialize;

/// One path holding encrypted values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct EncryptedAudit {
    /// The collection.
    pub collection: String,
    /// The stored path.
    pub path: String,
    /// Values encrypted deterministically (equality queries can find them).
    pub deterministic: u64,
    /// Values encrypted at random.
    pub random: u64,
    /// Values stored in clear at the same path (null left out).
    pub clear: u64,
}

impl EncryptedAudit {
    /// Whether some values are stored in clear beside the encrypted ones.
    pub fn is_finding(&self) -> bool {
        self.clear > 0
    }

    /// The algorithm the encrypted values share, for `#[encrypt(..)]`
    /// (`None` when both were seen).
    pub fn algorithm(&self) -> Option<&'static str> {
        match (self.deterministic, self.random) {
            (_, 0) => Some("deterministic"),
            (0, _) => Some("random"),
            _ => None,
        }
    }
}

impl fmt::Display for EncryptedAudit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}.{}: encrypted on the client ({} deterministic, {} random)",
            self.collection, self.path, self.deterministic, self.random
        )?;
        if self.clear > 0 {
            write!(
                f,
                ", and {} value{} stored in clear beside them: encrypt them (read and write each document through a model declaring `#[encrypt(..)]` on the field)",
                self.clear,
                if self.clear == 1 { "" } else { "s" }
            )?;
        }
        Ok(())
    }
}

/// The counts of one path, as the walk keeps them.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Counts {
    pub(super) deterministic: u64,
    pub(super) random: u64,
}

/// Whether a binary value (its bytes after the length: subtype, payload)
/// is an FLE1 encrypted one, and if so whether deterministic.
pub(super) fn sealed(subtype_and_payload: &[u8]) -> Option<bool> {
    match subtype_and_payload {
        [6, 1, rest @ ..] if rest.len() >= 17 => Some(true),
        [6, 2, rest @ ..] if rest.len() >= 17 => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_fle1_form_is_encrypted() {
        let mut det = vec![6, 1];
        det.extend([0; 17]);
        assert_eq!(sealed(&det), Some(true));
        det[1] = 2;
        assert_eq!(sealed(&det), Some(false));
        det[1] = 3; // Queryable Encryption's forms are not FLE1
        assert_eq!(sealed(&det), None);
        assert_eq!(sealed(&[6, 1, 0]), None);
        assert_eq!(sealed(&[0, 1]), None);
    }
}
