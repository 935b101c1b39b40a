//! The searches that only an index of their own kind serves: `$text` (the
//! collection's text index) and the geo operators (a 2dsphere index on
//! their field). The search finds the documents and the branch's other
//! conditions are checked on them; neither orders by anything a sort could
//! name (a text index by its score, `$near` by distance), so a sort beside
//! one is refused.

use super::branch::{Branch, Kind};
use crate::error::{Error, QueryFields};
use crate::model::index::Direction;
use crate::model::Document;

/// A branch's search.
#[derive(Clone, Copy)]
pub(super) enum Search<'b> {
    /// `$text`.
    Text,
    /// A geo condition on this path.
    Geo(&'b str),
}

impl<'b> Search<'b> {
    /// The search `branch` holds, if any.
    pub(super) fn of(branch: &'b Branch) -> Option<Search<'b>> {
        if branch.text {
            return Some(Search::Text);
        }
        branch
            .fields
            .iter()
            .find(|f| f.kind == Kind::Geo)
            .map(|f| Search::Geo(f.path.as_ref()))
    }

    /// Why a sort beside the search is refused.
    fn sort_reason(self) -> String {
        match self {
            Search::Text => {
                "a sort beside `$text` (a text index orders by nothing but its score)".to_owned()
            }
            Search::Geo(path) => {
                format!("a sort beside the geo condition on `{path}` (`$near` orders by distance)")
            }
        }
    }
}

/// [`Error::Unindexed`] for a branch whose search no index serves. A geo
/// search names the attribute that declares its index (unless something
/// else in the branch, a sort or a blocker, no index would serve); a text
/// search says what to declare, since the fields it searches are the
/// model's choice.
pub(super) fn search_refusal<M: Document>(
    search: Search<'_>,
    branch: &Branch,
    sort: &[(String, Direction)],
) -> Error {
    let mut unindexable = branch.blockers.clone();
    let (mut index, mut range) = (None, Vec::new());
    match search {
        Search::Text if sort.is_empty() => unindexable.push(
            "`$text` without a text index: declare one on the fields it searches, \
             `#[document(index(keys(title = \"text\", body = \"text\")))]`"
                .to_owned(),
        ),
        Search::Text => unindexable.push(search.sort_reason()),
        Search::Geo(path) => {
            if !sort.is_empty() {
                unindexable.push(search.sort_reason());
            }
            index = unindexable
                .is_empty()
                .then(|| format!("#[document(index(keys({path:?} = \"2dsphere\")))]"));
            range.push(path.to_owned());
        }
    }
    Error::Unindexed {
        model: M::NAME,
        collection: M::COLLECTION,
        query: Box::new(QueryFields {
            equality: Vec::new(),
            sort: sort.iter().map(|(k, _)| k.clone()).collect(),
            range,
            unindexable,
            ids: Vec::new(),
        }),
        index,
    }
}
