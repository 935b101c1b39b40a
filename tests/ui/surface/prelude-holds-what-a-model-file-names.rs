// The prelude holds what a model file names (the derives and their traits,
// field constants, `Repo`, `Links`, `Through`); setup, errors, paging and
// transactions are imported by name where they are used.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 10)]
    tags: Vec<String>,
}

fn model_file(_: Repo<Post>, _: EmbedField<Post, Vec<String>>, _: Field<Post, String>) {}

fn setup(_: Schema, _: SyncOptions, _: OnViolations, _: Plan) {}

fn errors(_: Error, _: RetryPolicy, _: Page<()>, _: Cursor, _: PlanSummary) {}

fn indexes(_: IndexSpec, _: Direction, _: Relation) {}

fn main() {}
