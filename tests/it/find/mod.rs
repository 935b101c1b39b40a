//! `Repo::find`: the builder (keyset pages, streams, projections) and the
//! memory a stream holds.

mod builder;
mod stream_memory;
