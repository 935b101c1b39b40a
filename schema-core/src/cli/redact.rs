//! Credentials kept out of everything the schema command prints: the
//! password of every connection string it was given (an argument, whatever
//! its flag, or the environment) is replaced by `****` in its usage and
//! error messages, wherever it shows, as part of a URI or alone (a message
//! that quotes a piece of a malformed URI).

use std::ffi::OsString;

/// What replaces a password.
const MASK: &str = "****";

/// A piece of a password shorter than this is not looked for alone (it
/// would mask ordinary words); a whole password always is.
const MIN_PIECE: usize = 4;

/// The environment variables the command reads.
pub(super) const ENV: [&str; 2] = ["MONGODB_URI", "MONGODB_DATABASE"];

/// The passwords of the connection strings the command was given.
#[derive(Debug, Default)]
pub(super) struct Secrets(Vec<String>);

impl Secrets {
    /// The passwords of every argument and watched environment variable
    /// that holds a URI with one.
    pub(super) fn gather(args: &[OsString]) -> Secrets {
        let from_env = ENV.iter().filter_map(std::env::var_os);
        let mut secrets = Secrets::default();
        for value in args.iter().cloned().chain(from_env) {
            secrets.add_uri(&value.to_string_lossy());
        }
        secrets
    }

    /// Adds the password of `text` when it holds a URI with one: as
    /// written, percent-decoded, and each piece of it between the
    /// characters a URI parser splits at (a parser may quote one).
    fn add_uri(&mut self, text: &str) {
        let Some(password) = password_of(text) else {
            return;
        };
        let decoded = percent_decode(password);
        for whole in [password, decoded.as_str()] {
            self.push(whole, 1);
            for piece in whole.split(['/', '?', '#', '@', ':', ',', '[', ']', '&', '=']) {
                self.push(piece, MIN_PIECE);
            }
        }
        // Longest first, so a piece never masks part of a longer secret.
        self.0.sort_by_key(|s| std::cmp::Reverse(s.len()));
    }

    fn push(&mut self, secret: &str, min: usize) {
        if secret.chars().count() >= min && !self.0.iter().any(|s| s == secret) {
            self.0.push(secret.to_owned());
        }
    }

    /// `text` with every URI's password masked, and every known password
    /// (or piece of one) wherever it shows.
    pub(super) fn scrub(&self, text: &str) -> String {
        let mut out = mask_uri_passwords(text);
        for secret in &self.0 {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), MASK);
            }
        }
        out
    }
}

/// The password of the first URI in `text` (`scheme://user:password@host`):
/// the user information ends at the last `@`, as the driver reads it, and
/// the password starts after its first `:`.
fn password_of(text: &str) -> Option<&str> {
    let (_, rest) = text.split_once("://")?;
    let (userinfo, _) = rest.rsplit_once('@')?;
    let (_, password) = userinfo.split_once(':')?;
    (!password.is_empty()).then_some(password)
}

/// Every `scheme://user:password@` in `text` as `scheme://user:****@`: a
/// URI runs from its scheme to the first blank or quote.
fn mask_uri_passwords(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("://") {
        let (head, tail) = rest.split_at(at + 3);
        out.push_str(head);
        let end = tail
            .find(|c: char| c.is_whitespace() || "'\"`<>".contains(c))
            .unwrap_or(tail.len());
        let (uri, after) = tail.split_at(end);
        match uri.rsplit_once('@') {
            Some((userinfo, host)) => {
                match userinfo.split_once(':') {
                    Some((user, _)) => {
                        out.push_str(user);
                        out.push(':');
                        out.push_str(MASK);
                    }
                    None => out.push_str(userinfo),
                }
                out.push('@');
                out.push_str(host);
            }
            None => out.push_str(uri),
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// `%XX` sequences decoded (others left as they are).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0)) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets(uris: &[&str]) -> Secrets {
        let mut s = Secrets::default();
        for uri in uris {
            s.add_uri(uri);
        }
        s
    }

    #[test]
    fn a_uri_keeps_its_user_and_host_and_loses_its_password() {
        let s = Secrets::default();
        assert_eq!(
            s.scrub(
                "error: unexpected argument 'mongodb://alice:hunter22@db:27017/?tls=true' found"
            ),
            "error: unexpected argument 'mongodb://alice:****@db:27017/?tls=true' found"
        );
        assert_eq!(
            s.scrub("mongodb+srv://bob@cluster and mongodb://h:1"),
            "mongodb+srv://bob@cluster and mongodb://h:1"
        );
    }

    #[test]
    fn a_known_password_is_masked_alone_encoded_decoded_and_in_pieces() {
        let s = secrets(&["mongodb://alice:s3cr%2Fet?pw@127.0.0.1:1/"]);
        assert_eq!(s.scrub("port s3cr%2Fet?pw"), "port ****");
        assert_eq!(s.scrub("decoded s3cr/et?pw"), "decoded ****");
        // A parser that split at `?` quotes the part before it.
        assert_eq!(s.scrub("got s3cr%2Fet"), "got ****");
        assert_eq!(s.scrub("short et stays"), "short et stays");
        assert!(secrets(&["--db", "plain"]).0.is_empty());
    }
}
