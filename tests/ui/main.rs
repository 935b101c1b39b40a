//! One compile-fail case per rule of the derive, each with the exact
//! message the user sees: every `tests/ui/<rule family>/<case>.rs` beside
//! its `.stderr` (this file is no case: the glob takes files one folder
//! down). Refresh with `TRYBUILD=overwrite cargo test --test ui`, then read
//! every `.stderr` before committing it.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*/*.rs");
}
