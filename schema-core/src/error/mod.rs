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
        "{}",
        index_conflict_message(collection, server, wanted, Wording::Library)
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
    #[error("{}", setup_refused_message(collection, step, matches!(**reason, Error::DuplicateKey { .. }), reason.to_string(), done))]
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
    #[error("{}", rejects_existing_message(collection, *count, ids, Wording::Library))]
    ValidatorRejectsExisting {
        /// Collection name.
        collection: String,
        /// How many existing documents fail the new validator.
        count: u64,
        /// The first of their `_id`s, in `_id` order, as text: a string as it
        /// is, an `ObjectId` in hex, any other value as relaxed extended JSON.
        ids: Vec<String>,
    },
    /// The database holds no collection to read: it does not exist (a
    /// misspelled name, say), or it has none; refused before an audit or a
    /// pull reports nothing as if all were well.
    #[error("{}", no_collections_message(database, existing))]
    NoCollections {
        /// The database asked for.
        database: String,
        /// The databases the server lists (`admin`, `config` and `local`
        /// left out), by name; empty when it lists none to this user.
        existing: Vec<String>,
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
    #[error("{}", missing_index_message(collection, index, Wording::Library))]
    MissingIndex {
        /// Collection name.
        collection: &'static str,
        /// The index's key document.
        index: String,
    },
    /// No index of the model serves the query (see the index guard's rule in
    /// `query`); it was refused before anything was sent.
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
    /// A typed change stream yielded an error or stopped (see [`ChangeError`]).
    #[error("{0}")]
    Change(Box<ChangeError>),
    /// A named [`Consumer`](crate::Consumer) (or a [`CopyFollower`](crate::CopyFollower))
    /// stopped with `source`: its handler's, a transaction's or its
    /// stream's error; its position is where its last change left it.
    #[error("consumer `{name}` stopped: {source}")]
    Consumer {
        /// The consumer's name (its document in `schema_consumers`).
        name: String,
        /// Why it stopped.
        source: Box<Error>,
    },
    /// An aggregation refused before sending anything: a group reading a
    /// path through an array not unwound, or whose rows' arrays could hold
    /// more than 16 MiB (`reason` has the arithmetic; the guard's refusals
    /// are [`Error::Unindexed`]).
    #[error("aggregation on `{collection}` refused, nothing was sent: {reason}")]
    AggregateRefused {
        /// The collection the pipeline runs on.
        collection: &'static str,
        /// Why, and what to change.
        reason: String,
    },
    /// Encrypting, decrypting or keeping a data key failed (the `encryption`
    /// feature); the message names the model, field and key, never a value.
    #[error("cannot {action} {}with the data key `{key}`: {reason}", encryption_subject(*model, field.as_deref()))]
    Encryption {
        /// What was attempted: `encrypt`, `decrypt`, `create`, `read`.
        action: &'static str,
        /// The model's Rust name, when a model's field was concerned.
        model: Option<&'static str>,
        /// The field's stored name, when known.
        field: Option<String>,
        /// The data key's alt name, or its id when only a ciphertext names it.
        key: String,
        /// libmongocrypt's account, or what to do.
        reason: String,
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

mod change;
mod driver;
mod insert_many;
mod message;
mod server;

pub use change::{ChangeError, LostBecause};
pub use driver::DriverError;
pub use insert_many::{FailedInsert, InsertManyFailure};
pub use message::QueryFields;
use message::{
    clash_message, deserialize_reason, encryption_subject, field_prefix, no_collections_message,
    rules_text, serialize_reason, setup_refused_message, unindexed_message, unreachable_message,
    unsupported_message,
};
pub(crate) use message::{id_text, raw_id};
pub(crate) use message::{
    index_conflict_message, missing_index_message, rejects_existing_message, Wording,
};
pub(crate) use server::DriverErrorExt;

pub use server::{code, label};

/// `Result` with this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
