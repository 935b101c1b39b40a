//! The messages of the errors: each says what to do first, names the field,
//! the document and the limit, and never holds stored values or credentials.

/// "field `f`" and `then`, or nothing.
pub(super) fn field_prefix(field: Option<&str>, then: &str) -> String {
    match field {
        Some(f) => format!("field `{f}`{then}"),
        None => String::new(),
    }
}

/// What an encryption error is about: "field `email` of `User` ", or
/// nothing when no model is concerned.
pub(super) fn encryption_subject(model: Option<&str>, field: Option<&str>) -> String {
    match (field, model) {
        (Some(f), Some(m)) => format!("field `{f}` of `{m}` "),
        (Some(f), None) => format!("field `{f}` "),
        (None, Some(m)) => format!("a value of `{m}` "),
        (None, None) => "a value ".to_owned(),
    }
}

/// What the deserializer says went wrong: bson's message alone (the error
/// names the field on its own), or the kind of error when bson gave none.
pub(super) fn deserialize_reason(err: &bson::error::Error) -> String {
    match err.message.as_deref() {
        Some(message) if !message.is_empty() => message.to_owned(),
        _ => err.kind.to_string(),
    }
}

/// Why a value could not be serialized, without the value.
pub(super) fn serialize_reason(err: &bson::error::Error) -> String {
    use bson::error::ErrorKind as K;
    let message = err.message.as_deref().unwrap_or_default();
    match &err.kind {
        K::TooLargeUnsignedInteger { .. } => format!(
            "an unsigned integer above i64::MAX ({}): BSON has no unsigned 64-bit integer",
            i64::MAX
        ),
        K::Serialization { .. } if message.starts_with("invalid document key type") => {
            "a map key that is not a string".to_owned()
        }
        K::MalformedBytes { .. } if message.starts_with("cstring with interior null") => {
            "a key that contains a NUL byte".to_owned()
        }
        _ if !message.is_empty() => message.to_owned(),
        _ => "the value has no BSON form".to_owned(),
    }
}

pub(super) fn rules_text(rules: &[String]) -> String {
    if rules.is_empty() {
        "the server named no rule".to_owned()
    } else {
        format!("not satisfied: {}", rules.join("; "))
    }
}

/// The fields of a query refused by the index guard, by how it tests them
/// (see [`Error::Unindexed`](crate::Error::Unindexed)).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct QueryFields {
    /// The stored paths tested for equality (`{f: v}`, `$eq`, `$in`, `$all`).
    pub equality: Vec<String>,
    /// The stored paths sorted by (equality fields left out).
    pub sort: Vec<String>,
    /// The stored paths tested with a range (`$gt`, `$ne`, `$regex`...).
    pub range: Vec<String>,
    /// The conditions no index can bound (`` `$where` ``, `` `$size` on `tags` ``).
    pub unindexable: Vec<String>,
    /// The equality paths of fields that hold ids (named `..Id` or `.._id`,
    /// or stored as an `ObjectId` or a UUID): the index such a field wants
    /// is a reference's, `#[reference(index, to = Parent)]`.
    pub ids: Vec<String>,
}

pub(super) fn unindexed_message(model: &str, query: &QueryFields, index: Option<&str>) -> String {
    let QueryFields {
        equality,
        sort,
        range,
        unindexable,
        ids,
    } = query;
    let list = |v: &[String]| {
        v.iter()
            .map(|f| format!("`{f}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut parts = Vec::new();
    if !equality.is_empty() {
        parts.push(format!("equality on {}", list(equality)));
    }
    if !sort.is_empty() {
        parts.push(format!("sorted by {}", list(sort)));
    }
    if !range.is_empty() {
        parts.push(format!("range on {}", list(range)));
    }
    let what = if !unindexable.is_empty() {
        format!(
            "a query on `{model}` with {}, which no index can bound,",
            unindexable.join(", ")
        )
    } else if parts.is_empty() {
        format!("a query on `{model}` with no condition and no sort")
    } else {
        format!(
            "no index of `{model}` serves a query with {}, so it",
            parts.join("; ")
        )
    };
    // One id, looked up by equality alone: the field is a reference.
    let reference = match (equality.as_slice(), sort.is_empty() && range.is_empty()) {
        ([id], true) if ids.contains(id) && !id.contains('.') => Some(id),
        _ => None,
    };
    let fix = match (index, reference) {
        (Some(index), Some(id)) => format!(
            "declare the field stored as `{id}` a reference, `#[reference(index, to = {})]` \
             (the model whose `_id` it holds), which indexes it, or declare the index with \
             `{index}`, or call",
            parent_of(id)
        ),
        (Some(index), None) => format!("declare the index with `{index}`, or call"),
        (None, _) if range.len() > 1 => {
            "an index bounds one range field: keep one range (and equality on the rest), or call"
                .to_owned()
        }
        (None, _) => "filter on `_id` or an indexed field, or call".to_owned(),
    };
    format!(
        "{what} would scan the collection: {fix} `.scan()` on the query to scan on purpose; \
         nothing was sent"
    )
}

/// The model an id field points at, by its stored name: `recipeId`,
/// `recipe_id` and `recipe` give `Recipe`.
pub(super) fn parent_of(id: &str) -> String {
    let base = id
        .strip_suffix("_id")
        .or_else(|| id.strip_suffix("Id"))
        .filter(|b| !b.is_empty())
        .unwrap_or(id);
    let mut pascal = String::new();
    let mut upper = true;
    for c in base.chars() {
        if c == '_' || c == '-' {
            upper = true;
        } else if upper {
            pascal.extend(c.to_uppercase());
            upper = false;
        } else {
            pascal.push(c);
        }
    }
    pascal
}

pub(super) fn clash_message(collection: &str, first: &str, second: &str) -> String {
    let models = if first == second {
        format!("two different models named `{first}`")
    } else {
        format!("two models, `{first}` and `{second}`,")
    };
    format!(
        "{models} are declared on the collection `{collection}`: a collection has one \
         validator and one set of indexes, so the writes of one model would be refused by \
         the rules of the other; give each model its own collection; nothing was sent"
    )
}

/// Who a message's advice is for: a program calling the library (it names
/// the options: `SyncOptions::on_violations`) or someone running the schema
/// command (it names the flags: `--on-violations`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wording {
    Library,
    /// Only the schema command (`cli` feature) speaks so.
    #[cfg_attr(not(feature = "cli"), allow(dead_code))]
    Command,
}

pub(crate) fn rejects_existing_message(
    collection: &str,
    count: u64,
    ids: &[String],
    wording: Wording,
) -> String {
    let (s, fail, them, they) = if count == 1 {
        ("", "fails", "it", "it stays")
    } else {
        ("s", "fail", "them", "they stay")
    };
    let more = if (ids.len() as u64) < count {
        ", ..."
    } else {
        ""
    };
    let (plan, moderate, apply) = match wording {
        Wording::Library => (
            "`Schema::plan`",
            "set `SyncOptions::on_violations` to `OnViolations::ValidateModerate`",
            "`OnViolations::Apply`",
        ),
        Wording::Command => (
            "`schema plan`",
            "run `schema sync --on-violations moderate`",
            "`--on-violations apply`",
        ),
    };
    format!(
        "{count} existing document{s} of `{collection}` {fail} the model's validator (_id \
         {}{more}): once it is applied, every write to {them} would be refused (code 121); \
         fix {them} first ({plan} counts them), or {moderate} (validationLevel \"moderate\": \
         {they} writable, unchecked, and a later sync restores \"strict\" once none fails) \
         or {apply}; nothing was changed",
        ids.join(", ")
    )
}

/// [`Error::IndexConflict`](super::Error::IndexConflict)'s message.
pub(crate) fn index_conflict_message(
    collection: &str,
    server: &str,
    wanted: &str,
    wording: Wording,
) -> String {
    let replace = match wording {
        Wording::Library => "run setup with `replace_conflicting`",
        Wording::Command => "run `schema sync --replace-conflicting`",
    };
    format!(
        "index conflict on `{collection}`: the server has `{server}` but the model declares \
         `{wanted}`; drop the server's index, or {replace}"
    )
}

/// [`Error::MissingIndex`](super::Error::MissingIndex)'s message.
pub(crate) fn missing_index_message(collection: &str, index: &str, wording: Wording) -> String {
    let sync = match wording {
        Wording::Library => "run setup (`Schema::sync`) first",
        Wording::Command => "run `schema sync` first",
    };
    format!("`{collection}` has no index `{index}`, which this query rides: {sync}")
}

/// [`Error::NoCollections`](super::Error::NoCollections)'s message: the
/// database, the ones there are, and the closest name among them.
pub(super) fn no_collections_message(database: &str, existing: &[String]) -> String {
    let there = if existing.is_empty() {
        "the server lists no database to this user besides admin, config and local".to_owned()
    } else {
        let names: Vec<String> = existing.iter().map(|n| format!("`{n}`")).collect();
        format!(
            "the databases on this server (besides admin, config and local) are {}",
            names.join(", ")
        )
    };
    let close = existing
        .iter()
        .map(|n| (distance(database, n), n))
        .filter(|(d, n)| *d <= 2.max(database.len() / 4) && *d < n.len())
        .min();
    let hint = match close {
        Some((_, name)) => format!("; did you mean `{name}`?"),
        None => String::new(),
    };
    format!(
        "the database `{database}` has no collections: it does not exist, or holds none \
         (check its name); {there}{hint}; nothing was read"
    )
}

/// The edit distance between two names (insertions, deletions,
/// substitutions), for "did you mean".
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

pub(super) fn unsupported_message(models: &[&'static str]) -> String {
    let what = if models.is_empty() {
        "this operation runs a multi-document transaction".to_owned()
    } else {
        format!("{models:?} keep two-sided links, which need multi-document transactions")
    };
    format!(
        "{what}, but the server is a standalone: a replica set is needed (run it as a \
         replica set; a one-node replica set is enough)"
    )
}

/// Shows an `_id` in a message: a string as it is, an `ObjectId` in hex,
/// any other value as relaxed extended JSON.
pub(crate) fn id_text(id: &bson::Bson) -> String {
    match id {
        bson::Bson::String(s) => s.clone(),
        bson::Bson::ObjectId(oid) => oid.to_hex(),
        other => other.clone().into_relaxed_extjson().to_string(),
    }
}

/// The `_id` of a stored document as text (see [`id_text`]).
pub(crate) fn raw_id(raw: &bson::RawDocument) -> String {
    match raw.get("_id") {
        Ok(Some(id)) => match bson::Bson::try_from(bson::RawBson::from(id)) {
            Ok(id) => id_text(&id),
            Err(_) => "(unreadable)".to_owned(),
        },
        _ => "(none)".to_owned(),
    }
}

/// [`Error::Unreachable`]'s message: a first line that says what to check
/// (with the first server's error, "Connection refused", when the driver
/// gave one), then the driver's account on a line of its own.
pub(super) fn unreachable_message(hosts: &str, reason: &str) -> String {
    let cause = server_error_in(reason)
        .map(|c| format!(" ({c})"))
        .unwrap_or_default();
    format!(
        "cannot reach the MongoDB server at {hosts}{cause}: is it running, and is that its \
         address (the host and port of the connection string)? To wait longer for it, raise \
         `serverSelectionTimeoutMS` in the connection string\n  the driver's account: {reason}"
    )
}

/// The first server's error in a server-selection message ("Error: Kind:
/// I/O error: Connection refused (os error 111), labels: {}" gives "I/O
/// error: Connection refused (os error 111)").
pub(super) fn server_error_in(message: &str) -> Option<&str> {
    let (_, rest) = message.split_once("Error: ")?;
    let rest = rest.strip_prefix("Kind: ").unwrap_or(rest);
    let end = rest.find([',', '}']).unwrap_or(rest.len());
    let cause = rest[..end].trim();
    (!cause.is_empty()).then_some(cause)
}

/// The message of `Error::SetupRefused`: `reason` is the refusal's own
/// message (a duplicate key's is replaced by what to do).
pub(super) fn setup_refused_message(
    collection: &str,
    step: &str,
    duplicate_key: bool,
    reason: String,
    done: &[String],
) -> String {
    let why = if duplicate_key {
        "code 11000 (DuplicateKey): stored documents share a key of this unique index; make \
         their keys unique first"
            .to_owned()
    } else {
        match reason.strip_prefix("the server refused the command: ") {
            Some(rest) => rest.to_owned(),
            None => reason,
        }
    };
    let done = if done.is_empty() {
        "nothing was changed before it".to_owned()
    } else {
        format!("done before it: {}", done.join("; "))
    };
    format!(
        "setup stopped at `{collection}`: the server refused to {step}: {why}; {done}; the \
         steps after it were not tried: run `plan` to see what is left"
    )
}
