//! The `tracing` spans of the helpers: every call runs in a `helper` span
//! (collection, operation, attempts, retry reason, commands sent, error),
//! printed here by `tracing-subscriber`'s formatter when each span closes.
//! A write conflict forced on one link shows a retry in its span.
//!
//! `cargo run --features tracing --example tracing` (uses `MONGODB_URI`, or
//! starts a test server; the forced conflict needs a server with the
//! `failCommand` failpoint, as the test server and `mongod` with
//! `enableTestCommands` have).

mod common;
mod models;

use common::{heading, Result};
use models::school::{Course, Student};
use schema_core::bson::doc;
use schema_core::mongodb::options::ClientOptions;
use schema_core::mongodb::Client;
use schema_core::prelude::*;
use tracing::Level;
use tracing_subscriber::fmt::format::FmtSpan;

const DATABASE: &str = "tracing_example";
const APP: &str = "tracing_example";

#[tokio::main]
async fn main() -> Result {
    // The spans are DEBUG of target `schema_core`; print each as it closes.
    tracing_subscriber::fmt()
        .with_max_level(Level::DEBUG)
        .with_span_events(FmtSpan::CLOSE)
        .with_ansi(false)
        .init();

    let mut options = ClientOptions::parse(schema_testkit::server::uri()?).await?;
    options.app_name = Some(APP.to_owned());
    // Counts each command in the span of the call that sent it.
    schema_core::trace::count_commands(&mut options);
    let client = Client::with_options(options)?;
    let db = client.database(DATABASE);
    db.drop().await?;
    models::school::schema().sync(&db).await?;
    let students = Repo::<Student>::new(&db);
    let courses = Repo::<Course>::new(&db);
    let links = Links::new(&db, Student::FIELDS.course_ids);

    heading("an insert, a two-sided link, a read");
    students.insert(&Student::new("s1", "Ada")).await?;
    courses.insert(&Course::new("c1", "Algebra")).await?;
    links.link(&"s1".to_owned(), &"c1".to_owned()).await?;
    students.get(&"s1".to_owned()).await?;

    heading("a link whose first update meets a write conflict: two attempts");
    courses.insert(&Course::new("c2", "Biology")).await?;
    let conflict = doc! {
        "configureFailPoint": "failCommand", "mode": { "times": 1 },
        "data": {
            "failCommands": ["update"], "errorCode": 112,
            "errorLabels": ["TransientTransactionError"], "appName": APP,
        },
    };
    client.database("admin").run_command(conflict).await?;
    links.link(&"s1".to_owned(), &"c2".to_owned()).await?;

    heading("a query no index serves: refused, nothing sent, the error in the span");
    let refused = students.find_one(Student::FIELDS.name.eq("Ada")).await;
    assert!(refused.is_err());
    Ok(())
}
