//! `tracing` spans for every helper call, behind the `tracing` feature (off
//! by default; without it none of this is compiled, and an [`Action`] is
//! awaited exactly as before).
//!
//! With the feature on, each [`Action`] (every `Repo`, `Links` and
//! `Through` helper, the finders included) runs in a `DEBUG` span named
//! `helper` of target `schema_core`, and a [`transaction`] run in one named
//! `transaction`. Their fields, recorded when the call ends:
//!
//! | field | what it holds |
//! |---|---|
//! | `collection` | the collection the call works on (the first one, for a helper that writes to two) |
//! | `operation` | the helper's name: `insert`, `link`, `find_one`, `page`... |
//! | `attempts` | how many attempts the call made (a transaction run again, or its commit sent again, is one more), `1` without a retry |
//! | `retry_reason` | why the last retry happened: `TransientTransactionError`, `UnknownTransactionCommitResult` or `server unreachable` |
//! | `commands` | how many commands the call sent, retries included, counted by [`count_commands`] (left empty until a client of the process counts; see there) |
//! | `error` | the error the call returned, if any |
//!
//! Each retry is also a `DEBUG` event in the span, with the attempt about to
//! run, the reason and the error that caused it. A stream's span covers the
//! query that opens it, not the batches it fetches later.
//!
//! ```no_run
//! # async fn demo() -> schema_core::Result<()> {
//! use schema_core::mongodb::{options::ClientOptions, Client};
//!
//! let mut options = ClientOptions::parse("mongodb://localhost:27017").await?;
//! schema_core::trace::count_commands(&mut options);
//! let client = Client::with_options(options)?;
//! # let _ = client;
//! # Ok(())
//! # }
//! ```
//!
//! [`Action`]: crate::exec::action::Action
//! [`transaction`]: crate::txn::transaction

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use mongodb::event::command::CommandEvent;
use mongodb::event::EventHandler;
use mongodb::options::ClientOptions;
use tracing::field::Empty;
use tracing::Span;

use crate::error::Result;

/// Whether a command event handler counts commands ([`count_commands`], or
/// [`on_command`] called at least once): until then `commands` stays empty
/// rather than claim 0.
static COUNTING: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// The tallies of the calls being polled on this thread, outermost
    /// first (a helper polled inside a `transaction` run counts its
    /// commands in both).
    static FRAMES: RefCell<Vec<Arc<Tally>>> = const { RefCell::new(Vec::new()) };
}

/// Installs on `options` a command event handler that counts each command
/// a client made with them sends, in the `commands` field of the helper
/// call it is sent for. It replaces a command event handler set before: one
/// of your own calls [`on_command`] instead.
///
/// The count is per call, the switch per process: until some client counts,
/// `commands` is left empty; once one does, a call through a client of the
/// same process that does not count shows `commands=0`. Install it on every
/// client whose calls you trace.
pub fn count_commands(options: &mut ClientOptions) {
    COUNTING.store(true, Ordering::Relaxed);
    options.command_event_handler = Some(EventHandler::callback(|event| on_command(&event)));
}

/// Counts `event` (when it is a command's start) for the helper calls in
/// progress on this thread: for a command event handler of your own. The
/// driver calls command event callbacks on the task that sends the command.
pub fn on_command(event: &CommandEvent) {
    COUNTING.store(true, Ordering::Relaxed);
    if matches!(event, CommandEvent::Started(_)) {
        FRAMES.with(|frames| {
            for frame in frames.borrow().iter() {
                frame.commands.fetch_add(1, Ordering::Relaxed);
            }
        });
    }
}

/// The span of one helper call.
pub(crate) fn helper_span(collection: &'static str, operation: &'static str) -> Span {
    tracing::debug_span!(
        target: "schema_core",
        "helper",
        collection,
        operation,
        attempts = Empty,
        retry_reason = Empty,
        commands = Empty,
        error = Empty,
    )
}

/// The span of one [`transaction`](crate::txn::transaction).
pub(crate) fn transaction_span() -> Span {
    tracing::debug_span!(
        target: "schema_core",
        "transaction",
        attempts = Empty,
        retry_reason = Empty,
        commands = Empty,
        error = Empty,
    )
}

/// `future`, run in `span`: the span is entered on every poll, the commands
/// sent meanwhile are counted in it, and its outcome is recorded in it.
pub(crate) fn in_span<F, T>(span: Span, future: F) -> impl Future<Output = Result<T>>
where
    F: Future<Output = Result<T>> + Unpin,
{
    Traced {
        inner: future,
        span,
        tally: Arc::default(),
    }
}

/// A retry about to run attempt number `attempt` after `error`, for
/// `reason`: an event, and the figures of the call that retries.
pub(crate) fn retrying(attempt: u32, reason: &'static str, error: &dyn std::fmt::Display) {
    FRAMES.with(|frames| {
        if let Some(frame) = frames.borrow().last() {
            frame.attempts.store(attempt, Ordering::Relaxed);
            if let Ok(mut last) = frame.reason.lock() {
                *last = Some(reason);
            }
        }
    });
    tracing::debug!(target: "schema_core", attempt, reason, %error, "retrying");
}

/// What one call did, recorded in its span when it ends (each field once).
#[derive(Debug)]
struct Tally {
    commands: AtomicU32,
    attempts: AtomicU32,
    reason: Mutex<Option<&'static str>>,
}

impl Default for Tally {
    fn default() -> Self {
        Tally {
            commands: AtomicU32::new(0),
            attempts: AtomicU32::new(1),
            reason: Mutex::new(None),
        }
    }
}

struct Traced<F> {
    inner: F,
    span: Span,
    tally: Arc<Tally>,
}

impl<F, T> Future for Traced<F>
where
    F: Future<Output = Result<T>> + Unpin,
{
    type Output = Result<T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<T>> {
        let this = self.get_mut();
        let _entered = this.span.enter();
        let polled = {
            let _frame = Frame::push(&this.tally);
            Pin::new(&mut this.inner).poll(cx)
        };
        if let Poll::Ready(outcome) = &polled {
            let (span, tally) = (&this.span, &this.tally);
            span.record("attempts", tally.attempts.load(Ordering::Relaxed));
            if let Some(reason) = tally.reason.lock().ok().and_then(|r| *r) {
                span.record("retry_reason", reason);
            }
            if COUNTING.load(Ordering::Relaxed) {
                span.record("commands", tally.commands.load(Ordering::Relaxed));
            }
            if let Err(error) = outcome {
                span.record("error", tracing::field::display(error));
            }
        }
        polled
    }
}

/// A call's tally on this thread's stack while it is polled (popped even
/// when the poll panics).
struct Frame;

impl Frame {
    fn push(tally: &Arc<Tally>) -> Frame {
        FRAMES.with(|frames| frames.borrow_mut().push(tally.clone()));
        Frame
    }
}

impl Drop for Frame {
    fn drop(&mut self) {
        FRAMES.with(|frames| frames.borrow_mut().pop());
    }
}
