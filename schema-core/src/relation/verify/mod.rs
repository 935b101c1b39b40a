//! Every model's links and copies checked at once:
//! [`Schema::verify`](crate::Schema::verify) runs, for each
//! `#[many_to_many]` field of the models it holds, what
//! [`Links::verify`](crate::Links::verify) runs (a two-sided link once, from
//! the side named first), and for each model with `#[copy]` fields what
//! [`Copies::verify`](crate::relation::Copies::verify) runs. It writes
//! nothing. [`Schema::repair`](crate::Schema::repair) fixes what it finds in
//! the links (the schema command's `repair`).
//!
//! Each check reads its collections one after the other, outside any
//! transaction: a link or a copy written meanwhile may be reported. Run it
//! while writers are idle, or use `Links::verify` in a session for one
//! link read in a transaction.
//!
//! ```no_run
//! # use schema_core::prelude::*;
//! # use schema_core::Schema;
//! # use serde::{Deserialize, Serialize};
//! # #[derive(Document, Serialize, Deserialize)]
//! # #[serde(rename_all = "camelCase")]
//! # #[document(collection = "students")]
//! # struct Student {
//! #     #[serde(rename = "_id")]
//! #     id: String,
//! #     #[many_to_many(two_sided, to = Course, inverse = student_ids, max = 50)]
//! #     course_ids: Vec<String>,
//! # }
//! # #[derive(Document, Serialize, Deserialize)]
//! # #[serde(rename_all = "camelCase")]
//! # #[document(collection = "courses")]
//! # struct Course {
//! #     #[serde(rename = "_id")]
//! #     id: String,
//! #     #[many_to_many(two_sided, to = Student, inverse = course_ids, max = 500)]
//! #     student_ids: Vec<String>,
//! # }
//! # async fn demo(db: mongodb::Database) -> schema_core::Result<()> {
//! let schema = Schema::new().with::<Student>().with::<Course>();
//! let checked = schema.verify(&db).await?;
//! if !checked.is_consistent() {
//!     eprintln!("{checked}");
//! }
//! # Ok(())
//! # }
//! ```

mod check;
mod clear;
mod links;
mod repair;

pub use check::{CopyCheck, LinkCheck, SchemaCheck};
pub use clear::ClearCheck;
pub use repair::{LinkChange, LinkRepair, RemovedBecause, RepairOptions, SchemaRepair};
