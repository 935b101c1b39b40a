//! A lower bound on the encoded size of N items of a BSON array or
//! embedded document, whatever the items are: a `max` whose smallest items
//! cannot fit in one document is refused.
//!
//! Every element of a BSON array or document is a type byte, its key as a
//! NUL-terminated string, then the value, which may be empty (a null). So:
//! - array item `i` takes at least `1 + digits(i) + 1` bytes (the key is the
//!   index in decimal);
//! - the `n` keys of a map are distinct strings without NUL bytes, and there
//!   are at most `255^L` of length `L`, so its `n` items take at least
//!   `2 * n` bytes plus the lengths of the `n` shortest such strings.
//!
//! Both bounds ignore the value, the field's own key and the document's
//! headers, so they never refuse a `max` that some data could reach.

/// The most a document may hold (the server's `BSONObjMaxUserSize`).
pub const MAX_DOCUMENT_SIZE: u64 = 16 * 1024 * 1024;

/// How the keys of a bounded field are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keys {
    /// An array: `"0"`, `"1"`, ... (also what a set is stored as).
    Indexes,
    /// A map, or a type the derive cannot see into: any distinct strings.
    Strings,
}

impl Keys {
    /// The least number of bytes `n` items take.
    pub fn min_bytes(self, n: u64) -> u64 {
        let mut left = n;
        let mut total = 0u64;
        let mut len = 0u64;
        while left > 0 {
            let take = left.min(self.keys_of_len(len));
            total = total.saturating_add(take.saturating_mul(2 + len));
            left -= take;
            len += 1;
        }
        total
    }

    /// How many distinct keys are `len` bytes long: decimal indexes `0..=9`
    /// then `10^(len-1)..10^len`; strings at most `255^len`.
    fn keys_of_len(self, len: u64) -> u64 {
        let len = u32::try_from(len).unwrap_or(u32::MAX);
        match (self, len) {
            (Keys::Indexes, 0) => 0,
            (Keys::Indexes, 1) => 10,
            (Keys::Indexes, _) => 9u64.saturating_mul(10u64.saturating_pow(len - 1)),
            (Keys::Strings, _) => 255u64.saturating_pow(len),
        }
    }

    /// The most items whose least size fits in one document.
    pub fn most_that_fit(self) -> u64 {
        // `min_bytes` grows with `n`: binary search the last `n` that fits.
        let (mut lo, mut hi) = (0u64, MAX_DOCUMENT_SIZE);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if self.min_bytes(mid) <= MAX_DOCUMENT_SIZE {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        lo
    }

    /// What one item takes at least, for messages.
    pub fn per_item(self) -> &'static str {
        match self {
            Keys::Indexes => {
                "a type byte, its index as a decimal key and the key's NUL byte (2 + digits bytes), even when the value itself is empty"
            }
            Keys::Strings => {
                "a type byte, a key of its own and the key's NUL byte (2 bytes plus the key: distinct keys, so most are 3 or more bytes long), even when the value itself is empty"
            }
        }
    }
}

/// `1234567` as `1,234,567`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_items() {
        assert_eq!(Keys::Indexes.min_bytes(0), 0);
        assert_eq!(Keys::Indexes.min_bytes(1), 3);
        assert_eq!(Keys::Indexes.min_bytes(10), 30);
        assert_eq!(Keys::Indexes.min_bytes(11), 34);
        // 10 * 3 + 90 * 4 + 900 * 5
        assert_eq!(Keys::Indexes.min_bytes(1000), 30 + 360 + 4500);
    }

    #[test]
    fn map_items() {
        assert_eq!(Keys::Strings.min_bytes(1), 2);
        assert_eq!(Keys::Strings.min_bytes(256), 2 + 255 * 3);
        assert_eq!(Keys::Strings.min_bytes(257), 2 + 255 * 3 + 4);
    }

    /// The array bound is exact for an array of nulls, as the bson crate
    /// encodes it; a map of the shortest ASCII keys is at least the map bound.
    #[test]
    fn bounds_hold_against_real_encodings() {
        // `{"a": [...]}`: document length and NUL (5), the field's type byte,
        // key and NUL (3), the array's length and NUL (5).
        const OVERHEAD: u64 = 13;
        for n in [0usize, 1, 9, 10, 11, 99, 100, 101, 12_345] {
            let array = vec![bson::Bson::Null; n];
            let doc = bson::doc! { "a": array };
            let encoded = bson::serialize_to_vec(&doc).map_or(0, |v| v.len() as u64);
            assert_eq!(Keys::Indexes.min_bytes(n as u64), encoded - OVERHEAD, "{n}");
            let mut map = bson::Document::new();
            for i in 0..n {
                map.insert(format!("{i:x}"), bson::Bson::Null);
            }
            let doc = bson::doc! { "a": map };
            let encoded = bson::serialize_to_vec(&doc).map_or(0, |v| v.len() as u64);
            assert!(
                Keys::Strings.min_bytes(n as u64) <= encoded - OVERHEAD,
                "{n}"
            );
        }
    }

    #[test]
    fn most_that_fit() {
        let most = Keys::Indexes.most_that_fit();
        assert!(Keys::Indexes.min_bytes(most) <= MAX_DOCUMENT_SIZE);
        assert!(Keys::Indexes.min_bytes(most + 1) > MAX_DOCUMENT_SIZE);
        let most = Keys::Strings.most_that_fit();
        assert!(Keys::Strings.min_bytes(most) <= MAX_DOCUMENT_SIZE);
        assert!(Keys::Strings.min_bytes(most + 1) > MAX_DOCUMENT_SIZE);
        assert!(Keys::Strings.most_that_fit() > Keys::Indexes.most_that_fit());
        assert_eq!(grouped(16_777_216), "16,777,216");
        assert_eq!(grouped(999), "999");
    }
}
