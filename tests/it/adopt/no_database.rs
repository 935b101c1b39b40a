//! A database that does not exist (a misspelled `--db`) is no database with
//! nothing to report: `audit` and `pull` refuse it with
//! `Error::NoCollections`, naming it, the databases there are and the one
//! it most likely meant; the command exits with 4, in the library's place
//! as in a process of its own, so a CI gate fails on the typo.

use schema_core::cli::{run_with, CliError};
use schema_core::{audit, pull, AuditOptions, Error, PullOptions, Schema};

use super::seeds;
use super::walkthrough::schema;
use crate::support;

#[tokio::test]
async fn a_misspelled_database_is_refused_naming_the_ones_there_are() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "helpdesk_tickets").await;
    seeds::helpdesk(&db, 50).await;
    let typo = db.name().replacen("tickets", "tikets", 1);
    let missing = client.database(&typo);
    let errors = [
        audit(&missing, &AuditOptions::default()).await.unwrap_err(),
        pull(&missing, &PullOptions::default()).await.unwrap_err(),
    ];
    for err in errors {
        let Error::NoCollections { database, existing } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(database, &typo);
        assert!(existing.iter().any(|n| n == db.name()), "{existing:?}");
        assert!(
            !existing
                .iter()
                .any(|n| ["admin", "config", "local"].contains(&n.as_str())),
            "{existing:?}"
        );
        let message = err.to_string();
        assert!(
            message.starts_with(&format!("the database `{typo}` has no collections"))
                && message.contains(&format!("`{}`", db.name()))
                && message.contains(&format!("did you mean `{}`?", db.name())),
            "{message}"
        );
    }
    // Nothing was created by looking.
    let names = client.list_database_names().await.unwrap();
    assert!(!names.contains(&typo), "{names:?}");

    // The command, in process: the error and its exit code.
    for verb in ["audit", "pull"] {
        let argv = ["schema", "--uri", &support::uri(), "--db", &typo, verb];
        let mut printed = Vec::new();
        let err = run_with(&Schema::new(), argv, &mut printed)
            .await
            .unwrap_err();
        assert!(
            matches!(err, CliError::Schema(Error::NoCollections { .. })),
            "{err:?}"
        );
        assert_eq!(err.exit_code(), std::process::ExitCode::from(4));
        assert!(printed.is_empty(), "nothing but the error");
    }
    // And as a user runs it: exit 4, the message on standard error.
    let here = std::env::temp_dir();
    for verb in ["audit", "pull"] {
        let run = schema("none", &here, &["--db", &typo, verb]);
        run.exits(4)
            .errs(&format!("error: the database `{typo}` has no collections"))
            .errs(&format!("did you mean `{}`?", db.name()));
    }
    // The database spelled right audits as before.
    let report = audit(&db, &AuditOptions::default()).await.unwrap();
    assert_eq!(report.collections.len(), 2);
}
