//! Models holding bson 3 types, in a crate whose only dependencies are
//! `schema-core` and `serde`, stored and read on a real server: the derive's
//! generated code and the API reach `bson` and `mongodb` through
//! `schema_core::bson` and `schema_core::mongodb` alone.

use schema_bson3_check::{Customer, Invoice, Line};
use schema_core::bson::{
    self, doc, oid::ObjectId, spec::BinarySubtype, Binary, Bson, DateTime, Decimal128,
    Document as BsonDocument, Uuid,
};
use schema_core::mongodb::error::{ErrorKind, WriteFailure};
use schema_core::mongodb::{Client, Database};
use schema_core::prelude::*;
use schema_core::Schema;

/// `schema_core::bson` is the crate the driver uses: a value of one is a
/// value of the other, with no conversion.
fn same_crate(doc: bson::Document) -> schema_core::mongodb::bson::Document {
    doc
}

async fn fresh_db(name: &str) -> Database {
    let uri = schema_testkit::server::uri().unwrap_or_else(|e| panic!("no test server: {e}"));
    let client = Client::with_uri_str(uri).await.expect("connect");
    let db = client.database(&format!("t_{name}_{}", std::process::id()));
    db.drop().await.expect("drop the test database");
    db
}

fn line(sku: &str, price: &str) -> Line {
    Line {
        sku: sku.to_owned(),
        unit_price: price.parse().expect("a decimal"),
        quantity: 1,
    }
}

fn invoice(customer: Uuid) -> Invoice {
    Invoice {
        id: ObjectId::new(),
        customer_id: customer,
        issued: DateTime::from_millis(1_700_000_000_000),
        total: "1234.50".parse().expect("a decimal"),
        views: u64::from(u32::MAX) + 1,
        signature: Binary {
            subtype: BinarySubtype::Generic,
            bytes: vec![0xde, 0xad, 0xbe, 0xef],
        },
        lines: vec![line("a-1", "1000.00"), line("b-2", "234.50")],
        extra: doc! { "source": "import", "batch": 7_i32 },
    }
}

#[tokio::test]
async fn bson3_types_round_trip_through_the_reexports() {
    let db = fresh_db("bson3_types").await;
    Schema::new()
        .with::<Customer>()
        .with::<Invoice>()
        .sync(&db)
        .await
        .expect("sync");

    let customer = Customer {
        id: Uuid::new(),
        name: "Ada".to_owned(),
    };
    Repo::<Customer>::new(&db).insert(&customer).await.unwrap();
    let invoices = Repo::<Invoice>::new(&db);
    let written = invoice(customer.id);
    invoices.insert(&written).await.unwrap();

    // Read back through the model: every value as written.
    let read = invoices.get(&written.id).await.unwrap().expect("stored");
    assert_eq!(read, written);

    // Stored with the BSON types the validator asks for, exactly as bson 3
    // serializes the model (`serialize_to_document` is bson 3's name).
    let stored = db
        .collection::<BsonDocument>("invoices")
        .find_one(doc! { "_id": written.id })
        .await
        .unwrap()
        .expect("stored");
    assert_eq!(
        same_crate(stored.clone()),
        bson::serialize_to_document(&written).unwrap()
    );
    assert!(
        matches!(stored.get("total"), Some(Bson::Decimal128(_))),
        "{stored}"
    );
    assert!(
        matches!(stored.get("issued"), Some(Bson::DateTime(_))),
        "{stored}"
    );
    assert_eq!(stored.get("views"), Some(&Bson::Int64(1 << 32)), "{stored}");
    match stored.get("customerId") {
        Some(Bson::Binary(b)) => assert_eq!(b.subtype, BinarySubtype::Uuid, "{stored}"),
        other => panic!("customerId: {other:?}"),
    }

    // The reference rides its index and finds the invoice by UUID.
    let page = invoices
        .children(Invoice::FIELDS.customer_id, &customer.id)
        .page_size(10)
        .page()
        .await
        .unwrap();
    assert_eq!(page.items.len(), 1);
    assert_eq!(page.items[0], written);

    // The bounded embed of sub-documents holding `Decimal128`: one more line
    // fits (3 of 3), the next is refused and nothing is written.
    let lines = invoices.embed(Invoice::FIELDS.lines);
    lines.push(&written.id, &line("c-3", "0.01")).await.unwrap();
    let err = lines
        .push(&written.id, &line("d-4", "0.02"))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("lines"), "names the field: {err}");
    let read = invoices.get(&written.id).await.unwrap().expect("stored");
    assert_eq!(read.lines.len(), 3);
    assert_eq!(
        read.lines[2].unit_price,
        "0.01".parse::<Decimal128>().unwrap()
    );
}

#[tokio::test]
async fn the_validator_knows_the_bson3_types() {
    let db = fresh_db("bson3_validator").await;
    Schema::new()
        .with::<Customer>()
        .with::<Invoice>()
        .sync(&db)
        .await
        .expect("sync");

    // A raw write of the right shape is accepted...
    let good = bson::serialize_to_document(&invoice(Uuid::new())).unwrap();
    let raw = db.collection::<BsonDocument>("invoices");
    raw.insert_one(&good).await.expect("a well-typed document");

    // ...and each bson 3 type is checked: a string where the validator asks
    // for `decimal`, `date`, `binData` or a UUID is refused with code 121
    // (DocumentValidationFailure).
    for (field, wrong) in [
        ("total", Bson::String("1234.50".into())),
        ("issued", Bson::String("2023-11-14".into())),
        ("signature", Bson::String("deadbeef".into())),
        ("customerId", Bson::String(Uuid::new().to_string())),
    ] {
        let mut bad = good.clone();
        bad.insert("_id", ObjectId::new());
        bad.insert(field, wrong);
        let err = raw.insert_one(&bad).await.expect_err(field);
        let code = match err.kind.as_ref() {
            ErrorKind::Write(WriteFailure::WriteError(w)) => Some(w.code),
            _ => None,
        };
        assert_eq!(code, Some(121), "{field}: {err}");
    }
    assert_eq!(raw.count_documents(doc! {}).await.unwrap(), 1);
}
