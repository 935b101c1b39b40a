//! The names of the commands a client sends, recorded from its command
//! events. Shared by the examples (`common`) and the tests (`support`).

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use mongodb::event::command::CommandEvent;
use mongodb::event::EventHandler;
use mongodb::options::ClientOptions;

/// The names of the commands a client sent, in order.
#[derive(Clone, Default)]
pub struct CommandLog(Arc<Mutex<Vec<String>>>);

impl CommandLog {
    /// Records the name of every command that a client made with `options`
    /// sends.
    pub fn record(&self, options: &mut ClientOptions) {
        let sink = self.clone();
        options.command_event_handler = Some(EventHandler::callback(move |ev: CommandEvent| {
            if let CommandEvent::Started(started) = ev {
                sink.names_mut().push(started.command_name.clone());
            }
        }));
    }

    /// The names recorded so far (a panic elsewhere does not lose them).
    fn names_mut(&self) -> MutexGuard<'_, Vec<String>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Every command name sent so far.
    pub fn names(&self) -> Vec<String> {
        self.names_mut().clone()
    }

    /// Forgets what was sent so far.
    pub fn clear(&self) {
        self.names_mut().clear();
    }

    /// The operations sent since the last [`clear`](Self::clear): the
    /// commands that are not handshakes or heartbeats.
    pub fn operations(&self) -> Vec<String> {
        self.names()
            .into_iter()
            .filter(|n| {
                !matches!(
                    n.as_str(),
                    "hello"
                        | "isMaster"
                        | "ismaster"
                        | "saslStart"
                        | "saslContinue"
                        | "endSessions"
                )
            })
            .collect()
    }
}
