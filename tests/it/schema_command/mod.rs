//! The schema command (`schema_core::cli`, the `schema` example's binary),
//! run in process on the examples' models against the test server: `plan
//! --check` finds work on an empty database (exit 1) and none after `sync`
//! (exit 0), `verify` passes on consistent data and finds a half-written
//! link (exit 1), `sync --on-violations` takes the tightening choices,
//! `migrate` upgrades a versioned model's documents (a line per batch when
//! not on a terminal) and stops at one its step refuses, naming it, and
//! wrong arguments or a missing database are refused before anything is
//! sent.

mod secrets;

use crate::example_models;
use crate::people;
use crate::support;

use bson::doc;
use schema_core::cli::{run_with, CliError, Outcome};
use schema_core::Schema;

/// Runs the command with `args` (after the program's name) on `uri`:
/// its outcome and what it printed.
async fn schema(schema: &Schema, uri: &str, args: &[&str]) -> (Result<Outcome, CliError>, String) {
    let mut printed: Vec<u8> = Vec::new();
    let head = ["schema", "--uri", uri];
    let argv = head.iter().chain(args).copied();
    let outcome = run_with(schema, argv, &mut printed).await;
    (outcome, String::from_utf8(printed).unwrap())
}

#[tokio::test]
async fn plan_sync_verify_and_their_exit_codes() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "schema_command").await;
    let name = db.name().to_owned();
    let (uri, all) = (support::uri(), example_models::all());

    let (outcome, printed) = schema(&all, &uri, &["--db", &name, "plan", "--check"]).await;
    assert_eq!(outcome.unwrap(), Outcome::Found, "work to do: {printed}");
    assert!(
        printed.contains("students      create collection"),
        "{printed}"
    );
    assert_eq!(Outcome::Found.exit_code(), std::process::ExitCode::from(1));

    let (outcome, printed) = schema(&all, &uri, &["--db", &name, "sync"]).await;
    assert_eq!(outcome.unwrap(), Outcome::Done);
    assert!(
        printed.contains("applied: students create index courseIds_1"),
        "{printed}"
    );
    let (outcome, printed) = schema(&all, &uri, &["--db", &name, "plan", "--check"]).await;
    assert_eq!(outcome.unwrap(), Outcome::Done);
    assert_eq!(printed, "in sync: nothing to do\n");
    let (outcome, printed) = schema(&all, &uri, &["--db", &name, "sync"]).await;
    assert_eq!(outcome.unwrap(), Outcome::Done);
    assert_eq!(printed, "applied: nothing\n");

    let (outcome, printed) = schema(&all, &uri, &["--db", &name, "verify"]).await;
    assert_eq!(outcome.unwrap(), Outcome::Done, "{printed}");
    assert!(
        printed.contains("links students.courseIds <-> courses.studentIds: ok"),
        "{printed}"
    );
    // Half a link, written around the helpers: found, exit 1.
    db.collection::<bson::Document>("students")
        .insert_one(doc! { "_id": "s1", "name": "Ann", "courseIds": ["c1"] })
        .await
        .unwrap();
    db.collection::<bson::Document>("courses")
        .insert_one(doc! { "_id": "c1", "title": "Maths", "studentIds": [] })
        .await
        .unwrap();
    let (outcome, printed) = schema(&all, &uri, &["--db", &name, "verify"]).await;
    assert_eq!(outcome.unwrap(), Outcome::Found);
    assert!(
        printed.contains(
            "`students` s1 lists c1 in `courseIds`, but `courses` c1 does not list s1 in \
             `studentIds`: `repair` adds it there"
        ),
        "{printed}"
    );
}

#[tokio::test]
async fn a_tightened_validator_takes_the_choice_given() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "schema_command_tighten").await;
    let name = db.name().to_owned();
    let uri = support::uri();
    // A course stored without its title: the model's validator refuses it.
    db.create_collection("courses").await.unwrap();
    db.collection::<bson::Document>("courses")
        .insert_one(doc! { "_id": "c1", "studentIds": [] })
        .await
        .unwrap();
    let school = example_models::school::schema();
    let (outcome, _) = schema(&school, &uri, &["--db", &name, "sync"]).await;
    let err = outcome.unwrap_err();
    assert!(
        matches!(
            err,
            CliError::Schema(schema_core::Error::ValidatorRejectsExisting { .. })
        ),
        "{err}"
    );
    let (outcome, printed) = schema(
        &school,
        &uri,
        &["--db", &name, "sync", "--on-violations", "moderate"],
    )
    .await;
    assert_eq!(outcome.unwrap(), Outcome::Done, "{printed}");
    assert!(printed.contains("applied: courses"), "{printed}");
    let listed = db
        .list_collections()
        .filter(doc! { "name": "courses" })
        .await
        .unwrap();
    let specs: Vec<_> = futures_util::TryStreamExt::try_collect(listed)
        .await
        .unwrap();
    assert_eq!(
        specs[0].options.validation_level,
        Some(mongodb::options::ValidationLevel::Moderate)
    );
}

#[tokio::test]
async fn wrong_arguments_and_no_database_are_refused_before_connecting() {
    let all = example_models::all();
    // Nothing listens on port 9: a command that tried to connect would fail
    // on the server, not on its arguments.
    let nowhere = "mongodb://127.0.0.1:9/?serverSelectionTimeoutMS=200";
    let (outcome, _) = schema(&all, nowhere, &["plan", "--bogus"]).await;
    let Err(CliError::Usage(usage)) = outcome else {
        panic!("a usage error: {outcome:?}")
    };
    assert_eq!(usage.exit_code(), 2);
    let (outcome, _) = schema(&all, nowhere, &["sync", "--on-violations", "sometimes"]).await;
    assert!(matches!(outcome, Err(CliError::Usage(_))), "{outcome:?}");
    let (outcome, _) = schema(&all, nowhere, &["verify"]).await;
    assert!(matches!(outcome, Err(CliError::NoDatabase)), "{outcome:?}");
    // `diagram` needs no server.
    let (outcome, printed) = schema(&all, nowhere, &["diagram"]).await;
    assert_eq!(outcome.unwrap(), Outcome::Done);
    assert_eq!(printed, format!("```mermaid\n{}```\n", all.diagram()));
}

#[tokio::test]
async fn migrate_upgrades_in_batches_and_names_a_refused_document() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "schema_migrate").await;
    let name = db.name().to_owned();
    let uri = support::uri();
    let (outcome, printed) =
        schema(&example_models::all(), &uri, &["--db", &name, "migrate"]).await;
    assert_eq!(outcome.unwrap(), Outcome::Done);
    assert_eq!(printed, "migrate: no model names earlier shapes\n");

    let people = Schema::new().with::<people::Person>();
    people.sync(&db).await.unwrap();
    let raw = db.collection::<bson::Document>("people");
    raw.insert_many([
        doc! { "_id": "a", "name": "Ada Lovelace" },
        doc! { "_id": "b", "name": "Alan Turing" },
        doc! { "_id": "c", "first": "Grace", "last": "Hopper", "schemaVersion": 2 },
        doc! { "_id": "d", "name": "Plato" },
    ])
    .await
    .unwrap();
    let args = [
        "--db",
        &name,
        "migrate",
        "--batch-size",
        "2",
        "--pause-ms",
        "1",
    ];
    let (outcome, printed) = schema(&people, &uri, &args).await;
    let Err(CliError::Schema(err @ schema_core::Error::Upgrade { .. })) = outcome else {
        panic!("a refused upgrade: {outcome:?}: {printed}");
    };
    // As the README shows it.
    assert_eq!(
        err.to_string(),
        "cannot upgrade the document d of `people` to `Person` (from version 1): \
         the name has no space to split it at"
    );
    assert_eq!(
        printed,
        "Person: 2 upgraded, 0 already upgraded by another writer, left: v1 1, v2 1\n"
    );
    // The gate for CI: documents at earlier versions, exit 1, nothing
    // written.
    let check = ["--db", &name, "migrate", "--check"];
    let (outcome, printed) = schema(&people, &uri, &check).await;
    assert_eq!(outcome.unwrap(), Outcome::Found, "{printed}");
    assert_eq!(
        printed,
        "versions: people: 1 at v1, 1 at v2, 2 at v3 (current)\n"
    );
    assert_eq!(
        raw.count_documents(doc! { "schemaVersion": 3 })
            .await
            .unwrap(),
        2
    );
    // Mended, run again: it resumes.
    raw.update_one(
        doc! { "_id": "d" },
        doc! { "$set": { "name": "Plato Athenian" } },
    )
    .await
    .unwrap();
    let (outcome, printed) = schema(&people, &uri, &args).await;
    assert_eq!(outcome.unwrap(), Outcome::Done, "{printed}");
    assert_eq!(
        printed,
        "Person: 2 upgraded, 0 already upgraded by another writer, left: none\n\
         Person: 2 upgraded, 0 already upgraded by another writer, left: none\n\
         Person: done: 2 upgraded, 0 already upgraded by another writer, left: none\n"
    );
    assert_eq!(
        raw.count_documents(doc! { "schemaVersion": 3 })
            .await
            .unwrap(),
        4
    );
    let (outcome, printed) = schema(&people, &uri, &check).await;
    assert_eq!(outcome.unwrap(), Outcome::Done, "{printed}");
    assert!(
        printed.ends_with("migrate: no document is at an earlier version\n"),
        "{printed}"
    );
    let (outcome, _) = schema(
        &people,
        &uri,
        &["--db", &name, "migrate", "--batch-size", "0"],
    )
    .await;
    assert!(matches!(outcome, Err(CliError::Usage(_))), "{outcome:?}");
}

#[tokio::test]
async fn an_unreachable_server_fails_in_seconds_and_says_first_what_to_check() {
    let all = example_models::all();
    // Nothing listens on port 9, and the URI sets no serverSelectionTimeoutMS
    // (the driver's own default is 30 s).
    let nowhere = "mongodb://127.0.0.1:9/";
    let started = std::time::Instant::now();
    let (outcome, printed) = schema(&all, nowhere, &["--db", "shop", "plan"]).await;
    let took = started.elapsed();
    let err = outcome.unwrap_err();
    assert!(
        matches!(
            err,
            CliError::Schema(schema_core::Error::Unreachable { .. })
        ),
        "{err}"
    );
    assert!(took < std::time::Duration::from_secs(12), "took {took:?}");
    assert_eq!(printed, "");
    let message = err.to_string();
    let first = message.lines().next().unwrap();
    for words in [
        "cannot reach the MongoDB server at 127.0.0.1:9",
        "is it running",
        "serverSelectionTimeoutMS",
    ] {
        assert!(
            first.contains(words),
            "{words:?} in the first line: {first}"
        );
    }
    assert!(!first.contains("Topology"), "{first}");
    assert!(first.len() < 300, "{} characters: {first}", first.len());
    // The driver's account follows, on a line of its own.
    assert!(
        message.lines().skip(1).any(|l| l.contains("Topology")),
        "{message}"
    );
}

#[tokio::test]
async fn verify_names_each_broken_link_repair_fixes_them_and_verify_is_clean_after() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "schema_repair").await;
    let name = db.name().to_owned();
    let uri = support::uri();
    let school = example_models::school::schema();
    school.sync(&db).await.unwrap();
    // Each kind of fault, written around the helpers.
    let students = db.collection::<bson::Document>("students");
    let courses = db.collection::<bson::Document>("courses");
    students
        .insert_many([
            // Lists c1, which does not list it back.
            doc! { "_id": "s1", "name": "Ann", "courseIds": ["c1"] },
            // Listed by c2, lists nothing.
            doc! { "_id": "s2", "name": "Bob", "courseIds": [] },
            // Lists a course that does not exist.
            doc! { "_id": "s3", "name": "Cy", "courseIds": ["c404"] },
        ])
        .await
        .unwrap();
    courses
        .insert_many([
            doc! { "_id": "c1", "title": "Maths", "studentIds": [] },
            doc! { "_id": "c2", "title": "Latin", "studentIds": ["s2"] },
            // Lists a student who does not exist.
            doc! { "_id": "c3", "title": "Greek", "studentIds": ["s404"] },
        ])
        .await
        .unwrap();
    let findings = [
        "`students` s1 lists c1 in `courseIds`, but `courses` c1 does not list s1 in \
         `studentIds`: `repair` adds it there",
        "`courses` c2 lists s2 in `studentIds`, but `students` s2 does not list c2 in \
         `courseIds`: `repair` adds it there",
        "`students` s3 lists c404 in `courseIds`, but `courses` has no document c404: \
         `repair` removes the id",
        "`courses` c3 lists s404 in `studentIds`, but `students` has no document s404: \
         `repair` removes the id",
    ];
    let (outcome, printed) = schema(&school, &uri, &["--db", &name, "verify"]).await;
    assert_eq!(outcome.unwrap(), Outcome::Found, "{printed}");
    for finding in findings {
        assert!(printed.contains(finding), "{finding:?} in {printed}");
    }

    let fixes = [
        "added s1 to `courses` c1 `studentIds`",
        "added c2 to `students` s2 `courseIds`",
        "removed c404 from `students` s3 `courseIds`: `courses` has no c404",
        "removed s404 from `courses` c3 `studentIds`: `students` has no s404",
    ];
    let (outcome, printed) = schema(&school, &uri, &["--db", &name, "repair", "--dry-run"]).await;
    assert_eq!(outcome.unwrap(), Outcome::Done, "{printed}");
    assert!(
        printed.starts_with("dry run: nothing written\n"),
        "{printed}"
    );
    assert!(printed.contains(": 4 to fix"), "{printed}");
    for fix in fixes {
        let dry = fix
            .replacen("added", "add", 1)
            .replacen("removed", "remove", 1);
        assert!(
            printed.contains(&format!("would {dry}")),
            "{fix:?} in {printed}"
        );
    }
    let (outcome, _) = schema(&school, &uri, &["--db", &name, "verify"]).await;
    assert_eq!(
        outcome.unwrap(),
        Outcome::Found,
        "the dry run wrote nothing"
    );

    let (outcome, printed) = schema(&school, &uri, &["--db", &name, "repair"]).await;
    assert_eq!(outcome.unwrap(), Outcome::Done, "{printed}");
    assert!(
        printed.starts_with("links students.courseIds <-> courses.studentIds: 4 fixed\n"),
        "{printed}"
    );
    for fix in fixes {
        assert!(
            printed.contains(&format!("  {fix}")),
            "{fix:?} in {printed}"
        );
    }
    // Ids only: no name or title of a document.
    assert!(
        !printed.contains("Ann") && !printed.contains("Maths"),
        "{printed}"
    );

    let (outcome, printed) = schema(&school, &uri, &["--db", &name, "verify"]).await;
    assert_eq!(outcome.unwrap(), Outcome::Done, "{printed}");
    assert!(
        printed.contains("links students.courseIds <-> courses.studentIds: ok (2 edges"),
        "{printed}"
    );
    let c1 = courses
        .find_one(doc! { "_id": "c1" })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        c1.get_array("studentIds").unwrap(),
        &vec![bson::Bson::from("s1")]
    );
    let (outcome, printed) = schema(&school, &uri, &["--db", &name, "repair"]).await;
    assert_eq!(outcome.unwrap(), Outcome::Done);
    assert_eq!(
        printed,
        "links students.courseIds <-> courses.studentIds: nothing to fix\n"
    );
}
