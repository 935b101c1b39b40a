//! The server's `failCommand` failpoint, scoped to one client by its
//! `appName` so that setup and checks on other clients are never failed.

use bson::{doc, Bson, Document};
use mongodb::Client;

/// `failCommand` is one server-wide failpoint: tests that arm it take turns
/// by holding this lock.
pub static FAILPOINT: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Arms `failCommand` with `mode` (`{"times": n}`, `{"skip": n, "times": m}`,
/// ...) and `data`, for the commands of the client whose `appName` is `app`.
pub async fn arm(client: &Client, app: &str, mode: impl Into<Bson>, data: Document) {
    let mut data = data;
    data.insert("appName", app);
    client
        .database("admin")
        .run_command(
            doc! { "configureFailPoint": "failCommand", "mode": mode.into(), "data": data },
        )
        .await
        .unwrap();
}

/// Turns `failCommand` off.
pub async fn off(client: &Client) {
    client
        .database("admin")
        .run_command(doc! { "configureFailPoint": "failCommand", "mode": "off" })
        .await
        .unwrap();
}

/// The failure of a write conflict on `commands` (code 112, labelled
/// `TransientTransactionError`, as the server reports a conflict inside a
/// transaction), for [`arm`].
pub fn write_conflict(commands: &[&str]) -> Document {
    doc! {
        "failCommands": commands, "errorCode": 112,
        "errorLabels": ["TransientTransactionError"],
    }
}

/// Arms `failCommand` to fail the next `times` of `commands` of the client
/// named `app` with a write conflict ([`write_conflict`]).
pub async fn conflict(client: &Client, app: &str, times: i32, commands: &[&str]) {
    arm(
        client,
        app,
        doc! { "times": times },
        write_conflict(commands),
    )
    .await;
}
