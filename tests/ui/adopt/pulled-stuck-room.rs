// The models `schema pull` writes for seed 000's stuck room (the golden
// file of `tests/it/adopt/pull/`): the room's messages look unbounded, so
// they get no bound, and the model does not compile until the user bounds
// them or moves them out.
include!("../../it/adopt/pulled/stuck_room.rs");

fn main() {}
