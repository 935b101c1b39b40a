//! The compile-time rules of `#[encrypt(...)]`, one case each, built with
//! the `encryption` feature (`tests/encryption/ui/<rule>.rs` beside its
//! `.stderr`; refresh with `TRYBUILD=overwrite cargo test --features
//! encryption --test encryption -- ui`). The one case without the feature
//! is `tests/ui/encrypt/feature-off.rs`, in the default build's `ui` test.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/encryption/ui/*.rs");
}
