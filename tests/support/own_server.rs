//! A server of the test's own on a data directory of its own, so the test
//! can stop it and start it again on the same data and port.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use schema_testkit::server::{Server, ServerOptions};

/// A data directory of the test's own, removed when the test ends.
pub struct DataDir(PathBuf);

impl DataDir {
    /// A new empty directory named after `what`.
    pub fn new(what: &str) -> DataDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir =
            std::env::temp_dir().join(format!("schema-core-{what}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        DataDir(dir)
    }
}

impl Drop for DataDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Starts a server on `dir`, on `port` when given. A port just released may
/// take a moment to be free again: retried for a bounded time.
pub fn start(dir: &DataDir, port: Option<u16>) -> Server {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match Server::start(ServerOptions {
            data_dir: Some(dir.0.clone()),
            port,
            ..Default::default()
        }) {
            Ok(server) => return server,
            Err(e) if Instant::now() < deadline => {
                eprintln!("restart: {e}; retrying");
                std::thread::sleep(Duration::from_millis(500));
            }
            Err(e) => panic!("the server did not start again: {e}"),
        }
    }
}
