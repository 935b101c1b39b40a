//! Every other read path over encrypted fields: keyset pages (with a
//! filter on a deterministic field), a reference's children pages, the
//! joins of children with their parents (both sides encrypted), and typed
//! aggregations (a filter on a deterministic field, the documents, a view,
//! an unwound array and a `lookup`'s two sides decrypted; a group on plain
//! fields; a group on an encrypted field does not compile,
//! `ui/group-on-encrypted.rs`).

use crate::fields::{customer, setup, Customer};

use bson::doc;
use schema_core::prelude::*;
use schema_core::{Error, Schema};
use serde::{Deserialize, Serialize};

/// A clinic visit: its customer by reference, its diagnosis encrypted.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(
    collection = "visits",
    index(keys(clinic = asc, id = asc)),
    index(keys(code = asc, id = asc))
)]
pub struct Visit {
    #[serde(rename = "_id")]
    pub id: String,
    #[reference(index, to = Customer)]
    pub customer: String,
    pub clinic: String,
    /// A billing code, found by equality.
    #[encrypt(deterministic)]
    pub code: String,
    #[encrypt(random)]
    pub diagnosis: String,
    #[embed(max = 4)]
    pub doses: Vec<Dose>,
}

#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Dose {
    pub drug: String,
    #[encrypt(deterministic)]
    pub batch: String,
}

#[derive(Projection, Deserialize, Debug, PartialEq)]
#[projection(of = Customer)]
struct Card {
    name: String,
    ssn: String,
}

#[derive(Row, Deserialize, Debug, PartialEq)]
#[row(of = Visit)]
struct PerClinic {
    #[group(key = clinic)]
    clinic: String,
    #[group(count)]
    visits: i64,
}

fn visit(i: usize) -> Visit {
    Visit {
        id: format!("v{i:03}"),
        customer: ["ada", "bo"][i % 2].to_owned(),
        clinic: ["north", "south", "east"][i % 3].to_owned(),
        code: format!("code {}", i % 4),
        diagnosis: format!("diagnosis {i}"),
        doses: vec![Dose {
            drug: "tea".into(),
            batch: format!("batch {}", i % 5),
        }],
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn pages_joins_and_aggregations_read_encrypted_fields_in_clear() {
    let (_client, db, crypt) = setup("enc_reads", 61).await;
    Schema::new()
        .with::<Customer>()
        .with::<Visit>()
        .with_encryption(crypt.clone())
        .sync(&db)
        .await
        .unwrap();
    let customers = Repo::<Customer>::new(&db).with_encryption(crypt.clone());
    let visits = Repo::<Visit>::new(&db).with_encryption(crypt.clone());
    let ada = customer("ada", "123-45-6789");
    let bo = customer("bo", "987-65-4321");
    customers
        .insert_many(&[ada.clone(), bo.clone()])
        .await
        .unwrap();
    let all: Vec<Visit> = (0..30).map(visit).collect();
    visits.insert_many(&all).await.unwrap();

    // Keyset pages filtered on the deterministic `code`, 3 at a time.
    let mut seen = Vec::new();
    let mut after = None;
    loop {
        let query = visits.find(Visit::FIELDS.code.eq("code 1"));
        let query = match after.take() {
            Some(c) => query.after(c),
            None => query,
        };
        let page = query.page(3).await.unwrap();
        seen.extend(page.items);
        match page.next {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    let coded: Vec<Visit> = all.iter().filter(|v| v.code == "code 1").cloned().collect();
    assert_eq!(seen, coded);
    // Pages of visits, one clinic, 4 at a time: every one decrypted.
    let mut seen = Vec::new();
    let mut after = None;
    loop {
        let query = visits.find(Visit::FIELDS.clinic.eq("north"));
        let query = match after.take() {
            Some(c) => query.after(c),
            None => query,
        };
        let page = query.page(4).await.unwrap();
        seen.extend(page.items);
        match page.next {
            Some(next) => after = Some(next),
            None => break,
        }
    }
    let north: Vec<Visit> = all
        .iter()
        .filter(|v| v.clinic == "north")
        .cloned()
        .collect();
    assert_eq!(seen, north);
    // A customer's children, a page.
    let children = visits
        .children(Visit::FIELDS.customer, &"ada".to_owned())
        .page_size(50)
        .page()
        .await
        .unwrap();
    assert_eq!(children.items.len(), 15);
    assert!(children.items.iter().all(|v| all.contains(v)));

    // Joins: both sides decrypted.
    let joined = visits
        .find(Visit::FIELDS.clinic.eq("south"))
        .with_parents(Visit::FIELDS.customer)
        .page(50)
        .await
        .unwrap();
    assert_eq!(joined.items.len(), 10);
    for (v, parent) in &joined.items {
        assert!(all.contains(v));
        let want = if v.customer == "ada" { &ada } else { &bo };
        assert_eq!(parent.as_ref(), Some(want));
    }
    let family = visits
        .children(Visit::FIELDS.customer, &"bo".to_owned())
        .page_size(5)
        .with_parent()
        .page()
        .await
        .unwrap();
    assert_eq!(family.parent.as_ref(), Some(&bo));
    assert_eq!(family.children.len(), 5);
    assert!(family.children.iter().all(|v| all.contains(v)));
    // With no child: the parent alone, decrypted.
    customers
        .insert(&customer("cy", "555-11-2222"))
        .await
        .unwrap();
    let lonely = visits
        .children(Visit::FIELDS.customer, &"cy".to_owned())
        .with_parent()
        .page()
        .await
        .unwrap();
    assert_eq!(lonely.parent.unwrap().ssn, "555-11-2222");

    // Aggregations: a filter on a deterministic field finds its document,
    // decrypted, through the index.
    let found: Vec<Customer> = customers
        .aggregate()
        .filter(Customer::FIELDS.ssn.eq(&bo.ssn))
        .all()
        .await
        .unwrap();
    assert_eq!(found, vec![bo.clone()]);
    let plan = customers
        .aggregate()
        .filter(Customer::FIELDS.ssn.eq(&bo.ssn))
        .explain()
        .await
        .unwrap();
    assert!(format!("{plan:?}").contains("ssn_1"), "{plan:?}");
    let cards: Vec<Card> = customers
        .aggregate()
        .filter(Customer::FIELDS.ssn.eq(&ada.ssn))
        .project::<Card>()
        .all()
        .await
        .unwrap();
    assert_eq!(
        cards,
        vec![Card {
            name: ada.name.clone(),
            ssn: ada.ssn.clone()
        }]
    );
    // An unwound array's encrypted items, decrypted.
    let doses: Vec<bson::Document> = visits
        .aggregate()
        .filter(Visit::FIELDS.clinic.eq("east"))
        .unwind(Visit::FIELDS.doses)
        .all()
        .await
        .unwrap();
    assert_eq!(doses.len(), 10);
    for dose in &doses {
        let batch = dose
            .get_document("doses")
            .unwrap()
            .get_str("batch")
            .unwrap();
        assert!(batch.starts_with("batch "), "{batch}");
    }
    // A group on plain fields.
    let mut per_clinic: Vec<PerClinic> = visits
        .aggregate()
        .filter(Visit::FIELDS.clinic.is_in(["north", "south", "east"]))
        .group::<PerClinic>()
        .all()
        .await
        .unwrap();
    per_clinic.sort_by(|a, b| a.clinic.cmp(&b.clinic));
    assert_eq!(
        per_clinic.iter().map(|r| r.visits).collect::<Vec<_>>(),
        [10, 10, 10]
    );

    // A `lookup` through the reference: both sides decrypted.
    let joined: Vec<(Visit, Option<Customer>)> = visits
        .aggregate()
        .filter(Visit::FIELDS.clinic.eq("north"))
        .lookup(Visit::FIELDS.customer)
        .all()
        .await
        .unwrap();
    assert_eq!(joined.len(), 10);
    for (v, parent) in &joined {
        assert!(all.contains(v), "{v:?}");
        let want = if v.customer == "ada" { &ada } else { &bo };
        assert_eq!(parent.as_ref(), Some(want));
    }
    // A raw range on a deterministic field, refused as `find` refuses it.
    let err = customers
        .aggregate()
        .filter(doc! { "ssn": { "$gt": "1" } })
        .scan()
        .all()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Encryption { .. }), "{err:?}");
}
