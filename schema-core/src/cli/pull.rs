//! `pull`: the Rust source of the models the data implies, to standard
//! output or into a file.

use std::io::Write;
use std::path::Path;

use super::CliError;
use crate::adopt::pull::{pull, PullOptions};

/// Pulls `db` and writes the source to `file` (saying so, with the arrays
/// left without a bound and the next step) or to `out`. Never a finding:
/// the source is the result. The caller has refused an existing `file`
/// unless told `--force`.
pub(super) async fn run(
    db: &mongodb::Database,
    options: &PullOptions,
    file: Option<&Path>,
    out: &mut (dyn Write + Send),
) -> Result<bool, CliError> {
    let pulled = pull(db, options).await?;
    let Some(file) = file else {
        write!(out, "{}", pulled.source)?;
        return Ok(false);
    };
    std::fs::write(file, &pulled.source)?;
    let n = pulled.models.len();
    let s = if n == 1 { "" } else { "s" };
    writeln!(out, "pulled {n} model{s} into {}", file.display())?;
    for path in pulled.unbounded() {
        writeln!(
            out,
            "  {path} looks unbounded and has no bound: bound it or move it out before the \
             models compile"
        )?;
    }
    writeln!(
        out,
        "next: a `src/bin/schema.rs` whose `main` awaits \
         `schema_core::cli::run(&models::schema())` runs `plan` and `sync` on these models \
         (`cargo run --bin schema -- --db {} plan`)",
        db.name()
    )?;
    Ok(false)
}
