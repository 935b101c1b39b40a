//! What every example shares: connecting to a fresh database named after
//! it, printing headings and setup plans, timing a median, and counting the
//! commands a client sends.
#![allow(dead_code)]

use std::future::Future;
use std::time::{Duration, Instant};

use schema_core::mongodb::{Client, Database};
use schema_core::{PlanSummary, Schema};

// A second client to the same server whose commands are recorded, and its log.
#[allow(unused_imports)] // each example uses some of these
pub use schema_testkit::{counting_client, CommandLog};

/// What an example's `main` returns: any error ends it with a non-zero status.
pub type Result<T = (), E = Box<dyn std::error::Error>> = std::result::Result<T, E>;

/// Prints a section heading.
pub fn heading(title: &str) {
    println!();
    println!("-- {title}");
}

/// Where the examples run: the server given by `MONGODB_URI`, or an embedded
/// test server started for this process.
pub fn server_name() -> &'static str {
    if schema_testkit::server::is_embedded() {
        "embedded secantusd-rs (temporary data)"
    } else {
        "MONGODB_URI"
    }
}

/// Connects (see [`schema_testkit::server::connect`]) and returns the database
/// `name`, dropped first so that reruns start clean. Prints its name.
pub async fn fresh_database(name: &str) -> Result<(Client, Database)> {
    let client = schema_testkit::server::connect().await?;
    let db = client.database(name);
    db.drop().await?;
    println!("database: {name} (server: {})", server_name());
    Ok((client, db))
}

/// Prints what setup would do, applies it, and checks that the server then
/// matches the models (a second plan is empty).
pub async fn setup(db: &Database, schema: &Schema) -> Result {
    let plan = schema.plan(db).await?;
    println!("setup plan (Schema::plan, before Schema::sync):");
    for line in plan.to_string().lines() {
        println!("  {line}");
    }
    let report = schema.sync(db).await?;
    let after = schema.plan(db).await?;
    assert!(after.is_empty(), "setup left work to do:\n{after}");
    println!(
        "setup applied {} steps; a second plan: {}",
        report.applied.len(),
        after.to_string().trim()
    );
    Ok(())
}

/// Prints a plan summary after a label padded to `width`.
pub fn show_plan(label: &str, width: usize, plan: &PlanSummary) {
    println!("{label:width$} : {plan}");
}

/// Asserts a plan's stages and figures, with the plan in the message.
pub fn expect_plan(plan: &PlanSummary, stages: &[&str], returned: u64, keys: u64, docs: u64) {
    assert_eq!(plan.stages, stages, "unexpected plan: {plan}");
    assert_eq!(
        (plan.returned, plan.keys_examined, plan.docs_examined),
        (returned, keys, docs),
        "unexpected figures (returned, keys, docs): {plan}"
    );
}

/// The median duration of `runs` calls of `f` (each awaited in turn).
pub async fn median<F, Fut, E>(runs: usize, mut f: F) -> std::result::Result<Duration, E>
where
    F: FnMut(usize) -> Fut,
    Fut: Future<Output = std::result::Result<(), E>>,
{
    let mut times = Vec::with_capacity(runs);
    for i in 0..runs.max(1) {
        let start = Instant::now();
        f(i).await?;
        times.push(start.elapsed());
    }
    times.sort();
    Ok(times[times.len() / 2])
}

/// A duration in milliseconds with two decimals.
pub fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}
