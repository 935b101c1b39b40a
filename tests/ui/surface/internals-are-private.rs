// The plan's comparison, the index naming and the validator's building
// blocks are internals: a user reaches the plan through `Schema::plan`, and
// the generated code reaches the building blocks through `__private`.
use schema_core::index::default_name;
use schema_core::{diff_indexes, normalize_doc, same_validator};
use schema_core::validator::object_schema;

fn main() {
    // The retry count belongs to each helper (`Repo::retries`,
    // `Links::retries`), not to the process.
    let _ = schema_core::retries();
}
