//! How the framework's helpers run their own transactions
//! ([`transact`]): the topology checked once, then the convenient API's
//! runner on a session of their own or joined to the caller's.

use mongodb::{Client, ClientSession};

use super::builder::{self, TxnBody};
use super::runner::{already_in_progress, is_unreachable, start_error, Attempts};
use super::topology::TxnState;
use super::{start_session, TxnConfig};
use crate::error::Result;

/// How every helper runs its transaction: checks the topology once per
/// `state` (naming `models` in the error) before anything is written, then
/// runs `body` in a transaction of its own on a new session when `session`
/// is `None`; on the caller's session, it joins the transaction in progress
/// there (once, no retry: retrying is the caller's business, and on error
/// the caller must abort), or runs one of its own on it. Retries are
/// counted in `state`; an unreachable server is waited for, the check
/// included, until the policy's deadline.
pub(crate) async fn transact<C, T, F>(
    state: &TxnState,
    models: &[&'static str],
    client: &Client,
    session: Option<&mut ClientSession>,
    config: &TxnConfig,
    context: C,
    body: F,
) -> Result<T>
where
    F: TxnBody<C, T>,
{
    let mut attempts = Attempts::new(&config.policy, Some(state.retry_counter()));
    loop {
        match state.require(client, models).await {
            Ok(()) => break,
            // Nothing was sent: asking again is safe.
            Err(err) if is_unreachable(&err) => attempts.wait_after(err).await?,
            Err(err) => return Err(err),
        }
    }
    let options = config.options();
    let Some(session) = session else {
        let mut session = start_session(client).await?;
        return builder::run_context(&mut session, attempts, Some(&options), context, body).await;
    };
    let mut context = context;
    let mut body = body;
    match session
        .start_transaction()
        .with_options(options.clone())
        .await
    {
        Err(e) if already_in_progress(&e) => body(session, &mut context).await,
        Ok(()) => {
            attempts.started_by_caller();
            builder::run_context(session, attempts, Some(&options), context, body).await
        }
        Err(e) => match start_error(e) {
            err if is_unreachable(&err) => {
                attempts.wait_after(err).await?;
                builder::run_context(session, attempts, Some(&options), context, body).await
            }
            err => Err(err),
        },
    }
}
