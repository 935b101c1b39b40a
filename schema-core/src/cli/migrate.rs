//! `migrate`: [`Schema::migrate`] with its progress shown. On a terminal
//! (standard error) a bar per model: documents done of those found at an
//! earlier version, and what is left per version. Otherwise (a pipe, a
//! file, a CI log) a plain line per batch on the command's output. Either
//! way a closing line per model.

use std::io::Write;

use indicatif::{ProgressBar, ProgressStyle};

use super::outcome::CliError;
use crate::evolution::migrate::{MigrateOptions, Progress};
use crate::setup::schema::Schema;

/// `migrate --check`: the documents of each versioned model per version
/// (reads only); whether any is at an earlier version.
pub(super) async fn check(
    schema: &Schema,
    db: &mongodb::Database,
    out: &mut (dyn Write + Send),
) -> Result<bool, CliError> {
    let mut earlier = false;
    for count in schema.plan(db).await?.versions {
        writeln!(out, "versions: {count}")?;
        earlier |= count.earlier() > 0;
    }
    if !earlier {
        writeln!(out, "migrate: no document is at an earlier version")?;
    }
    Ok(earlier)
}

/// Runs every model's migration, showing its progress on `out` (or a bar).
pub(super) async fn run(
    schema: &Schema,
    db: &mongodb::Database,
    options: MigrateOptions,
    out: &mut (dyn Write + Send),
) -> Result<(), CliError> {
    if schema.versioned_models().is_empty() {
        writeln!(out, "migrate: no model names earlier shapes")?;
        return Ok(());
    }
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    let mut current: Option<&'static str> = None;
    let mut failed_output: Option<std::io::Error> = None;
    let result = schema
        .migrate(db, options, |model, p| {
            if current != Some(model) {
                current = Some(model);
                bar.reset();
                bar.set_prefix(model);
            }
            if bar.is_hidden() {
                if let Err(e) = writeln!(out, "{model}: {}", line(p)) {
                    failed_output.get_or_insert(e);
                }
            } else {
                let done = p.upgraded + p.skipped;
                bar.set_length(done + p.left.iter().map(|(_, n)| n).sum::<u64>());
                bar.set_position(done);
                bar.set_message(format!("left: {}", left(p)));
            }
        })
        .await;
    bar.finish_and_clear();
    if let Some(e) = failed_output {
        return Err(e.into());
    }
    for (model, p) in result? {
        writeln!(out, "{model}: done: {}", line(&p))?;
    }
    Ok(())
}

/// `1500 upgraded, 3 already upgraded by another writer, left: none`.
fn line(p: &Progress) -> String {
    format!(
        "{} upgraded, {} already upgraded by another writer, left: {}",
        p.upgraded,
        p.skipped,
        left(p)
    )
}

/// `v1 300, v2 200`, or `none`.
fn left(p: &Progress) -> String {
    if p.left.is_empty() {
        return "none".into();
    }
    p.left
        .iter()
        .map(|(version, n)| format!("v{version} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}
