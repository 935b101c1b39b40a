//! Regressions found in review: validator vs what serde stores, bounded
//! writes to `Option` arrays stored as null, keyset paging over a sort key
//! that some children lack.

mod support;

use bson::doc;
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
enum Status {
    Draft,
    Live,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "things")]
struct Thing {
    #[serde(rename = "_id")]
    id: String,
    status: Option<Status>,
    when: std::time::SystemTime,
    uuid: bson::Uuid,
    small: u8,
    tiny: i8,
    mid: u32,
    big: u64,
    size: usize,
    letter: char,
    #[embed(max = 3)]
    labels: Option<Vec<String>>,
}

fn thing(id: &str) -> Thing {
    Thing {
        id: id.into(),
        status: None,
        when: std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(5),
        uuid: bson::Uuid::new(),
        small: 200,
        tiny: -3,
        mid: 4_000_000_000,
        big: 9,
        size: 7,
        letter: 'x',
        labels: None,
    }
}

#[tokio::test]
async fn the_validator_accepts_what_the_framework_writes() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "rr_validator").await;
    Schema::new().with::<Thing>().sync(&db).await.unwrap();
    let things = Repo::<Thing>::new(&db);
    things.insert(&thing("a")).await.unwrap();
    let mut b = thing("b");
    b.status = Some(Status::Live);
    b.labels = Some(vec!["x".into()]);
    things.insert(&b).await.unwrap();
    assert_eq!(
        things.get(&"a".to_owned()).await.unwrap(),
        Some(thing_a_like(&things).await)
    );
}

async fn thing_a_like(things: &Repo<Thing>) -> Thing {
    things.get(&"a".to_owned()).await.unwrap().unwrap()
}

#[tokio::test]
async fn push_and_pull_on_an_option_array_stored_as_null() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "rr_opt_push").await;
    Schema::new().with::<Thing>().sync(&db).await.unwrap();
    let things = Repo::<Thing>::new(&db);
    things.insert(&thing("a")).await.unwrap();
    let labels = things.embed(Thing::FIELDS.labels);
    let id = "a".to_owned();
    labels.pull(&id, &"x".to_owned()).await.unwrap();
    labels.push(&id, &"x".to_owned()).await.unwrap();
    labels
        .push_many(&id, &["y".to_owned(), "z".to_owned()])
        .await
        .unwrap();
    let err = labels.push(&id, &"w".to_owned()).await.unwrap_err();
    assert!(matches!(err, Error::EmbedFull { max: 3, .. }), "{err:?}");
    let stored = things.get(&id).await.unwrap().unwrap();
    assert_eq!(
        stored.labels,
        Some(vec!["x".into(), "y".into(), "z".into()])
    );
}

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "rooms")]
struct Room {
    #[serde(rename = "_id")]
    id: String,
    #[embed(max = 2, keep = "newest", history = Message)]
    recent: Option<Vec<i32>>,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "messages")]
struct Message {
    #[serde(rename = "_id")]
    id: i32,
}

#[tokio::test]
async fn push_keeping_on_an_option_array_stored_as_null() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "rr_opt_keep").await;
    Schema::new()
        .with::<Room>()
        .with::<Message>()
        .sync(&db)
        .await
        .unwrap();
    let rooms = Repo::<Room>::new(&db);
    let id = "r".to_owned();
    rooms
        .insert(&Room {
            id: id.clone(),
            recent: None,
        })
        .await
        .unwrap();
    let recent = rooms.embed(Room::FIELDS.recent);
    for n in 0..3 {
        recent
            .push_keeping(&id, &n, &Message { id: n })
            .await
            .unwrap();
    }
    let stored = rooms.get(&id).await.unwrap().unwrap();
    assert_eq!(stored.recent, Some(vec![1, 2]));
    let err = recent
        .push_keeping(&"nope".to_owned(), &9, &Message { id: 9 })
        .await
        .unwrap_err();
    assert!(matches!(err, Error::NotFound { .. }), "{err:?}");
    let err = recent.pull(&"nope".to_owned(), &1).await.unwrap_err();
    assert!(matches!(err, Error::NotFound { .. }), "{err:?}");
}

#[derive(Document, Serialize, Deserialize, Debug, Clone)]
#[document(collection = "notes")]
struct Note {
    #[serde(rename = "_id")]
    id: i32,
    #[reference(index, sort(at = desc))]
    owner: String,
    at: Option<i32>,
}

async fn all_pages(children: schema_core::relation::Children<'_, Note, String, ()>) -> Vec<i32> {
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
    let db = support::fresh_db(&client, "rr_null_sort").await;
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
