//! What the rules' unit tests share: parse a derive input written with
//! `syn::parse_quote!`, run one rule on it, and read what it reported.

use crate::ast::{Derive, Input};
use crate::ctxt::Ctxt;

/// The model of `input` derived as `derive` and the messages `rule`
/// reported on it, in order. Parsing the input must report nothing, so that
/// every message is the rule's.
pub(super) fn run<'a>(
    derive: Derive,
    input: &'a syn::DeriveInput,
    rule: fn(&Ctxt, &Input),
) -> (Input<'a>, Vec<String>) {
    let parse = Ctxt::new();
    let model = Input::from_syn(&parse, input, derive);
    assert_eq!(parse.messages(), Vec::<String>::new(), "the input parses");
    let cx = Ctxt::new();
    rule(&cx, &model);
    (model, cx.messages())
}

/// The messages `rule` reports on `input` derived as `derive`.
pub(super) fn messages(
    derive: Derive,
    input: &syn::DeriveInput,
    rule: fn(&Ctxt, &Input),
) -> Vec<String> {
    run(derive, input, rule).1
}

/// Asserts that `messages` is one message containing `expected`.
#[track_caller]
pub(super) fn assert_one(messages: &[String], expected: &str) {
    assert!(
        matches!(messages, [only] if only.contains(expected)),
        "expected one message containing {expected:?}, got {messages:#?}"
    );
}
