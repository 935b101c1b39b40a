//! Driver and server errors into [`Error`]'s variants: the server codes the
//! runtime recognises, and the messages without the data written.

use bson::{Bson, Document as BsonDocument};
use mongodb::error::{ErrorKind, WriteFailure};

use super::{id_text, Error};

/// The server error codes the runtime recognises.
pub mod code {
    /// `BadValue`: among others, a `hint` naming no index the collection has.
    pub const BAD_VALUE: i32 = 2;
    /// `Unauthorized`: the user lacks the rights for the command.
    pub const UNAUTHORIZED: i32 = 13;
    /// `AuthenticationFailed`: the credentials were refused.
    pub const AUTHENTICATION_FAILED: i32 = 18;
    /// `IllegalOperation`: a standalone refuses a transaction's first write with it.
    pub const ILLEGAL_OPERATION: i32 = 20;
    /// `NamespaceNotFound`: the collection does not exist.
    pub const NAMESPACE_NOT_FOUND: i32 = 26;
    /// `IndexNotFound`: the index named does not exist.
    pub const INDEX_NOT_FOUND: i32 = 27;
    /// `MaxTimeMSExpired`: a commit ran out of its `maxCommitTimeMS`.
    pub const MAX_TIME_MS_EXPIRED: i32 = 50;
    /// `WriteConflict`: another operation wrote the same document.
    pub const WRITE_CONFLICT: i32 = 112;
    /// `QueryPlanKilled`: a query stopped, among others because the index it
    /// read was dropped.
    pub const QUERY_PLAN_KILLED: i32 = 175;
    /// `DocumentValidationFailure`: the collection's validator refused a write.
    pub const DOCUMENT_VALIDATION_FAILURE: i32 = 121;
    /// `DuplicateKey` (`E11000`): a unique index already holds the key.
    pub const DUPLICATE_KEY: i32 = 11000;
}

/// The error labels the runtime recognises.
pub mod label {
    /// The label the server puts on errors after which the whole transaction may be retried.
    pub const TRANSIENT_TRANSACTION_ERROR: &str = "TransientTransactionError";
    /// The label on a commit whose outcome is unknown: the commit may be retried.
    pub const UNKNOWN_TRANSACTION_COMMIT_RESULT: &str = "UnknownTransactionCommitResult";
}

/// The most rules a [`Error::ValidationFailed`] lists.
const MAX_RULES: usize = 8;

/// See [`Error::from_server`].
pub(super) fn classify(
    err: mongodb::error::Error,
    action: &'static str,
    collection: &str,
) -> Error {
    let collection = collection.to_owned();
    if let ErrorKind::Authentication { message, .. } = err.kind.as_ref() {
        return Error::AuthenticationFailed {
            message: message.clone(),
        };
    }
    if matches!(*err.kind, ErrorKind::ServerSelection { .. }) {
        let reason = err.to_string();
        return Error::Unreachable {
            hosts: hosts_in(&reason),
            reason,
            labels: labels_of(&err),
        };
    }
    let Some(failure) = Failure::of(&err) else {
        return Error::from(err);
    };
    let labels = labels_of(&err);
    classify_failure(failure, labels, action, collection).unwrap_or_else(|| Error::from(err))
}

/// The refusal of one document of a write (an `insert_many` item): its
/// variant when the runtime recognises the code, else
/// [`Error::WriteRefused`] with the code and its name (never the message,
/// which may hold the values written).
pub(super) fn classify_write(
    code: i32,
    code_name: Option<&str>,
    message: &str,
    details: Option<&BsonDocument>,
    collection: &str,
) -> Error {
    let failure = Failure {
        code,
        message,
        details,
    };
    classify_failure(failure, Vec::new(), "write to", collection.to_owned()).unwrap_or_else(|| {
        Error::WriteRefused {
            collection: collection.to_owned(),
            code,
            code_name: code_name.unwrap_or("(not named by the server)").to_owned(),
        }
    })
}

/// The variant of a server failure whose code the runtime recognises.
fn classify_failure(
    failure: Failure<'_>,
    labels: Vec<String>,
    action: &'static str,
    collection: String,
) -> Option<Error> {
    Some(match failure.code {
        code::UNAUTHORIZED => Error::PermissionDenied {
            action,
            collection,
            message: redact(&short_denial(failure.message)),
        },
        code::AUTHENTICATION_FAILED => Error::AuthenticationFailed {
            message: failure.message.to_owned(),
        },
        code::DUPLICATE_KEY => Error::DuplicateKey {
            collection,
            index: index_in(failure.message)
                .unwrap_or("(not named by the server)")
                .to_owned(),
        },
        code::DOCUMENT_VALIDATION_FAILURE => {
            let details = failure.details;
            Error::ValidationFailed {
                collection,
                id: details
                    .and_then(|d| d.get("failingDocumentId"))
                    .map_or_else(|| "(not named by the server)".to_owned(), id_text),
                rules: details
                    .and_then(|d| d.get_document("details").ok())
                    .map(rules_in)
                    .unwrap_or_default(),
            }
        }
        code::WRITE_CONFLICT => Error::WriteConflict { collection, labels },
        _ => return None,
    })
}

/// The code, message and details of a server error, wherever the driver put them.
struct Failure<'a> {
    code: i32,
    message: &'a str,
    details: Option<&'a BsonDocument>,
}

impl<'a> Failure<'a> {
    fn of(err: &'a mongodb::error::Error) -> Option<Self> {
        match err.kind.as_ref() {
            ErrorKind::Command(c) => Some(Failure {
                code: c.code,
                message: &c.message,
                details: None,
            }),
            ErrorKind::Write(WriteFailure::WriteError(w)) => Some(Failure {
                code: w.code,
                message: &w.message,
                details: w.details.as_ref(),
            }),
            ErrorKind::Write(WriteFailure::WriteConcernError(w)) => Some(Failure {
                code: w.code,
                message: &w.message,
                details: None,
            }),
            ErrorKind::InsertMany(m) => {
                let w = m.write_errors.as_ref()?.first()?;
                Some(Failure {
                    code: w.code,
                    message: &w.message,
                    details: w.details.as_ref(),
                })
            }
            _ => None,
        }
    }
}

/// The code of a driver error, when the server sent one.
pub(super) fn code_of(err: &mongodb::error::Error) -> Option<i32> {
    Failure::of(err).map(|f| f.code)
}

/// The driver error's kind and labels, without the server's raw reply (the
/// driver's own message ends with it, as hex, data written included) and
/// without any value the server's message quotes ([`redact`]).
pub(super) fn driver_message(err: &mongodb::error::Error) -> String {
    let labels = labels_of(err);
    let kind = kind_message(err);
    if labels.is_empty() {
        kind
    } else {
        format!("{kind}, labels: {labels:?}")
    }
}

/// What failed, its code and name, and the server's message [`redact`]ed.
fn kind_message(err: &mongodb::error::Error) -> String {
    let refusal = |what: &str, code: i32, name: &str, message: &str| {
        format!("{what}: code {code} ({name}): {}", redact(message))
    };
    match err.kind.as_ref() {
        ErrorKind::Command(c) => refusal(
            "the server refused the command",
            c.code,
            &c.code_name,
            &c.message,
        ),
        ErrorKind::Write(WriteFailure::WriteError(w)) => refusal(
            "the server refused the write",
            w.code,
            w.code_name.as_deref().unwrap_or("unnamed"),
            &w.message,
        ),
        ErrorKind::Write(WriteFailure::WriteConcernError(w)) => {
            refusal("the write concern failed", w.code, &w.code_name, &w.message)
        }
        other => redact(&other.to_string()),
    }
}

/// A server's message without the values it quotes: each `{ ... }` and
/// `[ ... ]` group (the server prints stored documents and arrays so:
/// "Cannot create field 'km' in element {trips: [ ... ]}") becomes `{…}` or
/// `[…]`, and each double-quoted string `"…"`. Field names, which the
/// server quotes with single quotes, stay: they are the model's, not data.
pub(crate) fn redact(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut depth = 0usize;
    let mut quoted = false;
    for c in message.chars() {
        match (quoted, depth, c) {
            (true, _, '"') => quoted = false,
            (true, _, _) => {}
            (false, _, '"') if depth == 0 => {
                quoted = true;
                out.push_str("\"…\"");
            }
            (false, _, '{' | '[') => {
                if depth == 0 {
                    out.push(c);
                    out.push('…');
                }
                depth += 1;
            }
            (false, d, '}' | ']') if d > 0 => {
                depth -= 1;
                if depth == 0 {
                    out.push(c);
                }
            }
            (false, 0, _) => out.push(c),
            (false, _, _) => {}
        }
    }
    if depth > 0 {
        // A group the message cut short: closed, so nothing of it shows.
        out.push('…');
    }
    out
}

fn labels_of(err: &mongodb::error::Error) -> Vec<String> {
    let mut labels: Vec<String> = err.labels().iter().cloned().collect();
    labels.sort();
    labels
}

/// The index named by "E11000 duplicate key error collection: db.c index:
/// email_1 dup key: { ... }" (the key's value is left out).
fn index_in(message: &str) -> Option<&str> {
    let (_, rest) = message.split_once(" index: ")?;
    let name = rest.split(" dup key").next()?.trim();
    (!name.is_empty()).then_some(name)
}

/// The rules a `$jsonSchema` refusal names (`errInfo.details`), as
/// `path: operator`, without the values considered.
fn rules_in(details: &BsonDocument) -> Vec<String> {
    let mut rules = Vec::new();
    collect_rules(details, "", &mut rules);
    if rules.len() > MAX_RULES {
        let more = rules.len() - MAX_RULES;
        rules.truncate(MAX_RULES);
        rules.push(format!("and {more} more"));
    }
    rules
}

fn collect_rules(node: &BsonDocument, path: &str, rules: &mut Vec<String>) {
    let operator = node.get_str("operatorName").unwrap_or("");
    let nested = |key: &str| {
        node.get_array(key)
            .map(|a| a.iter().filter_map(Bson::as_document).collect::<Vec<_>>())
            .unwrap_or_default()
    };
    let properties = nested("propertiesNotSatisfied");
    let children = nested("schemaRulesNotSatisfied")
        .into_iter()
        .chain(nested("details"))
        .collect::<Vec<_>>();
    if properties.is_empty() && children.is_empty() {
        let at = if path.is_empty() { "document" } else { path };
        rules.push(match operator {
            // The names of the model's required fields, not data.
            "required" => format!("{at}: required {}", names(node, "missingProperties")),
            // A bound of the model: `maxItems 2`.
            _ => match node
                .get_document("specifiedAs")
                .ok()
                .and_then(|s| s.get(operator))
            {
                Some(Bson::Int32(n)) => format!("{at}: {operator} {n}"),
                Some(Bson::Int64(n)) => format!("{at}: {operator} {n}"),
                _ => format!("{at}: {operator}"),
            },
        });
        return;
    }
    for property in properties {
        let name = property.get_str("propertyName").unwrap_or("?");
        let path = if path.is_empty() {
            name.to_owned()
        } else {
            format!("{path}.{name}")
        };
        for child in property
            .get_array("details")
            .map(|a| a.iter().filter_map(Bson::as_document).collect::<Vec<_>>())
            .unwrap_or_default()
        {
            collect_rules(child, &path, rules);
        }
    }
    for child in children {
        collect_rules(child, path, rules);
    }
}

fn names(node: &BsonDocument, key: &str) -> String {
    node.get_array(key)
        .map(|a| {
            a.iter()
                .filter_map(Bson::as_str)
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default()
}

/// The server's "not authorized on app to execute command { insert: ...,
/// documents: [...] }" without the command's body (which holds the data
/// written, and belongs in no log): "... to execute `insert`".
fn short_denial(message: &str) -> String {
    match message.split_once(" to execute command {") {
        Some((head, rest)) => match rest.trim_start().strip_prefix('"') {
            Some(name) => format!(
                "{head} to execute `{}`",
                name.split('"').next().unwrap_or_default()
            ),
            None => head.to_owned(),
        },
        None => message.to_owned(),
    }
}

/// Pulls the `Address: host:port` entries out of a server-selection message.
fn hosts_in(message: &str) -> String {
    let hosts: Vec<&str> = message
        .split("Address: ")
        .skip(1)
        .filter_map(|s| s.split([',', ' ']).next())
        .collect();
    if hosts.is_empty() {
        "the configured hosts".to_owned()
    } else {
        hosts.join(", ")
    }
}

impl Error {
    /// Classifies a driver error from `action` on `collection`: refused
    /// credentials or rights, an unreachable server, a duplicate key, a
    /// validator's refusal and a write conflict get their own variant (their
    /// messages hold no value written, nor the server's raw reply); the error
    /// labels are kept ([`Error::has_label`]).
    pub fn from_server(err: mongodb::error::Error, action: &'static str, collection: &str) -> Self {
        classify(err, action, collection)
    }

    /// The refusal of one document of a write (an `insert_many` item, as
    /// the server reports it): its variant, or [`Error::WriteRefused`].
    pub(crate) fn from_write_error(
        code: i32,
        code_name: Option<&str>,
        message: &str,
        details: Option<&bson::Document>,
        collection: &str,
    ) -> Self {
        classify_write(code, code_name, message, details, collection)
    }
}

impl Error {
    /// Whether the driver or server attached this error label
    /// (`TransientTransactionError`, `UnknownTransactionCommitResult`); for
    /// [`Error::TransactionRetriesExhausted`], the last error's.
    pub fn has_label(&self, label: &str) -> bool {
        match self {
            Error::Driver(e) => e.has_label(label),
            Error::Unreachable { labels, .. } | Error::WriteConflict { labels, .. } => {
                labels.iter().any(|l| l == label)
            }
            Error::TransactionRetriesExhausted { last, .. } => last.has_label(label),
            Error::Consumer { source, .. } => source.has_label(label),
            _ => false,
        }
    }

    /// Whether the error leaves a commit's outcome unknown: the commit may
    /// have reached the server and applied, its answer lost or carrying a
    /// write-concern error (label `UnknownTransactionCommitResult`). The
    /// transaction then applied in full or not at all: read to find out.
    pub fn commit_outcome_unknown(&self) -> bool {
        match self {
            Error::TransactionRetriesExhausted { last, .. } => last.commit_outcome_unknown(),
            Error::Consumer { source, .. } => source.commit_outcome_unknown(),
            other => other.has_label(label::UNKNOWN_TRANSACTION_COMMIT_RESULT),
        }
    }

    /// The server's error code, when the server sent one (for the typed
    /// variants, the code they stand for: [`code::DUPLICATE_KEY`] and so on).
    pub fn code(&self) -> Option<i32> {
        match self {
            Error::Driver(e) => e.code(),
            Error::DuplicateKey { .. } => Some(code::DUPLICATE_KEY),
            Error::ValidationFailed { .. } => Some(code::DOCUMENT_VALIDATION_FAILURE),
            Error::WriteConflict { .. } => Some(code::WRITE_CONFLICT),
            Error::PermissionDenied { .. } => Some(code::UNAUTHORIZED),
            Error::TransactionRetriesExhausted { last, .. } => last.code(),
            Error::Consumer { source, .. } => source.code(),
            Error::SetupRefused { reason, .. } => reason.code(),
            Error::WriteRefused { code, .. } => Some(*code),
            Error::InsertMany(failure) => failure.failed.first().and_then(|f| f.reason.code()),
            _ => None,
        }
    }
}

/// Error helpers on driver errors.
pub(crate) trait DriverErrorExt {
    fn code(&self) -> Option<i32>;
}

impl DriverErrorExt for mongodb::error::Error {
    fn code(&self) -> Option<i32> {
        code_of(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::message::{server_error_in, unreachable_message};
    use bson::doc;

    #[test]
    fn an_unreachable_server_says_what_to_check_before_the_drivers_account() {
        let reason = "Server selection timeout: No available servers. Topology: { Type: \
                      Unknown, Servers: [ { Address: 127.0.0.1:9, Type: Unknown, Error: Kind: \
                      I/O error: Connection refused (os error 111), labels: {} } ] }";
        let message = unreachable_message(&hosts_in(reason), reason);
        let mut lines = message.lines();
        assert_eq!(
            lines.next(),
            Some(
                "cannot reach the MongoDB server at 127.0.0.1:9 (I/O error: Connection refused \
                 (os error 111)): is it running, and is that its address (the host and port of \
                 the connection string)? To wait longer for it, raise \
                 `serverSelectionTimeoutMS` in the connection string"
            )
        );
        assert_eq!(
            lines.next(),
            Some(format!("  the driver's account: {reason}").as_str())
        );
        assert_eq!(server_error_in("no servers"), None);
    }

    #[test]
    fn a_denial_keeps_the_command_name_and_drops_its_body() {
        assert_eq!(
            short_denial(
                "not authorized on app to execute command { \"insert\": \"notes\", \"documents\": [{ \"secret\": 1 }] }"
            ),
            "not authorized on app to execute `insert`"
        );
        assert_eq!(short_denial("not authorized"), "not authorized");
    }

    #[test]
    fn a_message_keeps_its_words_and_drops_the_values_it_quotes() {
        let message = "Command failed: Error code 28 (PathNotViable): Cannot create field 'km' \
                       in element {trips: [ { driverCode: \"s3cret\", km: 381 } ]}";
        let redacted = redact(message);
        assert_eq!(
            redacted,
            "Command failed: Error code 28 (PathNotViable): Cannot create field 'km' in element {…}"
        );
        assert_eq!(
            redact("value \"s3cret\" and [1, [2]] kept out"),
            "value \"…\" and […] kept out"
        );
        assert_eq!(redact("cut short {a: [1"), "cut short {……");
        assert_eq!(redact("plain words"), "plain words");
    }

    #[test]
    fn a_duplicate_key_names_the_index_not_the_key() {
        let message = "Plan executor error during update :: caused by :: E11000 duplicate key \
                       error collection: app.users index: email_1 dup key: { email: \"s3cret\" }";
        assert_eq!(index_in(message), Some("email_1"));
        assert_eq!(index_in("E11000 duplicate key error"), None);
    }

    #[test]
    fn validation_rules_name_paths_and_operators_not_values() {
        let details = doc! {
            "operatorName": "$jsonSchema",
            "schemaRulesNotSatisfied": [
                { "operatorName": "properties", "propertiesNotSatisfied": [
                    { "propertyName": "tags", "details": [
                        { "operatorName": "maxItems", "specifiedAs": { "maxItems": 2 },
                          "reason": "array did not match specified length",
                          "consideredValue": ["s3cret", "y", "z"], "numberOfItems": 3 } ] },
                    { "propertyName": "profile", "details": [
                        { "operatorName": "properties", "propertiesNotSatisfied": [
                            { "propertyName": "year", "details": [
                                { "operatorName": "bsonType", "specifiedAs": { "bsonType": "int" },
                                  "consideredValue": "s3cret" } ] } ] } ] } ] },
                { "operatorName": "required", "specifiedAs": { "required": ["name"] },
                  "missingProperties": ["name"] },
            ],
        };
        let rules = rules_in(&details);
        assert_eq!(
            rules,
            [
                "tags: maxItems 2",
                "profile.year: bsonType",
                "document: required `name`"
            ]
        );
        assert!(rules.iter().all(|r| !r.contains("s3cret")));
    }
}
