//! Bringing a database to the models: the set of models ([`schema`]), what
//! must change ([`plan`]), applying it ([`sync`]), sharded clusters
//! (`cluster`) and the models drawn as a diagram ([`diagram`]).

pub(crate) mod apply;
pub(crate) mod cluster;
pub(crate) mod diagram;
pub(crate) mod plan;
pub(crate) mod read;
pub(crate) mod schema;
pub(crate) mod step;
pub(crate) mod sync;
pub use apply::{OnViolations, SyncOptions, SyncReport};
