//! The queue of links waiting on one target document ([`Combiner`]), shared
//! by a `Links` and its clones: the next link to run takes those that
//! arrived meanwhile (see [`combine`](super::combine)).

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use bson::Bson;
use tokio::sync::oneshot;

use crate::error::Result;

/// The links waiting on each target document (shared by a `Links` and its
/// clones).
#[derive(Debug, Default)]
pub(crate) struct Combiner {
    queues: Mutex<HashMap<String, VecDeque<Waiter>>>,
}

/// A link waiting for its turn.
#[derive(Debug)]
pub(crate) struct Waiter {
    pub(super) left: Bson,
    pub(super) turn: oneshot::Sender<Turn>,
}

/// What a waiting link is told.
#[derive(Debug)]
pub(super) enum Turn {
    /// Written (or refused) by another caller's combined transaction.
    Done(Result<()>),
    /// Its turn to run, with the links that waited behind it.
    Lead(Vec<Waiter>),
    /// The combined transaction failed: run alone.
    Alone,
}

impl Combiner {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, VecDeque<Waiter>>> {
        self.queues.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Hands the target `key` to the first link waiting on it, with the
    /// others behind it; or frees it when none waits.
    pub(super) fn hand_over(&self, key: &str) {
        let mut queues = self.lock();
        let Some(waiting) = queues.get_mut(key) else {
            return;
        };
        let mut batch: Vec<Waiter> = waiting.drain(..).collect();
        while !batch.is_empty() {
            let first = batch.remove(0);
            match first.turn.send(Turn::Lead(batch)) {
                Ok(()) => return,
                // That caller stopped waiting: the next one leads.
                Err(Turn::Lead(rest)) => batch = rest,
                Err(_) => return,
            }
        }
        queues.remove(key);
    }
}

/// Hands the target over when the leader is done (or dropped).
pub(super) struct HandOver<'c> {
    pub(super) combiner: &'c Combiner,
    pub(super) key: String,
}

impl Drop for HandOver<'_> {
    fn drop(&mut self) {
        self.combiner.hand_over(&self.key);
    }
}
