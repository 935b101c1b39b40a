//! Keyset paging over a sort key that some children lack (`at: None`,
//! stored as null): every child is reached once in both directions, nulls
//! last newest first and first oldest first, and the page that may reach the
//! nulls still rides the index.

use crate::support;

use schema_core::prelude::*;
use schema_core::Schema;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "notes")]
struct Note {
    #[serde(rename = "_id")]
    id: i32,
    #[reference(index, sort(at = desc))]
    owner: String,
    at: Option<i32>,
}

async fn all_pages(children: schema_core::Children<'_, Note, String, ()>) -> Vec<i32> {
    let mut seen = Vec::new();
    let mut page = children.clone().page().await.unwrap();
    loop {
        seen.extend(page.items.iter().map(|n| n.id));
        match page.next.take() {
            Some(next) => page = children.clone().after(next).page().await.unwrap(),
            None => return seen,
        }
    }
}

#[tokio::test]
async fn paging_reaches_children_whose_sort_key_is_null() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "null_sort_keys").await;
    Schema::new().with::<Note>().sync(&db).await.unwrap();
    let notes = Repo::<Note>::new(&db);
    let owner = "o".to_owned();
    let ats = [Some(3), None, Some(2), None, Some(1), None, Some(2)];
    for (id, at) in ats.into_iter().enumerate() {
        let id = id as i32;
        notes
            .insert(&Note {
                id,
                owner: owner.clone(),
                at,
            })
            .await
            .unwrap();
    }
    // Another owner's children stay out.
    notes
        .insert(&Note {
            id: 100,
            owner: "x".into(),
            at: None,
        })
        .await
        .unwrap();
    for size in 1..=4 {
        let children = notes.children(Note::FIELDS.owner, &owner).page_size(size);
        let newest_first = all_pages(children.clone()).await;
        let oldest_first = all_pages(children.reversed()).await;
        for (order, ids) in [("desc", &newest_first), ("asc", &oldest_first)] {
            let mut sorted = ids.clone();
            sorted.sort();
            assert_eq!(
                sorted,
                [0, 1, 2, 3, 4, 5, 6],
                "{order}, page size {size}: {ids:?}"
            );
        }
        let at = |id: &i32| ats[*id as usize];
        let keys: Vec<_> = newest_first.iter().map(at).collect();
        let mut expected = keys.clone();
        expected.sort_by(|a, b| b.cmp(a));
        assert_eq!(keys, expected, "newest first, nulls last");
        let keys: Vec<_> = oldest_first.iter().map(at).collect();
        let mut expected = keys.clone();
        expected.sort();
        assert_eq!(keys, expected, "oldest first, nulls first");
    }
    // Past a value, the page that may reach the nulls still rides the index.
    let children = notes.children(Note::FIELDS.owner, &owner).page_size(2);
    let next = children.page().await.unwrap().next.unwrap();
    let plan = children.after(next).explain().await.unwrap();
    assert!(!plan.sorts_in_memory(), "{plan}");
    assert_eq!(plan.returned, 2, "{plan}");
}
