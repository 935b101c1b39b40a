//! `audit`: [`audit_with`](crate::audit_with) with the command's schema,
//! its report on the command's output as text, Markdown or JSON, and its
//! progress on standard error (a bar on a terminal, plain lines
//! otherwise), never mixed into the report.

use std::io::{IsTerminal, Write};

use clap::ValueEnum;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::outcome::CliError;
use crate::adopt::audit::{audit_with, AuditOptions, AuditProgress, AuditStage};
use crate::setup::schema::Schema;

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(super) enum Format {
    /// Lines of text, findings last.
    Text,
    /// Markdown: the findings, then a section of tables per collection.
    Markdown,
    /// JSON: `has_findings`, `findings`, `collections`.
    Json,
}

/// Runs the audit, prints its report; whether it found anything.
pub(super) async fn run(
    schema: &Schema,
    db: &mongodb::Database,
    options: AuditOptions,
    format: Format,
    out: &mut (dyn Write + Send),
) -> Result<bool, CliError> {
    let terminal = std::io::stderr().is_terminal();
    let bar = if terminal {
        ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr())
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template("audit {prefix} [{bar:30}] {pos}/{len} {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    let report = audit_with(db, schema, &options, |p| {
        if terminal {
            show(&bar, p);
        } else if let Some(line) = line(p) {
            eprintln!("{line}");
        }
    })
    .await;
    bar.finish_and_clear();
    let report = report?;
    match format {
        Format::Text => write!(out, "{report}")?,
        Format::Markdown => write!(out, "{}", report.to_markdown())?,
        Format::Json => writeln!(out, "{}", report.to_json())?,
    }
    Ok(report.has_findings())
}

/// The bar at `p`.
fn show(bar: &ProgressBar, p: &AuditProgress<'_>) {
    bar.set_prefix(format!("{}/{}", p.number, p.of));
    match p.stage {
        AuditStage::Reading | AuditStage::Read => {
            bar.set_length(p.expected.max(p.read));
            bar.set_position(p.read);
            bar.set_message(p.collection.to_owned());
        }
        AuditStage::References => bar.set_message("looking references up"),
        AuditStage::Validator => bar.set_message(format!("{}: validator", p.collection)),
    }
}

/// `audit: rooms 1/6 read 31 documents`, at a collection's end, every
/// 10,000 documents of a long read, and at each later stage.
fn line(p: &AuditProgress<'_>) -> Option<String> {
    let at = format!("{} {}/{}", p.collection, p.number, p.of);
    match p.stage {
        AuditStage::Reading if p.read > 0 => Some(format!(
            "audit: {at} read {} of about {}",
            p.read, p.expected
        )),
        AuditStage::Read => Some(format!("audit: {at} read {} documents", p.read)),
        AuditStage::References => Some("audit: looking the reference candidates up".to_owned()),
        AuditStage::Validator => Some(format!("audit: {at} counting validator failures")),
        _ => None,
    }
}
