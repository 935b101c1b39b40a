//! The typed filter: only the orders whose status became `shipped`.

use schema_core::prelude::*;
use schema_core::Change;

use super::{event, order, Order};
use crate::support;

#[tokio::test]
async fn a_typed_filter_picks_the_changes_whose_fields_match() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "watch_filter").await;
    let orders = Repo::<Order>::new(&db);
    let f = Order::FIELDS;
    let shipped = "shipped".to_owned();
    let mut changes = orders.watch().filter(f.status.eq(&shipped)).await.unwrap();
    let mut big = orders
        .watch()
        .filter(f.status.eq(&shipped))
        .filter(f.items.gte(&10))
        .await
        .unwrap();

    orders.insert(&order("a", "new", 1)).await.unwrap(); // no
    orders.insert(&order("b", "shipped", 1)).await.unwrap(); // yes
    orders
        .update(&"a".to_owned(), f.status.set("shipped"))
        .await
        .unwrap(); // yes: it became shipped
    orders
        .update(&"b".to_owned(), f.items.set(&12))
        .await
        .unwrap(); // no: status not set
    orders.replace(&order("a", "shipped", 20)).await.unwrap(); // yes (both)
    orders.delete(&"b".to_owned()).await.unwrap(); // no: a delete has no fields
    orders.insert(&order("end", "shipped", 10)).await.unwrap(); // yes (both)

    let mut seen = Vec::new();
    loop {
        let change = event(&mut changes).await.change;
        let what = match change {
            Change::Insert(o) => format!("insert {}", o.id),
            Change::Update { id, changed, .. } => format!("update {id} {changed}"),
            Change::Replace(o) => format!("replace {}", o.id),
            other => format!("{other:?}"),
        };
        let end = what == "insert end";
        seen.push(what);
        if end {
            break;
        }
    }
    assert_eq!(
        seen,
        [
            "insert b",
            r#"update a { "status": "shipped" }"#,
            "replace a",
            "insert end"
        ]
    );
    // Both conditions: the replace and the last insert only.
    match event(&mut big).await.change {
        Change::Replace(o) => assert_eq!(o, order("a", "shipped", 20)),
        other => panic!("{other:?}"),
    }
    match event(&mut big).await.change {
        Change::Insert(o) => assert_eq!(o.id, "end"),
        other => panic!("{other:?}"),
    }
}
