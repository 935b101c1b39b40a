//! The `$jsonSchema` validator setup installs: what it accepts and refuses
//! on the server, closed levels, enums, the numbers an older program stored
//! as another BSON type, the escape hatch, tightening on a running system,
//! and the depth guard of its construction.

mod accepts_stored_types;
mod closed;
mod depth_guard;
mod enums;
mod numbers;
mod tightening;
mod unbounded_escape_hatch;
