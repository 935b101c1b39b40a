//! The audit's report as JSON and Markdown, from the library and from the
//! schema command: parsed, and holding none of the stored data.

use mongodb::Database;
use schema_core::cli::{run_with, Outcome};
use schema_core::{audit, AuditOptions, Schema};

use crate::adopt::seeds;
use crate::support;

/// Texts the seeds store: a report that quoted stored data would show one.
const STORED: [&str; 9] = [
    "@example.test",
    "Writes algorithms",
    "xxxxxxxxxx",
    "123 Main St",
    "Widget",
    "Jane Doe",
    "978-",
    "Data Modeling",
    "hello 1",
];

async fn seeded(test: &str) -> Database {
    let db = support::fresh_db(&support::client().await, test).await;
    seeds::blog(&db, 200).await;
    seeds::school(&db, 5).await;
    seeds::stuck_room(&db, 10).await;
    seeds::catalog(&db, 60).await;
    db
}

fn no_stored_data(report: &str) {
    for text in STORED {
        assert!(!report.contains(text), "{text:?} in {report}");
    }
}

#[tokio::test]
async fn json_and_markdown_parse_and_hold_no_stored_data() {
    let db = seeded("audit_output").await;
    let report = audit(&db, &AuditOptions::default()).await.unwrap();
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    assert_eq!(json["has_findings"], true);
    assert_eq!(
        json["findings"].as_array().unwrap().len(),
        report.findings().len()
    );
    let rooms = json["collections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "rooms")
        .unwrap();
    assert_eq!(rooms["sizes"]["largest"][0][0], "room1");
    assert_eq!(rooms["arrays"][0]["max"], 2089);
    let items = json["collections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "items")
        .unwrap();
    assert_eq!(items["polymorphic"][0]["tag"], "type");
    assert_eq!(items["polymorphic"][0]["variants"][1]["tag"], "dvd");
    no_stored_data(&report.to_json());
    let md = report.to_markdown();
    assert!(md.starts_with("# Audit\n\n## Findings\n\n- "), "{md}");
    assert!(
        md.contains("| `authorId` | `users` | 100 of 100 | no |"),
        "{md}"
    );
    no_stored_data(&md);
    no_stored_data(&report.to_string());
}

#[tokio::test]
async fn the_command_prints_each_format_and_exits_with_1() {
    let db = seeded("audit_output_command").await;
    let run = |format: &'static str| {
        let name = db.name().to_owned();
        async move {
            let mut printed: Vec<u8> = Vec::new();
            let argv = [
                "schema",
                "--uri",
                &support::uri(),
                "--db",
                &name,
                "audit",
                "--format",
                format,
            ]
            .map(str::to_owned);
            let outcome = run_with(&Schema::new(), argv, &mut printed).await.unwrap();
            (outcome, String::from_utf8(printed).unwrap())
        }
    };
    let (outcome, printed) = run("json").await;
    assert_eq!(outcome, Outcome::Found);
    // Standard output holds the JSON alone: the progress went to standard
    // error.
    let json: serde_json::Value = serde_json::from_str(&printed).unwrap();
    assert_eq!(json["has_findings"], true);
    no_stored_data(&printed);
    let (outcome, printed) = run("markdown").await;
    assert_eq!(outcome, Outcome::Found);
    assert!(printed.starts_with("# Audit\n"), "{printed}");
    let (outcome, printed) = run("text").await;
    assert_eq!(outcome, Outcome::Found);
    assert!(
        printed.contains(
            "posts.authorId -> users: 100 of 100 values looked up are _ids there, not indexed"
        ),
        "{printed}"
    );
    assert!(printed.ends_with("findings: 6\n"), "{printed}");
}
