//! Delete policies on references (`#[reference(index, to = Parent,
//! on_delete = "...")]`), run by `Schema::delete`: restrict, cascade through
//! two levels, set_null and unset, on families of 10,000 children; one
//! transaction by default (all or nothing under a failpoint), batched and
//! resumable for families too large for one.

use crate::support;

use bson::{doc, Document as BsonDocument};
use schema_core::prelude::*;
use schema_core::{Error, Schema};
use schema_testkit::failpoint::FAILPOINT;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "authors")]
struct Author {
    #[serde(rename = "_id")]
    id: String,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[document(collection = "books")]
struct Book {
    #[serde(rename = "_id")]
    id: String,
    #[reference(index, to = Author, on_delete = "cascade")]
    author_id: String,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[document(collection = "chapters")]
struct Chapter {
    #[serde(rename = "_id")]
    id: String,
    #[reference(index, to = Book, on_delete = "cascade")]
    book_id: String,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[document(collection = "contracts")]
struct Contract {
    #[serde(rename = "_id")]
    id: String,
    #[reference(index, to = Author, on_delete = "restrict")]
    author_id: String,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[document(collection = "fans", version, timestamps)]
struct Fan {
    #[serde(rename = "_id")]
    id: String,
    #[reference(index, to = Author, on_delete = "set_null")]
    favourite: Option<String>,
    version: i64,
    created_at: bson::DateTime,
    updated_at: bson::DateTime,
}

#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[document(collection = "followers")]
struct Follower {
    #[serde(rename = "_id")]
    id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[reference(index, to = Author, on_delete = "unset")]
    follows: Option<String>,
}

const FAMILY: usize = 10_000;

fn schema() -> Schema {
    Schema::new()
        .with::<Author>()
        .with::<Book>()
        .with::<Chapter>()
        .with::<Fan>()
        .with::<Follower>()
        .with::<Contract>()
}

fn author(id: &str) -> Author {
    Author { id: id.to_owned() }
}

/// `ada` with 10,000 books of one chapter each (20,000 children over two
/// levels), `bob` with 3 books of one chapter.
async fn seed_books(db: &mongodb::Database) {
    let authors = Repo::<Author>::new(db);
    authors
        .insert_many(&[author("ada"), author("bob")])
        .await
        .unwrap();
    let books = Repo::<Book>::new(db);
    let chapters = Repo::<Chapter>::new(db);
    let mut all_books = Vec::new();
    let mut all_chapters = Vec::new();
    for (who, n) in [("ada", FAMILY), ("bob", 3)] {
        for i in 0..n {
            let book = format!("{who}_book_{i:05}");
            all_chapters.push(Chapter {
                id: format!("{book}_ch1"),
                book_id: book.clone(),
            });
            all_books.push(Book {
                id: book,
                author_id: who.to_owned(),
            });
        }
    }
    for chunk in all_books.chunks(5000) {
        books.insert_many(chunk).await.unwrap();
    }
    for chunk in all_chapters.chunks(5000) {
        chapters.insert_many(chunk).await.unwrap();
    }
}

async fn count(db: &mongodb::Database, collection: &str, filter: BsonDocument) -> u64 {
    db.collection::<BsonDocument>(collection)
        .count_documents(filter)
        .await
        .unwrap()
}

/// Every chapter left still has its book, every book its author.
async fn no_orphans(db: &mongodb::Database) {
    for (child, field, parent) in [
        ("chapters", "bookId", "books"),
        ("books", "authorId", "authors"),
    ] {
        let orphans: Vec<BsonDocument> = {
            use futures_util::TryStreamExt;
            db.collection::<BsonDocument>(child)
                .aggregate(vec![
                    doc! { "$lookup": { "from": parent, "localField": field, "foreignField": "_id", "as": "p" } },
                    doc! { "$match": { "p": { "$size": 0 } } },
                ])
                .await
                .unwrap()
                .try_collect()
                .await
                .unwrap()
        };
        assert!(orphans.is_empty(), "{} orphaned {child}", orphans.len());
    }
}

#[tokio::test]
async fn cascade_deletes_two_levels_in_one_transaction_and_nothing_else() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "delete_cascade").await;
    let schema = schema();
    schema.sync(&db).await.unwrap();
    seed_books(&db).await;

    let ada = "ada".to_owned();
    let deleted = schema.delete::<Author>(&db, &ada).await.unwrap();
    println!("{deleted}");
    assert!(deleted.parent);
    assert_eq!(deleted.cascaded_from("books"), FAMILY as u64);
    assert_eq!(deleted.cascaded_from("chapters"), FAMILY as u64);
    assert_eq!(count(&db, "authors", doc! {}).await, 1);
    assert_eq!(count(&db, "books", doc! {}).await, 3);
    assert_eq!(count(&db, "chapters", doc! {}).await, 3);
    no_orphans(&db).await;

    // Again: nothing left to do, and the parent is reported not found.
    let again = schema.delete::<Author>(&db, &ada).await.unwrap();
    assert!(!again.parent && again.cascaded_from("books") == 0);
}

#[tokio::test]
async fn a_failure_inside_the_transaction_deletes_nothing() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "delete_rollback").await;
    let schema = schema();
    schema.sync(&db).await.unwrap();
    seed_books(&db).await;

    // The parent's own delete, the last write, fails (a non-transient
    // error: no retry); the 20,000 children deleted before it come back.
    let app = "delete_rollback";
    let _turn = FAILPOINT.lock().await;
    let (failing, failures) =
        support::counting_client_with(|o| o.app_name = Some(app.into())).await;
    let db_failing = failing.database(db.name());
    schema_testkit::failpoint::arm(
        &failing,
        app,
        doc! { "skip": 20, "times": 1 },
        doc! { "failCommands": ["delete"], "errorCode": 2, "appName": app },
    )
    .await;
    let ada = "ada".to_owned();
    let err = schema.delete::<Author>(&db_failing, &ada).await;
    schema_testkit::failpoint::off(&failing).await;
    assert_eq!(failures.failures().len(), 1, "the failpoint fired once");
    assert!(err.is_err(), "{err:?}");
    assert_eq!(count(&db, "authors", doc! {}).await, 2);
    assert_eq!(count(&db, "books", doc! {}).await, FAMILY as u64 + 3);
    assert_eq!(count(&db, "chapters", doc! {}).await, FAMILY as u64 + 3);
}

#[tokio::test]
async fn a_batched_cascade_interrupted_midway_is_completed_by_a_rerun() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "delete_batched").await;
    let schema = schema();
    schema.sync(&db).await.unwrap();
    seed_books(&db).await;

    // Batches of 500: the 7th `delete` command fails (after 3 batches of
    // books and their chapters).
    let app = "delete_batched";
    let _turn = FAILPOINT.lock().await;
    let (failing, _) = support::counting_client_with(|o| o.app_name = Some(app.into())).await;
    let db_failing = failing.database(db.name());
    schema_testkit::failpoint::arm(
        &failing,
        app,
        doc! { "skip": 6, "times": 1 },
        doc! { "failCommands": ["delete"], "errorCode": 2, "appName": app },
    )
    .await;
    let ada = "ada".to_owned();
    let err = schema
        .delete::<Author>(&db_failing, &ada)
        .batched(500)
        .await;
    schema_testkit::failpoint::off(&failing).await;
    assert!(err.is_err(), "{err:?}");
    let books_left = count(&db, "books", doc! { "authorId": "ada" }).await;
    println!("interrupted: {books_left} of ada's books left");
    assert_eq!(books_left, FAMILY as u64 - 3 * 500);
    assert_eq!(
        count(&db, "authors", doc! { "_id": "ada" }).await,
        1,
        "the parent goes last"
    );
    no_orphans(&db).await;

    let deleted = schema
        .delete::<Author>(&db, &ada)
        .batched(500)
        .await
        .unwrap();
    assert!(deleted.parent);
    assert_eq!(deleted.cascaded_from("books"), books_left);
    assert_eq!(count(&db, "books", doc! {}).await, 3, "bob's books stay");
    assert_eq!(count(&db, "chapters", doc! {}).await, 3);
    no_orphans(&db).await;
}

#[tokio::test]
async fn restrict_refuses_with_the_count_and_deletes_nothing() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "delete_restrict").await;
    let schema = schema();
    schema.sync(&db).await.unwrap();
    seed_books(&db).await;
    let contracts: Vec<Contract> = (0..FAMILY)
        .map(|i| Contract {
            id: format!("c{i:05}"),
            author_id: "ada".into(),
        })
        .collect();
    for chunk in contracts.chunks(5000) {
        Repo::<Contract>::new(&db).insert_many(chunk).await.unwrap();
    }

    log.clear();
    let ada = "ada".to_owned();
    let err = schema.delete::<Author>(&db, &ada).await.unwrap_err();
    match &err {
        Error::Restricted {
            parent,
            id,
            collection,
            field,
            count,
        } => {
            assert_eq!((*parent, id.as_str()), ("authors", "ada"));
            assert_eq!(
                (*collection, *field, *count),
                ("contracts", "authorId", FAMILY as u64)
            );
        }
        other => panic!("{other}"),
    }
    println!("{err}");
    let sent = log.take();
    assert!(
        !sent.iter().any(|c| c == "delete" || c == "update"),
        "restrict is checked before any write: {sent:?}"
    );
    assert_eq!(count(&db, "authors", doc! {}).await, 2);
    assert_eq!(count(&db, "books", doc! {}).await, FAMILY as u64 + 3);

    // Bob has no contract: his family goes.
    let bob = "bob".to_owned();
    assert!(schema.delete::<Author>(&db, &bob).await.unwrap().parent);
}

#[tokio::test]
async fn set_null_and_unset_clear_the_references_and_stamp_the_children() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "delete_set_null").await;
    let schema = schema();
    schema.sync(&db).await.unwrap();
    Repo::<Author>::new(&db)
        .insert_many(&[author("ada"), author("bob")])
        .await
        .unwrap();
    let fans: Vec<Fan> = (0..FAMILY)
        .map(|i| Fan {
            id: format!("fan{i:05}"),
            favourite: Some(if i % 2 == 0 { "ada" } else { "bob" }.into()),
            version: 0,
            created_at: bson::DateTime::MIN,
            updated_at: bson::DateTime::MIN,
        })
        .collect();
    let followers: Vec<Follower> = (0..FAMILY)
        .map(|i| Follower {
            id: format!("f{i:05}"),
            follows: Some(if i % 2 == 0 { "ada" } else { "bob" }.into()),
        })
        .collect();
    for chunk in fans.chunks(5000) {
        Repo::<Fan>::new(&db).insert_many(chunk).await.unwrap();
    }
    for chunk in followers.chunks(5000) {
        Repo::<Follower>::new(&db).insert_many(chunk).await.unwrap();
    }

    let ada = "ada".to_owned();
    let deleted = schema.delete::<Author>(&db, &ada).await.unwrap();
    println!("{deleted}");
    let half = FAMILY as u64 / 2;
    assert_eq!(
        deleted.cleared,
        [("fans", "favourite", half), ("followers", "follows", half)]
    );
    assert_eq!(count(&db, "fans", doc! { "favourite": null }).await, half);
    assert_eq!(
        count(&db, "fans", doc! { "favourite": { "$type": "null" } }).await,
        half
    );
    assert_eq!(
        count(&db, "fans", doc! { "favourite": null, "version": 1 }).await,
        half,
        "stamped"
    );
    assert_eq!(
        count(&db, "fans", doc! { "favourite": "bob", "version": 0 }).await,
        half
    );
    assert_eq!(
        count(&db, "followers", doc! { "follows": { "$exists": false } }).await,
        half
    );
    assert_eq!(
        count(&db, "followers", doc! { "follows": "bob" }).await,
        half
    );
    // The cleared children still decode.
    let fan = Repo::<Fan>::new(&db)
        .get(&"fan00000".to_owned())
        .await
        .unwrap()
        .unwrap();
    assert_eq!((fan.favourite, fan.version), (None, 1));
    assert!(fan.updated_at > bson::DateTime::MIN, "updated_at stamped");
    let follower = Repo::<Follower>::new(&db)
        .get(&"f00000".to_owned())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(follower.follows, None);
}

#[tokio::test]
async fn a_delete_without_the_reference_index_is_refused_before_any_write() {
    let (client, log) = support::counting_client().await;
    let db = support::fresh_db(&client, "delete_no_index").await;
    // No sync: the books collection exists without its reference index.
    Repo::<Author>::new(&db)
        .insert(&author("ada"))
        .await
        .unwrap();
    Repo::<Book>::new(&db)
        .insert(&Book {
            id: "b1".into(),
            author_id: "ada".into(),
        })
        .await
        .unwrap();
    log.clear();
    let ada = "ada".to_owned();
    // The schema's delete and the repository's are the same delete.
    let by_schema = schema().delete::<Author>(&db, &ada).await.map(|_| ());
    let by_repo = Repo::<Author>::new(&db).delete(&ada).await.map(|_| ());
    for err in [by_schema.unwrap_err(), by_repo.unwrap_err()] {
        assert!(
            matches!(
                err,
                Error::MissingIndex {
                    collection: "books",
                    ..
                }
            ),
            "{err}"
        );
    }
    assert!(log.take().iter().all(|c| c == "listIndexes"));
    assert_eq!(count(&db, "books", doc! {}).await, 1);
    assert_eq!(count(&db, "authors", doc! {}).await, 1);
}

/// `Repo::delete`, `delete_many` and `find_one_and_delete` run the
/// policies every model declares toward the deleted model's type, as
/// `Schema::delete` does, without a schema: cascades two levels down,
/// clears `set_null` and `unset` references, and refuses on `restrict`
/// with nothing written.
#[tokio::test]
async fn the_repository_delete_runs_every_declared_policy() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "delete_repo_policies").await;
    schema().sync(&db).await.unwrap();
    let authors = Repo::<Author>::new(&db);
    authors
        .insert_many(&[author("cy"), author("dee"), author("eve"), author("fay")])
        .await
        .unwrap();
    let books = Repo::<Book>::new(&db);
    let chapters = Repo::<Chapter>::new(&db);
    for who in ["cy", "eve", "fay"] {
        for i in 0..2 {
            let book = format!("{who}_b{i}");
            books
                .insert(&Book {
                    id: book.clone(),
                    author_id: who.into(),
                })
                .await
                .unwrap();
            chapters
                .insert(&Chapter {
                    id: format!("{book}_ch1"),
                    book_id: book,
                })
                .await
                .unwrap();
        }
    }
    let now = bson::DateTime::now();
    Repo::<Fan>::new(&db)
        .insert(&Fan {
            id: "fan".into(),
            favourite: Some("cy".into()),
            version: 0,
            created_at: now,
            updated_at: now,
        })
        .await
        .unwrap();
    Repo::<Follower>::new(&db)
        .insert(&Follower {
            id: "follower".into(),
            follows: Some("cy".into()),
        })
        .await
        .unwrap();
    Repo::<Contract>::new(&db)
        .insert(&Contract {
            id: "contract".into(),
            author_id: "dee".into(),
        })
        .await
        .unwrap();

    assert!(authors.delete(&"cy".to_owned()).await.unwrap());
    assert_eq!(count(&db, "books", doc! { "authorId": "cy" }).await, 0);
    assert_eq!(
        count(&db, "chapters", doc! { "bookId": { "$regex": "^cy_" } }).await,
        0
    );
    let fan = Repo::<Fan>::new(&db)
        .get(&"fan".to_owned())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(fan.favourite, None);
    let follower = Repo::<Follower>::new(&db)
        .get(&"follower".to_owned())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(follower.follows, None);

    let err = authors.delete(&"dee".to_owned()).await.unwrap_err();
    assert!(matches!(err, Error::Restricted { count: 1, .. }), "{err}");
    assert_eq!(count(&db, "authors", doc! { "_id": "dee" }).await, 1);

    let taken = authors
        .find_one_and_delete(Author::FIELDS.id.eq("eve"))
        .await
        .unwrap();
    assert_eq!(taken, Some(author("eve")));
    assert_eq!(count(&db, "books", doc! { "authorId": "eve" }).await, 0);
    assert_eq!(
        count(&db, "chapters", doc! { "bookId": { "$regex": "^eve_" } }).await,
        0
    );

    let n = authors
        .delete_many(
            Author::FIELDS
                .id
                .is_in(&["fay".to_owned(), "nobody".to_owned()]),
        )
        .await
        .unwrap();
    assert_eq!(n, 1);
    assert_eq!(count(&db, "books", doc! {}).await, 0);
    assert_eq!(count(&db, "chapters", doc! {}).await, 0);
    no_orphans(&db).await;
}

#[tokio::test]
async fn the_plan_prints_the_policy_graph() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "delete_plan").await;
    let schema = schema();
    let graph = schema.policies().unwrap().to_string();
    assert_eq!(
        graph,
        "authors -> books.authorId: cascade\n\
         books -> chapters.bookId: cascade\n\
         authors -> fans.favourite: set_null\n\
         authors -> followers.follows: unset\n\
         authors -> contracts.authorId: restrict\n"
    );
    let plan = schema.plan(&db).await.unwrap().to_string();
    println!("{plan}");
    assert!(plan.contains("delete policies (parent -> child.reference: policy):\n  authors -> books.authorId: cascade\n"));
}

mod cycle {
    use super::*;

    #[derive(Document, Serialize, Deserialize)]
    #[document(collection = "left")]
    pub struct Left {
        #[serde(rename = "_id")]
        id: String,
        #[reference(index, to = Right, on_delete = "cascade")]
        right: String,
    }

    #[derive(Document, Serialize, Deserialize)]
    #[document(collection = "right")]
    pub struct Right {
        #[serde(rename = "_id")]
        id: String,
        #[reference(index, to = Left, on_delete = "cascade")]
        left: String,
    }

    #[derive(Document, Serialize, Deserialize)]
    #[document(collection = "tree")]
    pub struct Node {
        #[serde(rename = "_id")]
        id: String,
        #[reference(index, to = Node, on_delete = "cascade")]
        parent: String,
    }

    #[tokio::test]
    async fn a_cycle_of_cascades_is_refused_when_the_schema_is_checked() {
        let schema = Schema::new().with::<Left>().with::<Right>();
        let err = schema.check().unwrap_err();
        assert!(
            matches!(&err, Error::CascadeCycle { cycle } if cycle == &["right", "left", "right"]),
            "{err}"
        );
        println!("{err}");
        assert!(matches!(
            Schema::new().with::<Node>().check(),
            Err(Error::CascadeCycle { .. })
        ));
        // Refused before anything is sent.
        let (client, log) = support::counting_client().await;
        let db = client.database("delete_cycle");
        log.clear();
        assert!(matches!(
            schema.plan(&db).await,
            Err(Error::CascadeCycle { .. })
        ));
        let id = "x".to_owned();
        assert!(matches!(
            schema.delete::<Left>(&db, &id).await,
            Err(Error::CascadeCycle { .. })
        ));
        assert_eq!(log.count(), 0, "{:?}", log.names());
        // One model alone has no cycle.
        assert!(Schema::new().with::<Left>().check().is_ok());
    }
}

/// A cook, whose favourite dishes are a two-sided link.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[document(collection = "cooks")]
struct Cook {
    #[serde(rename = "_id")]
    id: String,
    #[many_to_many(two_sided, to = Dish, inverse = favorited_by, max = 50)]
    favorite_ids: Vec<String>,
}

/// A dish, deleted with its author, favourited by cooks.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[document(collection = "dishes")]
struct Dish {
    #[serde(rename = "_id")]
    id: String,
    #[reference(index, to = Cook, on_delete = "cascade")]
    author_id: String,
    #[many_to_many(two_sided, to = Cook, inverse = favorite_ids, max = 50)]
    favorited_by: Vec<String>,
}

/// One delete does everything the models declare: deleting a cook pulls
/// their id from every dish they favourited, cascades to their dishes
/// (a model with two-sided links itself), and pulls each deleted dish from
/// every cook who favourited it; a model the schema does not know is
/// refused before anything is sent.
#[tokio::test]
async fn a_delete_pulls_the_two_sided_links_of_every_document_it_deletes() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "policies_links").await;
    let schema = Schema::new().with::<Cook>().with::<Dish>();
    schema.sync(&db).await.unwrap();
    let cooks = Repo::<Cook>::new(&db);
    let dishes = Repo::<Dish>::new(&db);
    let cook = |id: &str| Cook {
        id: id.into(),
        favorite_ids: Vec::new(),
    };
    let dish = |id: &str, author: &str| Dish {
        id: id.into(),
        author_id: author.into(),
        favorited_by: Vec::new(),
    };
    cooks
        .insert_many(&[cook("ada"), cook("bob"), cook("cy")])
        .await
        .unwrap();
    dishes
        .insert_many(&[dish("soup", "bob"), dish("pie", "bob"), dish("stew", "cy")])
        .await
        .unwrap();
    let favourites = Links::new(&db, Cook::FIELDS.favorite_ids);
    for (who, what) in [
        ("ada", "soup"),
        ("ada", "stew"),
        ("bob", "stew"),
        ("cy", "pie"),
        ("cy", "soup"),
    ] {
        favourites
            .link(&who.to_owned(), &what.to_owned())
            .await
            .unwrap();
    }

    // Bob: his two dishes go (cascade), and with them every favourite of
    // them; his own favourite (stew) loses him.
    let deleted = schema.delete::<Cook>(&db, &"bob".to_owned()).await.unwrap();
    assert!(deleted.parent);
    assert_eq!(deleted.cascaded_from("dishes"), 2);
    let ada = cooks.get(&"ada".to_owned()).await.unwrap().unwrap();
    assert_eq!(ada.favorite_ids, ["stew"]);
    let cy = cooks.get(&"cy".to_owned()).await.unwrap().unwrap();
    assert!(cy.favorite_ids.is_empty(), "{:?}", cy.favorite_ids);
    let stew = dishes.get(&"stew".to_owned()).await.unwrap().unwrap();
    assert_eq!(stew.favorited_by, ["ada"]);

    // Ada, who favourited stew: stew no longer names her.
    schema.delete::<Cook>(&db, &"ada".to_owned()).await.unwrap();
    let stew = dishes.get(&"stew".to_owned()).await.unwrap().unwrap();
    assert!(stew.favorited_by.is_empty(), "{:?}", stew.favorited_by);
    // Every link left has both sides.
    let left: Vec<Cook> = cooks.find(Filter::all()).scan().all().await.unwrap();
    for c in &left {
        for d in &c.favorite_ids {
            let d = dishes.get(d).await.unwrap().expect("no dangling favourite");
            assert!(d.favorited_by.contains(&c.id));
        }
    }

    // A schema without the parent's model: refused, nothing sent.
    let err = Schema::new()
        .with::<Dish>()
        .delete::<Cook>(&db, &"cy".to_owned())
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("`Cook` is not in this schema"),
        "{err}"
    );
    assert!(cooks.get(&"cy".to_owned()).await.unwrap().is_some());
}
