//! A TCP hop that adds a fixed delay each way, for benchmarks that must
//! show what a round trip costs on a network (the test server on loopback
//! answers a `ping` in about 0.1 ms; a server in the same cloud region is
//! 0.5 to 1 ms away). Every byte the client sends reaches the server
//! `delay` later, and every reply byte comes back `delay` later: a real
//! server over a slower wire, nothing answered in its place.
//!
//! Each connection is two OS threads per direction (a reader that stamps
//! what it read, a writer that sleeps until the stamp plus `delay`), so
//! delays do not add up across pipelined writes. `std::thread::sleep`
//! overshoots by some tens of microseconds: measure the round trip the
//! benchmark gets (e.g. a `ping`) and print it.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// A listening delay hop in front of `target`.
#[derive(Debug)]
pub struct Proxy {
    addr: SocketAddr,
}

impl Proxy {
    /// Listens on a free loopback port and forwards each connection to
    /// `target`, `delay` each way. The threads live as long as the process.
    pub fn start(target: SocketAddr, delay: Duration) -> std::io::Result<Proxy> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        thread::spawn(move || {
            for client in listener.incoming().flatten() {
                let Ok(server) = TcpStream::connect(target) else {
                    continue;
                };
                let _ = client.set_nodelay(true);
                let _ = server.set_nodelay(true);
                if let (Ok(c2), Ok(s2)) = (client.try_clone(), server.try_clone()) {
                    pipe(client, s2, delay);
                    pipe(server, c2, delay);
                }
            }
        });
        Ok(Proxy { addr })
    }

    /// Where clients connect.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }
}

/// Copies `from` to `to`, each chunk written `delay` after it was read.
fn pipe(mut from: TcpStream, mut to: TcpStream, delay: Duration) {
    let (tx, rx) = mpsc::channel::<(Instant, Vec<u8>)>();
    thread::spawn(move || {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if tx
                        .send((Instant::now() + delay, buf[..n].to_vec()))
                        .is_err()
                    {
                        break;
                    }
                }
            }
        }
    });
    thread::spawn(move || {
        for (due, bytes) in rx {
            let now = Instant::now();
            if due > now {
                thread::sleep(due - now);
            }
            if to.write_all(&bytes).is_err() {
                break;
            }
        }
        let _ = to.shutdown(Shutdown::Write);
    });
}
