//! `schema keys rotate` (the `encryption` feature): the local master key
//! rotated, every data key of the key vault rewrapped under the next one
//! ([`Encryption::rotate_master_key`]). Both keys come from the
//! environment, base64 of their 96 bytes, and are never printed.

use std::io::Write;

use bson::spec::BinarySubtype;
use bson::Binary;

use super::outcome::{CliError, Outcome};
use crate::crypt::{Encryption, LocalMasterKey, DEFAULT_KEY_VAULT};

/// The environment variable holding the current master key.
pub const MASTER_KEY_ENV: &str = "SCHEMA_MASTER_KEY";
/// The environment variable holding the next master key.
pub const NEXT_MASTER_KEY_ENV: &str = "SCHEMA_NEXT_MASTER_KEY";

/// The master key in `var`: base64 of 96 bytes.
fn master_key(var: &'static str) -> Result<LocalMasterKey, CliError> {
    let text = std::env::var(var).map_err(|_| CliError::MasterKey {
        var,
        reason: "is not set",
    })?;
    let bytes = Binary::from_base64(text.trim(), BinarySubtype::Generic)
        .map_err(|_| CliError::MasterKey {
            var,
            reason: "is not base64",
        })?
        .bytes;
    let bytes: [u8; 96] = bytes.try_into().map_err(|_| CliError::MasterKey {
        var,
        reason: "does not hold 96 bytes",
    })?;
    Ok(LocalMasterKey::new(bytes))
}

/// Rotates the master key of the key vault `vault` (`db.collection`).
pub(super) async fn rotate(
    client: &mongodb::Client,
    vault: Option<&str>,
    out: &mut (dyn Write + Send),
) -> Result<Outcome, CliError> {
    let (current, next) = (
        master_key(MASTER_KEY_ENV)?,
        master_key(NEXT_MASTER_KEY_ENV)?,
    );
    let (db, coll) = match vault {
        Some(vault) => vault.split_once('.').ok_or(CliError::MasterKey {
            var: "--key-vault",
            reason: "names no `database.collection`",
        })?,
        None => DEFAULT_KEY_VAULT,
    };
    let crypt = Encryption::new(client, current.clone())?.with_key_vault(client, db, coll);
    let rotated = crypt.rotate_master_key(&current, &next).await?;
    writeln!(
        out,
        "rewrapped {rotated} data key{} of {db}.{coll} under the next master key: store {NEXT_MASTER_KEY_ENV}'s key as {MASTER_KEY_ENV} now",
        if rotated == 1 { "" } else { "s" }
    )?;
    Ok(Outcome::Done)
}
