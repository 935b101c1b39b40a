//! The plan: what setup would change on the server to make it match the
//! models, and the drift it found. Computing a plan only reads.
//!
//! A validator that would change is checked against the data first: the
//! plan counts the existing documents that fail the new one (a `$nor` of the
//! new `$jsonSchema` as a query) and names the first few by `_id`, so that
//! tightening a rule (a `max` lowered from 10 to 5 while documents hold 8
//! items) is seen before it makes every later write to those documents fail
//! with code 121. Setup refuses such a change unless told how
//! ([`OnViolations`](crate::OnViolations)).
//!
//! Index comparison is normalized so that an index setup created is never
//! reported as drifted: key order is significant, numeric types are not
//! (`1`, `1i64`, `1.0` are one direction), and an option left at its default
//! (`unique: false`, `sparse: false`) equals its absence.

use std::fmt;

use crate::error::Wording;
pub use crate::model::index::server::ServerIndex;
use crate::model::index::IndexSpec;
pub(crate) use crate::setup::step::{Step, Unsharded, VersionCount};

/// What setup would do, in order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    /// The steps.
    pub steps: Vec<Step>,
    /// The schema's delete policies (see
    /// `delete_policy`), printed after the steps.
    pub policies: crate::model::delete_policy::PolicyGraph,
    /// The collections whose models declare a shard key, left unsharded
    /// because the server is not a mongos (see `shard`).
    /// Not steps: a plan with only these is in sync.
    pub unsharded: Vec<Unsharded>,
    /// The documents of each versioned model's collection per schema
    /// version (see `versions`), counted when the plan
    /// was made. Not steps: a migration's progress, before and after.
    pub versions: Vec<VersionCount>,
}

impl Plan {
    /// Nothing to do and no drift.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// The steps that are drift.
    pub fn drift(&self) -> impl Iterator<Item = &Step> {
        self.steps.iter().filter(|a| a.is_drift())
    }
}

impl Plan {
    /// The notes that are not steps, one line each: the unsharded
    /// collections, then the versioned models' documents per version.
    fn fmt_notes(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for unsharded in &self.unsharded {
            writeln!(f, "not sharded: {unsharded}")?;
        }
        for count in &self.versions {
            writeln!(f, "versions: {count}")?;
        }
        Ok(())
    }

    /// The delete policies, one line each under a heading (nothing when
    /// there are none).
    fn fmt_policies(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.policies.policies().is_empty() {
            return Ok(());
        }
        writeln!(f, "delete policies (parent -> child.reference: policy):")?;
        for policy in self.policies.policies() {
            writeln!(f, "  {policy}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.fmt_in(f, Wording::Library)
    }
}

/// A plan shown with its advice in the schema command's words (see
/// [`Plan::in_command_words`]).
#[cfg(feature = "cli")]
pub(crate) struct InCommandWords<'a>(&'a Plan);

#[cfg(feature = "cli")]
impl fmt::Display for InCommandWords<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt_in(f, Wording::Command)
    }
}

impl Plan {
    /// The plan as the schema command prints it: its advice names the
    /// command's flags (`--on-violations`), not the library's options.
    #[cfg(feature = "cli")]
    pub(crate) fn in_command_words(&self) -> InCommandWords<'_> {
        InCommandWords(self)
    }

    fn fmt_in(&self, f: &mut fmt::Formatter<'_>, wording: Wording) -> fmt::Result {
        if self.steps.is_empty() {
            writeln!(f, "in sync: nothing to do")?;
            self.fmt_notes(f)?;
            return self.fmt_policies(f);
        }
        let rows: Vec<[String; 3]> = self
            .steps
            .iter()
            .map(|a| {
                let detail = a.detail_in(wording);
                [a.collection().to_owned(), a.verb().to_owned(), detail]
            })
            .collect();
        let header = [
            "collection".to_owned(),
            "action".to_owned(),
            "detail".to_owned(),
        ];
        let w0 = rows
            .iter()
            .chain([&header])
            .map(|r| r[0].len())
            .max()
            .unwrap_or(0);
        let w1 = rows
            .iter()
            .chain([&header])
            .map(|r| r[1].len())
            .max()
            .unwrap_or(0);
        for row in [&header].into_iter().chain(&rows) {
            writeln!(f, "{:w0$}  {:w1$}  {}", row[0], row[1], row[2])?;
        }
        self.fmt_notes(f)?;
        self.fmt_policies(f)
    }
}

/// Compares one collection's declared indexes with the server's, adding the
/// create, conflict and extra steps to `actions`.
pub(crate) fn diff_indexes(
    collection: &str,
    wanted: &[IndexSpec],
    server: &[ServerIndex],
    actions: &mut Vec<Step>,
) {
    let mut matched = vec![false; server.len()];
    for spec in wanted {
        let want = ServerIndex::from_spec(spec);
        let by_name = server.iter().position(|s| s.name == want.name);
        let by_keys = server.iter().position(|s| s.same_keys(&want));
        match by_name.or(by_keys) {
            Some(i) => {
                matched[i] = true;
                let found = &server[i];
                if found.name != want.name || !found.same_definition(&want) {
                    actions.push(Step::ConflictingIndex {
                        collection: collection.to_owned(),
                        server: Box::new(found.clone()),
                        wanted: Box::new(spec.clone()),
                    });
                } else if found.hidden != want.hidden {
                    actions.push(Step::IndexVisibility {
                        collection: collection.to_owned(),
                        name: found.name.clone(),
                        hidden: want.hidden,
                    });
                }
            }
            None => actions.push(Step::CreateIndex {
                collection: collection.to_owned(),
                spec: spec.clone(),
            }),
        }
    }
    for (index, used) in server.iter().zip(matched) {
        if !used && index.name != "_id_" {
            actions.push(Step::ExtraIndex {
                collection: collection.to_owned(),
                index: index.clone(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::index::{Direction, IndexOrigin};
    use crate::setup::step::Violators;
    use bson::{doc, Bson, Document};

    fn spec() -> IndexSpec {
        IndexSpec::new(
            vec![
                ("authorId".into(), Direction::Asc),
                ("at".into(), Direction::Desc),
            ],
            IndexOrigin::Reference("author_id"),
        )
    }

    fn on_server(keys: Document, name: &str) -> ServerIndex {
        ServerIndex {
            name: name.into(),
            keys,
            unique: false,
            sparse: false,
            expire_after: None,
            partial_filter: None,
            hidden: false,
            collation: None,
            text: None,
        }
    }

    #[test]
    fn a_visibility_change_is_one_step_in_place() {
        let mut spec = spec();
        spec.hidden = true;
        let server = [on_server(spec.key_document(), &spec.name)];
        let mut actions = Vec::new();
        diff_indexes("posts", &[spec], &server, &mut actions);
        assert!(matches!(
            &actions[..],
            [Step::IndexVisibility { hidden: true, .. }]
        ));
        assert!(!actions[0].is_drift());
    }

    #[test]
    fn violators_show_the_count_and_the_sampled_ids() {
        let one = Violators {
            count: 1,
            ids: vec![Bson::from("c1")],
        };
        assert_eq!(one.to_string(), "1 existing document fails it (_id c1)");
        let many = Violators {
            count: 7,
            ids: vec![Bson::from(3), Bson::from("c1")],
        };
        assert_eq!(
            many.to_string(),
            "7 existing documents fail it (_id 3, c1, ...)"
        );
        assert!(Violators::default().is_empty());
    }

    #[test]
    fn numeric_types_and_defaults_do_not_drift() {
        let server = [
            on_server(doc! { "_id": 1 }, "_id_"),
            on_server(doc! { "authorId": 1.0, "at": -1_i64 }, "authorId_1_at_-1"),
        ];
        let mut actions = Vec::new();
        diff_indexes("posts", &[spec()], &server, &mut actions);
        assert!(actions.is_empty(), "{actions:?}");
    }

    #[test]
    fn key_order_is_significant() {
        let server = [on_server(
            doc! { "at": -1, "authorId": 1 },
            "authorId_1_at_-1",
        )];
        let mut actions = Vec::new();
        diff_indexes("posts", &[spec()], &server, &mut actions);
        assert!(matches!(actions[..], [Step::ConflictingIndex { .. }]));
    }

    #[test]
    fn extra_and_missing_are_reported() {
        let server = [on_server(doc! { "title": 1 }, "title_1")];
        let mut actions = Vec::new();
        diff_indexes("posts", &[spec()], &server, &mut actions);
        assert!(matches!(
            actions[..],
            [Step::CreateIndex { .. }, Step::ExtraIndex { .. }]
        ));
        let plan = Plan {
            steps: actions,
            ..Plan::default()
        };
        let table = plan.to_string();
        assert!(table.contains("create index") && table.contains("drift: extra index"));
    }
}
