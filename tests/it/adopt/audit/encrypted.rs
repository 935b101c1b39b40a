//! Fields another application encrypted on the client (BSON binary subtype
//! 6, the FLE1 form: the algorithm's byte, the data key's UUID, the
//! original type's byte, the ciphertext), written by the raw driver: the
//! audit names each such path with its counts per algorithm, and an older
//! writer's plain values beside them are a finding that quotes none of
//! them.

use mongodb::bson::{doc, spec::BinarySubtype, Binary, Document};
use schema_core::{audit, AuditOptions};

use crate::support;

fn sealed(algorithm: u8, i: u8) -> Binary {
    let mut bytes = vec![algorithm];
    bytes.extend([0x5a; 16]);
    bytes.push(0x02);
    bytes.extend((0..48).map(|b| b ^ i));
    Binary {
        subtype: BinarySubtype::Encrypted,
        bytes,
    }
}

#[tokio::test]
async fn encrypted_fields_are_named_and_plain_values_beside_them_are_a_finding() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "audit_encrypted").await;
    let patients = db.collection::<Document>("patients");
    // Written before encryption: the SSN in clear.
    for i in 0..3u8 {
        patients
            .insert_one(
                doc! { "_id": i32::from(i), "ssn": format!("clear-ssn-{i}"), "notes": null },
            )
            .await
            .unwrap();
    }
    for i in 3..40u8 {
        patients
            .insert_one(doc! {
                "_id": i32::from(i),
                "ssn": sealed(1, i),
                "notes": if i % 2 == 0 { sealed(2, i).into() } else { mongodb::bson::Bson::Null },
                "profile": { "phone": sealed(2, i) },
            })
            .await
            .unwrap();
    }
    let report = audit(&db, &AuditOptions::default()).await.unwrap();
    let text = report.to_string();
    println!("{text}");
    let found: Vec<(String, u64, u64, u64)> = report
        .encrypted()
        .map(|e| (e.path.clone(), e.deterministic, e.random, e.clear))
        .collect();
    assert_eq!(
        found,
        vec![
            ("notes".to_owned(), 0, 18, 0),
            ("profile.phone".to_owned(), 0, 37, 0),
            ("ssn".to_owned(), 37, 0, 3),
        ]
    );
    let findings = report.findings();
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert!(
        findings[0].contains("patients.ssn: encrypted on the client (37 deterministic, 0 random), and 3 values stored in clear"),
        "{findings:?}"
    );
    assert!(
        !text.contains("clear-ssn"),
        "no stored value quoted: {text}"
    );
    let markdown = report.to_markdown();
    assert!(markdown.contains("| `ssn` | 37 | 0 | 3 |"), "{markdown}");
}
