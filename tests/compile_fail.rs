//! One compile-fail case per rule of the derive, each with the exact
//! message the user sees. Refresh with
//! `TRYBUILD=overwrite cargo test --test compile_fail`, then read every
//! `.stderr` before committing it.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*/*.rs");
}
