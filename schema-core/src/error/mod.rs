//! The errors the runtime returns, each naming what a user needs to act on it.
//! Messages never contain credentials.

/// What went wrong.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The server could not be reached. The message's first line says
    /// what to check; the driver's account follows on the next.
    #[error("{}", unreachable_message(hosts, reason))]
    Unreachable {
        /// The hosts tried (never credentials).
        hosts: String,
        /// The driver's account of why.
        reason: String,
        /// The driver's error labels: inside a transaction it labels this
        /// `TransientTransactionError`, so the transaction runner retries it
        /// (see [`Error::has_label`]).
        labels: Vec<String>,
    },
    /// The credentials were refused. The message never holds the password.
    #[error(
        "authentication failed: check the user name, the password and `authSource` in the \
         connection string: {message}"
    )]
    AuthenticationFailed {
        /// The driver's account of why.
        message: String,
    },
    /// The server refused for lack of rights.
    #[error("permission denied: cannot {action} `{collection}`: {message}")]
    PermissionDenied {
        /// What was attempted (e.g. "create indexes on").
        action: &'static str,
        /// The collection or database.
        collection: String,
        /// The server's message.
        message: String,
    },
    /// An index with the model's name or keys exists with another definition.
    #[error(
        "index conflict on `{collection}`: the server has `{server}` but the model declares \
         `{wanted}`; drop the server's index, or run setup with `replace_conflicting`"
    )]
    IndexConflict {
        /// Collection name.
        collection: String,
        /// The server's index.
        server: String,
        /// The model's index.
        wanted: String,
    },
    /// The server refused a step of setup (an index it cannot build: an
    /// option it refuses, a unique index over keys stored twice). The
    /// steps before it stay done and the message lists them; the steps
    /// after it were not tried (the plan shows what is left).
    #[error("{}", setup_refused_message(collection, step, reason, done))]
    SetupRefused {
        /// The collection of the refused step.
        collection: String,
        /// The step in the plan's words: `create index ttl_ab { "a": 1,
        /// "b": 1 } expireAfterSeconds=60`.
        step: String,
        /// The server's refusal (its code: [`Error::code`]).
        reason: Box<Error>,
        /// What this run did before it, a sentence each: "the collection
        /// `tickets` was created".
        done: Vec<String>,
    },
    /// Two models are declared on one collection (see
    /// [`Schema::check`](crate::Schema::check)); refused before anything was sent.
    #[error("{}", clash_message(collection, first, second))]
    CollectionClash {
        /// The collection both declare.
        collection: &'static str,
        /// The model registered first.
        first: &'static str,
        /// The model registered after it.
        second: &'static str,
    },
    /// Setup would change a validator that existing documents fail (after
    /// it, every write to them would be refused with code 121); nothing was
    /// changed. See [`OnViolations`](crate::OnViolations).
    #[error("{}", rejects_existing_message(collection, *count, ids))]
    ValidatorRejectsExisting {
        /// Collection name.
        collection: String,
        /// How many existing documents fail the new validator.
        count: u64,
        /// The first of their `_id`s, in `_id` order, as text: a string as it
        /// is, an `ObjectId` in hex, any other value as relaxed extended JSON.
        ids: Vec<String>,
    },
    /// The schema needs multi-document transactions and the server is standalone.
    #[error("{}", unsupported_message(models))]
    TransactionsUnsupported {
        /// The models that need them.
        models: Vec<&'static str>,
    },
    /// A bounded embedded array has no room for what was pushed; the document
    /// is unchanged.
    #[error("`{collection}.{field}` of `{id}` is full: it holds at most {max} items")]
    EmbedFull {
        /// Collection name.
        collection: &'static str,
        /// The document's `_id` as text: a string as it is, an `ObjectId` in
        /// hex, any other value as relaxed extended JSON.
        id: String,
        /// Stored field name.
        field: &'static str,
        /// The field's `max`.
        max: u32,
    },
    /// A whole document (an insert, a replace, a migration's upgrade, a
    /// document upgraded on read) holds more items in a bounded array or
    /// map than its `#[embed(max = N)]` allows; refused before anything was
    /// sent.
    #[error(
        "the `{collection}` document with _id `{id}` holds {len} items in `{field}`, over its \
         bound of {max}: {outcome}"
    )]
    OverBound {
        /// Collection name.
        collection: &'static str,
        /// The document's `_id` as text: a string as it is, an `ObjectId` in
        /// hex, any other value as relaxed extended JSON.
        id: String,
        /// The stored path of the array or map (`lines[2].notes`).
        field: String,
        /// How many items or entries it holds.
        len: u64,
        /// Its bound.
        max: u64,
        /// What became of the write ("nothing was sent").
        outcome: &'static str,
    },
    /// One side of a many-to-many link is full; nothing was written.
    #[error(
        "`{collection}.{field}` of `{id}` is full: it holds at most {max} links; \
         unlink one first, or raise the `max` of the relation"
    )]
    LinkFull {
        /// Collection of the full document.
        collection: &'static str,
        /// Its `_id` as text: a string as it is, an `ObjectId` in
        /// hex, any other value as relaxed extended JSON.
        id: String,
        /// Stored name of the full id array.
        field: &'static str,
        /// The array's `max`.
        max: u32,
    },
    /// A parent was not deleted because children still reference it through
    /// a reference declared `on_delete = "restrict"` (counted on the
    /// reference's index); nothing was deleted by this call (in a batched
    /// delete, see [`Schema::delete`](crate::Schema::delete), the batches
    /// before the one that found them stay done).
    #[error("`{parent}` _id `{id}` still has {count} document(s) in `{collection}` referencing it through `{field}` (on_delete = \"restrict\"): delete or move them first")]
    Restricted {
        /// The parent's collection.
        parent: &'static str,
        /// The `_id` of the document whose children were found, as text
        /// (the parent, or a document a cascade was deleting).
        id: String,
        /// The children's collection.
        collection: &'static str,
        /// The reference's stored name.
        field: &'static str,
        /// How many children reference it.
        count: u64,
    },
    /// Delete policies that cascade in a cycle: deleting a document of the
    /// first collection would cascade back to it. Refused when the schema
    /// is checked (`check`, `plan`, `sync`, `delete`).
    #[error("delete policies cascade in a cycle: {}; make one of these references \"restrict\", \"set_null\" or \"unset\"", cycle.join(" -> "))]
    CascadeCycle {
        /// The collections along the cycle, the first repeated last.
        cycle: Vec<&'static str>,
    },
    /// No document has this `_id`.
    #[error("no document in `{collection}` has _id `{id}`")]
    NotFound {
        /// Collection name.
        collection: &'static str,
        /// The `_id` looked for as text: a string as it is, an `ObjectId` in
        /// hex, any other value as relaxed extended JSON.
        id: String,
    },
    /// A write would give a unique index a second document with the same key;
    /// that write was refused (in an ordered `insert_many`, the documents
    /// before it were inserted). The message names the index, never the value.
    #[error(
        "duplicate key in `{collection}`: another document already has this key in the unique \
         index `{index}`; the write was refused"
    )]
    DuplicateKey {
        /// Collection name.
        collection: String,
        /// The unique index's name (`_id_` for the `_id`).
        index: String,
    },
    /// The collection's validator refused a write; that write was refused (in
    /// an ordered `insert_many`, the documents before it were inserted). The
    /// message names the `_id` and the rules not satisfied (`tags: maxItems
    /// 2`), never the values refused.
    #[error(
        "the `{collection}` document with _id `{id}` failed the collection's validator \
         ({}); the write was refused",
        rules_text(rules)
    )]
    ValidationFailed {
        /// Collection name.
        collection: String,
        /// The refused document's `_id` (shown as in [`Error::NotFound`]), as
        /// the server reports it.
        id: String,
        /// The rules not satisfied, as `path: operator` (`name: bsonType`,
        /// `tags: maxItems 2`, `required: name`), as far as the server says.
        rules: Vec<String>,
    },
    /// Another operation wrote the same document at the same time (server
    /// code 112): this write was not applied. Labelled
    /// `TransientTransactionError` in a transaction: the helpers' own
    /// transactions retry it; in a transaction of yours, abort and run it again.
    #[error(
        "write conflict in `{collection}`: another operation wrote the same document at the \
         same time; this write was not applied, retry it"
    )]
    WriteConflict {
        /// Collection name.
        collection: String,
        /// The error labels (see [`Error::has_label`]).
        labels: Vec<String>,
    },
    /// A helper that rides an index found it missing on the server.
    #[error(
        "`{collection}` has no index `{index}`, which this query rides: run setup \
         (`Schema::sync`) first"
    )]
    MissingIndex {
        /// Collection name.
        collection: &'static str,
        /// The index's key document.
        index: String,
    },
    /// No index of the model serves the query (see the index guard's rule in
    /// [`query`](crate::query)); it was refused before anything was sent.
    /// Declare the index the message names, or call `.scan()` on the query
    /// to read the collection on purpose.
    #[error("{}", unindexed_message(model, query, index.as_deref()))]
    Unindexed {
        /// The model's Rust name.
        model: &'static str,
        /// Its collection.
        collection: &'static str,
        /// The fields of the query (or of the branch of its `$or`) that no
        /// index serves, by how it tests them.
        query: Box<QueryFields>,
        /// The attribute that declares an index serving it, when one can.
        index: Option<String>,
    },
    /// A transaction kept failing with transient errors until its retry
    /// policy ran out (the specification's timeout error): it carries the
    /// last error's labels ([`Error::has_label`]) and code ([`Error::code`]).
    /// It was aborted, so nothing it wrote is kept, unless
    /// the last error left the commit's outcome unknown
    /// ([`Error::commit_outcome_unknown`]): then it may have applied, in full
    /// (never in part). Read before retrying.
    #[error(
        "transaction gave up after {attempts} attempts in {elapsed:?}; last error: {last}{}",
        if last.commit_outcome_unknown() {
            "; the commit's outcome is unknown: it may have applied (in full, never in part)"
        } else {
            ""
        }
    )]
    TransactionRetriesExhausted {
        /// How many times the transaction was started (commit retries
        /// not counted).
        attempts: u32,
        /// Time spent, backoff included.
        elapsed: std::time::Duration,
        /// The last transient error.
        last: Box<Error>,
    },
    /// A write that checks the version of a `#[document(version)]` model
    /// (`replace`, `update(..).if_version(v)`) found another version stored:
    /// another writer changed the document since it was read. Nothing was
    /// written.
    #[error(
        "the `{model}` with _id `{id}` in `{collection}` is no longer at version {expected}: \
         another writer changed it; nothing was written: read it again and retry"
    )]
    Conflict {
        /// The model's Rust name.
        model: &'static str,
        /// Collection name.
        collection: &'static str,
        /// The document's `_id` as text (shown as in [`Error::NotFound`]).
        id: String,
        /// The version the write expected.
        expected: i64,
    },
    /// Some documents of an `insert_many` were refused: which (index in the
    /// slice given, `_id`, why) and which were inserted (see
    /// [`InsertManyFailure`]). Ordered, the documents after the first refused
    /// one were not tried; unordered, every other one was inserted.
    #[error("{0}")]
    InsertMany(Box<InsertManyFailure>),
    /// The server refused one document of a write with a code the runtime
    /// has no variant for (the code's name is kept, not the server's
    /// message, which may hold the values written).
    #[error("the server refused a write to `{collection}`: code {code} ({code_name})")]
    WriteRefused {
        /// Collection name.
        collection: String,
        /// The server's error code.
        code: i32,
        /// The code's name (`codeName`), as the server gave it.
        code_name: String,
    },
    /// The model's metadata is not usable by a helper (for example a two-sided
    /// link whose other side declares no inverse array).
    #[error("{0}")]
    Model(String),
    /// The driver or the server reported another error: shown without the
    /// server's raw reply and without the values its message quotes (see
    /// [`DriverError`]).
    #[error("{0}")]
    Driver(DriverError),
    /// A value could not be turned into BSON (a `u64` above `i64::MAX`, a
    /// map with keys that are not strings); nothing was sent. The message
    /// names the field, not the value.
    #[error(
        "cannot serialize {}a `{model}` to BSON: {}; nothing was sent",
        field_prefix(field.as_deref(), " of "),
        serialize_reason(source)
    )]
    Serialize {
        /// The model's Rust name.
        model: &'static str,
        /// The stored name (or path, `profile.joinedYear`) of the field whose
        /// value failed, when known.
        field: Option<String>,
        /// The cause (it may hold the value).
        source: Box<bson::error::Error>,
    },
    /// A stored value (not a whole document: an edge id, say) could not be
    /// read as the Rust type. A whole document gives [`Error::Decode`].
    #[error(
        "cannot read a `{model}` from a stored document: {}",
        deserialize_reason(source)
    )]
    Deserialize {
        /// The model's Rust name (or what was read).
        model: &'static str,
        /// The cause.
        source: Box<bson::error::Error>,
    },
    /// A document stored at an earlier version of a versioned model could
    /// not be upgraded: the step from `from` refused it (or its version is
    /// not one the model knows). Nothing was written.
    #[error(
        "cannot upgrade the document {id} of `{collection}` to `{model}` (from version {from}): {reason}"
    )]
    Upgrade {
        /// The model's Rust name.
        model: &'static str,
        /// Collection name.
        collection: &'static str,
        /// The document's `_id` as text.
        id: String,
        /// The version it is stored at (0: not a version the model knows).
        from: u32,
        /// What the upgrade step said.
        reason: String,
    },
    /// A stored document could not be read as the model (a field of the
    /// wrong type, a missing field), for example after a write that bypassed
    /// the model and its validator.
    #[error(
        "cannot read the `{collection}` document with _id `{id}` as a `{model}`: {}{}",
        field_prefix(field.as_deref(), ": "),
        deserialize_reason(source)
    )]
    Decode {
        /// The model's Rust name.
        model: &'static str,
        /// Collection name.
        collection: &'static str,
        /// The document's `_id` as text: a string as it is, an `ObjectId` in
        /// hex, any other value as relaxed extended JSON.
        id: String,
        /// The path of the field that could not be read (`profile.joinedYear`,
        /// `courseIds[1]`), when serde could tell.
        field: Option<String>,
        /// The deserializer's account.
        source: Box<bson::error::Error>,
    },
    /// A document would be over the server's limit of
    /// [`MAX_DOCUMENT_SIZE`](crate::MAX_DOCUMENT_SIZE) bytes as BSON (an
    /// insert or replace of it, or a push of items that alone exceed it); it
    /// was refused before anything was sent.
    #[error(
        "the `{collection}` document with _id `{id}` would be at least {size} bytes as \
         BSON, over the limit of {limit} bytes (16 MiB); its largest field is `{field}` \
         ({field_size} bytes): move it to its own collection or bound it; nothing was sent"
    )]
    TooLarge {
        /// Collection name.
        collection: &'static str,
        /// The document's `_id` as text: a string as it is, an `ObjectId` in
        /// hex, any other value as relaxed extended JSON.
        id: String,
        /// Its size as BSON, in bytes; for a push, the size of a document
        /// holding only `_id` and the pushed items, which the document would
        /// at least reach.
        size: usize,
        /// The limit, in bytes.
        limit: usize,
        /// Stored name of its largest top-level field.
        field: String,
        /// That field's size as BSON (name and type byte included), in bytes.
        field_size: usize,
    },
}

/// "field `f`" and `then`, or nothing.
fn field_prefix(field: Option<&str>, then: &str) -> String {
    match field {
        Some(f) => format!("field `{f}`{then}"),
        None => String::new(),
    }
}

/// What the deserializer says went wrong: bson's message alone (the error
/// names the field on its own), or the kind of error when bson gave none.
fn deserialize_reason(err: &bson::error::Error) -> String {
    match err.message.as_deref() {
        Some(message) if !message.is_empty() => message.to_owned(),
        _ => err.kind.to_string(),
    }
}

/// Why a value could not be serialized, without the value.
fn serialize_reason(err: &bson::error::Error) -> String {
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

fn rules_text(rules: &[String]) -> String {
    if rules.is_empty() {
        "the server named no rule".to_owned()
    } else {
        format!("not satisfied: {}", rules.join("; "))
    }
}

mod driver;
mod insert_many;
mod server;

pub use driver::DriverError;
pub use insert_many::{FailedInsert, InsertManyFailure};
pub(crate) use server::DriverErrorExt;

impl From<mongodb::error::Error> for Error {
    fn from(err: mongodb::error::Error) -> Self {
        Error::Driver(DriverError(err))
    }
}
pub use server::{code, label};

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

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
            Error::SetupRefused { reason, .. } => reason.code(),
            Error::WriteRefused { code, .. } => Some(*code),
            Error::InsertMany(failure) => failure.failed.first().and_then(|f| f.reason.code()),
            _ => None,
        }
    }
}

/// The fields of a query refused by the index guard, by how it tests them
/// (see [`Error::Unindexed`]).
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

fn unindexed_message(model: &str, query: &QueryFields, index: Option<&str>) -> String {
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

fn setup_refused_message(collection: &str, step: &str, reason: &Error, done: &[String]) -> String {
    let why = match reason {
        Error::DuplicateKey { .. } => "code 11000 (DuplicateKey): stored documents share a key \
                                       of this unique index; make their keys unique first"
            .to_owned(),
        other => {
            let why = other.to_string();
            match why.strip_prefix("the server refused the command: ") {
                Some(rest) => rest.to_owned(),
                None => why,
            }
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

/// The model an id field points at, by its stored name: `recipeId`,
/// `recipe_id` and `recipe` give `Recipe`.
fn parent_of(id: &str) -> String {
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

fn clash_message(collection: &str, first: &str, second: &str) -> String {
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

fn rejects_existing_message(collection: &str, count: u64, ids: &[String]) -> String {
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
    format!(
        "{count} existing document{s} of `{collection}` {fail} the model's validator (_id \
         {}{more}): once it is applied, every write to {them} would be refused (code 121); \
         fix {them} first (`Schema::plan` counts them), or set `SyncOptions::on_violations` \
         to `OnViolations::ValidateModerate` (validationLevel \"moderate\": {they} \
         writable, unchecked) or `OnViolations::Apply`; nothing was changed",
        ids.join(", ")
    )
}

fn unsupported_message(models: &[&'static str]) -> String {
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
fn unreachable_message(hosts: &str, reason: &str) -> String {
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
fn server_error_in(message: &str) -> Option<&str> {
    let (_, rest) = message.split_once("Error: ")?;
    let rest = rest.strip_prefix("Kind: ").unwrap_or(rest);
    let end = rest.find([',', '}']).unwrap_or(rest.len());
    let cause = rest[..end].trim();
    (!cause.is_empty()).then_some(cause)
}
