//! Connecting to a server: `MONGODB_URI` when set, otherwise an embedded
//! `secantusd-rs` (a MongoDB-wire-compatible single-node replica set over
//! WiredTiger) started on a free port with a temporary data directory and
//! `--sync-on-commit`, so a commit is on disk before it is acknowledged and
//! survives a `kill -9` ([`ServerOptions::sync_on_commit`]).
//!
//! Tests, examples and benchmarks use [`connect`]; tests that need a server of
//! their own (standalone, `--auth`, a restart on the same data) use
//! [`ServerOptions`] and [`Server`].
//!
//! Every server started here is watched by a small shell loop that stops it
//! (SIGTERM, so WiredTiger closes cleanly) and removes its temporary directory
//! when the process that started it exits, even if that process never runs
//! its destructors (a test binary's statics are never dropped).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{mpsc, OnceLock};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The server binary's name on `PATH`.
pub const SERVER_BINARY: &str = "secantusd-rs";

/// How to install the server binary, quoted in every "not found" error.
pub const INSTALL_HINT: &str = "install it with `scripts/install-server.sh` \
(that is: `apt-get install -y cmake` then \
`cargo install secantus-mdb --version 0.5.3-beta.196 --ignore-rust-version --locked`), \
put it on PATH or name it in SECANTUSD, or set MONGODB_URI to a running server";

/// Why a server could not be started.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    /// The binary is not installed.
    #[error("`{SERVER_BINARY}` was not found on PATH nor in ~/.cargo/bin: {INSTALL_HINT}")]
    NotInstalled,
    /// Spawning or talking to the process failed.
    #[error("could not run `{binary}`: {source}")]
    Io {
        /// The binary that was run.
        binary: String,
        /// The cause.
        source: std::io::Error,
    },
    /// The process exited or said nothing in time.
    #[error("`{SERVER_BINARY}` did not start: {reason}; its log ends with:\n{log}")]
    DidNotStart {
        /// What went wrong.
        reason: String,
        /// The last lines of its log.
        log: String,
    },
    /// The driver rejected the URI or could not connect.
    #[error(transparent)]
    Driver(#[from] mongodb::error::Error),
}

/// How to start a server.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// Advertise a plain standalone (no replica set, so no transactions).
    pub standalone: bool,
    /// Require SCRAM authentication.
    pub auth: bool,
    /// Use this data directory (kept on stop) instead of a fresh temporary one.
    pub data_dir: Option<PathBuf>,
    /// Listen on this port instead of a free one.
    pub port: Option<u16>,
    /// Fsync the write-ahead log on every commit (`--sync-on-commit`), so an
    /// acknowledged write survives a `kill -9`. On by default; without it the
    /// server acknowledges a commit up to ~100 ms before it is on disk
    /// (turned off only to measure that, see RELIABILITY.md).
    pub sync_on_commit: bool,
    /// More arguments for the server (`--oplog-max-entries 50`, say).
    pub extra_args: Vec<String>,
}

impl Default for ServerOptions {
    fn default() -> ServerOptions {
        ServerOptions {
            standalone: false,
            auth: false,
            data_dir: None,
            port: None,
            sync_on_commit: true,
            extra_args: Vec::new(),
        }
    }
}

/// A running server process, stopped when dropped.
#[derive(Debug)]
pub struct Server {
    watchdog: Child,
    root: PathBuf,
    data_dir: PathBuf,
    owns_data: bool,
    port: u16,
    options: ServerOptions,
}

static COUNTER: AtomicU32 = AtomicU32::new(0);

impl Server {
    /// Starts a server with these options and waits until it listens.
    pub fn start(options: ServerOptions) -> Result<Server, ServerError> {
        let binary = find_binary().ok_or(ServerError::NotInstalled)?;
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let root = std::env::temp_dir().join(format!(
            "schema-core-server-{}-{}-{nanos}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let (data_dir, owns_data) = match &options.data_dir {
            Some(dir) => (dir.clone(), false),
            None => (root.join("data"), true),
        };
        let io = |source| ServerError::Io {
            binary: binary.display().to_string(),
            source,
        };
        std::fs::create_dir_all(&data_dir).map_err(io)?;
        std::fs::create_dir_all(&root).map_err(io)?;

        let mut args = vec![
            "--host".to_owned(),
            "127.0.0.1".to_owned(),
            "--port".to_owned(),
            options.port.unwrap_or(0).to_string(),
            "--storage-path".to_owned(),
            data_dir.display().to_string(),
            "--cache-size".to_owned(),
            "256M".to_owned(),
            "--enable-test-commands".to_owned(),
        ];
        if options.standalone {
            args.push("--standalone".to_owned());
        }
        if options.auth {
            args.push("--auth".to_owned());
        }
        if options.sync_on_commit {
            args.push("--sync-on-commit".to_owned());
        }
        args.extend(options.extra_args.iter().cloned());
        let mut watchdog = Command::new("sh")
            .arg("-c")
            .arg(WATCHDOG)
            .arg(&binary)
            .args(&args)
            .env("WATCH_PID", std::process::id().to_string())
            .env("WATCH_ROOT", &root)
            .env("WATCH_REMOVE", if owns_data { "1" } else { "0" })
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(io)?;
        let stdout = watchdog
            .stdout
            .take()
            .ok_or_else(|| ServerError::DidNotStart {
                reason: "no stdout".into(),
                log: String::new(),
            })?;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Some(addr) = line.split("listening on ").nth(1) {
                    let _ = tx.send(addr.trim().to_owned());
                }
            }
        });
        let fail = |reason: String, root: &Path| ServerError::DidNotStart {
            reason,
            log: log_tail(root),
        };
        let addr = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(addr) => addr,
            Err(_) => {
                let _ = watchdog.kill();
                return Err(fail("no `listening on` line within 60 s".into(), &root));
            }
        };
        let port = addr
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .ok_or_else(|| fail(format!("unreadable address `{addr}`"), &root))?;
        Ok(Server {
            watchdog,
            root,
            data_dir,
            owns_data,
            port,
            options,
        })
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Its data directory.
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// A connection string for it (direct connection, no credentials).
    pub fn uri(&self) -> String {
        format!("mongodb://127.0.0.1:{}/?directConnection=true", self.port)
    }

    /// A connection string with SCRAM credentials (for `--auth` servers).
    pub fn uri_with_credentials(&self, user: &str, password: &str) -> String {
        format!(
            "mongodb://{user}:{password}@127.0.0.1:{}/?directConnection=true&authSource=admin",
            self.port
        )
    }

    /// The options it was started with.
    pub fn options(&self) -> &ServerOptions {
        &self.options
    }

    /// Stops it (SIGTERM, clean shutdown) and waits up to 30 s for the exit.
    /// A temporary data directory is removed; a given one is kept, so a new
    /// server can be started on the same data.
    pub fn stop(&mut self) {
        let _ = std::fs::write(self.root.join("stop"), b"");
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.watchdog.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.watchdog.kill();
        let _ = self.watchdog.wait();
        let _ = std::fs::remove_dir_all(&self.root);
    }

    /// Kills the server process with SIGKILL (no clean shutdown: whatever
    /// it has not made durable is lost) and waits for it to exit. A given
    /// data directory is kept, so a new server can recover from it.
    pub fn kill(&mut self) -> Result<(), ServerError> {
        let io = |source| ServerError::Io {
            binary: "kill".to_owned(),
            source,
        };
        let pid = std::fs::read_to_string(self.root.join("pid")).map_err(io)?;
        let status = Command::new("kill")
            .args(["-9", pid.trim()])
            .status()
            .map_err(io)?;
        if !status.success() {
            return Err(io(std::io::Error::other(format!(
                "`kill -9 {}` failed: {status}",
                pid.trim()
            ))));
        }
        // The watchdog notices the server is gone and exits.
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.watchdog.try_wait() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.stop();
        Ok(())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
        if self.owns_data {
            let _ = std::fs::remove_dir_all(&self.data_dir);
        }
    }
}

/// Runs the server, and stops it when the stop file appears or the process
/// that started it is gone; then removes the temporary directory.
const WATCHDOG: &str = r#"
bin="$0"
"$bin" "$@" 2>"$WATCH_ROOT/server.log" &
s=$!
echo "$s" >"$WATCH_ROOT/pid"
while kill -0 "$WATCH_PID" 2>/dev/null && kill -0 "$s" 2>/dev/null && [ ! -e "$WATCH_ROOT/stop" ]; do
  sleep 0.1
done
kill "$s" 2>/dev/null
wait "$s"
code=$?
if [ "$WATCH_REMOVE" = 1 ] && ! kill -0 "$WATCH_PID" 2>/dev/null; then rm -rf "$WATCH_ROOT"; fi
exit $code
"#;

fn log_tail(root: &Path) -> String {
    let log = std::fs::read_to_string(root.join("server.log")).unwrap_or_default();
    let lines: Vec<&str> = log.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}

/// Finds the server binary: `SECANTUSD`, then `PATH`, then `~/.cargo/bin`.
pub fn find_binary() -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    if let Some(cargo_home) = std::env::var_os("CARGO_HOME") {
        dirs.push(PathBuf::from(cargo_home).join("bin"));
    }
    if let Some(home) = std::env::var_os("HOME") {
        dirs.push(PathBuf::from(home).join(".cargo/bin"));
    }
    locate(std::env::var_os("SECANTUSD").map(PathBuf::from), dirs)
}

/// The explicit binary when it exists, else the first `secantusd-rs` in `dirs`.
fn locate(explicit: Option<PathBuf>, dirs: Vec<PathBuf>) -> Option<PathBuf> {
    match explicit {
        Some(path) => path.is_file().then_some(path),
        None => dirs
            .into_iter()
            .map(|d| d.join(SERVER_BINARY))
            .find(|p| p.is_file()),
    }
}

/// The connection string to use: `MONGODB_URI` when set, otherwise one
/// embedded server for the whole process, started on first use.
pub fn uri() -> Result<String, ServerError> {
    if let Ok(uri) = std::env::var("MONGODB_URI") {
        if !uri.is_empty() {
            return Ok(uri);
        }
    }
    static SHARED: OnceLock<Result<Server, String>> = OnceLock::new();
    match SHARED.get_or_init(|| Server::start(ServerOptions::default()).map_err(|e| e.to_string()))
    {
        Ok(server) => Ok(server.uri()),
        Err(e) => Err(ServerError::DidNotStart {
            reason: e.clone(),
            log: String::new(),
        }),
    }
}

/// A driver client for [`uri`]. Create one per async runtime: a client's
/// background tasks live on the runtime that created it.
pub async fn connect() -> Result<mongodb::Client, ServerError> {
    let uri = uri()?;
    Ok(mongodb::Client::with_uri_str(&uri).await?)
}

/// Whether the server in use is the embedded one (so data is throwaway).
pub fn is_embedded() -> bool {
    std::env::var("MONGODB_URI").map_or(true, |u| u.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_binary_is_not_found_and_the_error_says_how_to_install_it() {
        let nowhere = std::env::temp_dir().join("schema-core-no-such-dir");
        assert_eq!(locate(None, vec![nowhere.clone()]), None);
        assert_eq!(locate(Some(nowhere.join(SERVER_BINARY)), vec![]), None);
        let message = ServerError::NotInstalled.to_string();
        assert!(message.contains("scripts/install-server.sh"), "{message}");
        assert!(
            message.contains(
                "cargo install secantus-mdb --version 0.5.3-beta.196 --ignore-rust-version --locked"
            ),
            "{message}"
        );
        assert!(message.contains("MONGODB_URI"), "{message}");
    }
}
