//! Typed aggregations against the real server: rows equal, row for row, to
//! hand-written pipelines sent through the raw driver on the seeds' data;
//! the index guard on the leading stages (refusals with nothing sent, and
//! an explain per guarded shape); groups refused before sending; a
//! view's `project` and a reference's `lookup`.

mod catalog;
mod groups;
mod memory;
mod seeds;
mod versions;
mod views;
mod writes;
