//! Joins in one round trip against the two-round-trip form, interleaved in
//! one run: 200 users and 20,000 posts (100 per author, seed 000's models).
//!
//! - **family**: a user with their newest 20 posts:
//!   `children(..).page_size(20).with_parent().page()` (one `aggregate`)
//!   vs `children(..).page_size(20).page()` + `parents_of(..)` (a `find`,
//!   then a `find` with `$in`).
//! - **pairs**: 20 posts of 20 authors (20 random `_id`s, `$in`), each
//!   with its author: `find(..).with_parents(..).page(20)` vs
//!   `find(..).page(20)` + `parents_of(..)`.
//!
//! Both run twice: straight to the server (loopback), then through a hop
//! that delays every byte by `DELAY_US` each way (default 250, so a round
//! trip of about 0.5 ms plus the server's time: a server in the same cloud
//! region; see `schema_testkit::latency`). The measured `ping` round trip of
//! each is printed.
//!
//! Each row: median microseconds of each side, commands per operation, and
//! the median of the per-round ratios join/two-trips with their p10-p90.
//!
//! Run: `cargo bench --bench joins` (uses `MONGODB_URI` when set, otherwise
//! starts an embedded `secantusd-rs`). `ROUNDS=N` (default 300).

use std::net::ToSocketAddrs;
use std::time::{Duration, Instant};

use bson::{doc, DateTime};
use mongodb::options::ServerAddress;
use schema_core::prelude::*;
use schema_core::Schema;
use schema_testkit::command_log::CommandLog;
use schema_testkit::models::{Post, Profile, User};
use schema_testkit::stats::{self, Spread};

const USERS: usize = 200;
const PER_USER: usize = 100;
const PAGE: u32 = 20;

fn median_us(times: &[Duration]) -> f64 {
    stats::median(times).as_secs_f64() * 1e6
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[tokio::main]
async fn main() {
    let rounds = env("ROUNDS", 300).max(1) as usize;
    let delay = Duration::from_micros(env("DELAY_US", 250));
    let (client, _) = schema_testkit::counting_client()
        .await
        .expect("a server: set MONGODB_URI or install secantusd-rs");
    let db = client.database("bench_joins");
    db.drop().await.expect("drop");
    seed(&db).await;
    println!(
        "{USERS} users, {} posts; page {PAGE}; {rounds} interleaved rounds; medians in \
         microseconds; ratio: median of the per-round ratios join/two-trips, p10-p90",
        USERS * PER_USER
    );

    // The server's own address, for the hop to forward to.
    let uri = schema_testkit::server::uri().expect("uri");
    let options = mongodb::options::ClientOptions::parse(&uri)
        .await
        .expect("uri");
    let target = match &options.hosts[0] {
        ServerAddress::Tcp { host, port } => (host.as_str(), port.unwrap_or(27017))
            .to_socket_addrs()
            .expect("address")
            .next()
            .expect("an address"),
        other => panic!("a TCP server address, not {other:?}"),
    };
    let proxy = schema_testkit::latency::Proxy::start(target, delay).expect("hop");
    let hop = ServerAddress::Tcp {
        host: proxy.addr().ip().to_string(),
        port: Some(proxy.addr().port()),
    };

    for (name, via) in [("loopback", None), ("delayed", Some(hop))] {
        let (client, log) = schema_testkit::counting_client_with(|o| {
            if let Some(via) = via {
                o.hosts = vec![via];
                o.direct_connection = Some(true);
            }
        })
        .await
        .expect("client");
        let db = client.database("bench_joins");
        let rtt = ping(&db).await;
        println!();
        println!("{name}: ping round trip median {rtt:.0} us");
        println!(
            "{:<8} {:>10} {:>6} | {:>10} {:>6} | {:>6} {:>13}",
            "", "join", "cmds", "two trips", "cmds", "ratio", "p10-p90"
        );
        measure(&db, &log, rounds).await;
    }
}

async fn ping(db: &mongodb::Database) -> f64 {
    let mut times = Vec::new();
    for _ in 0..50 {
        let t = Instant::now();
        db.run_command(doc! { "ping": 1 }).await.expect("ping");
        times.push(t.elapsed());
    }
    median_us(&times)
}

async fn seed(db: &mongodb::Database) {
    Schema::new()
        .with::<User>()
        .with::<Post>()
        .sync(db)
        .await
        .expect("setup");
    let users = Repo::<User>::new(db);
    let posts = Repo::<Post>::new(db);
    let people: Vec<User> = (0..USERS)
        .map(|i| User {
            id: format!("user_{i:03}"),
            email: format!("u{i}@example.test"),
            profile: Profile {
                display_name: format!("User {i}"),
                bio: Some("Writes about data modeling. ".repeat(4)),
                joined_year: 2020 + (i % 7) as i32,
            },
        })
        .collect();
    users.insert_many(&people).await.expect("users");
    let all: Vec<Post> = (0..USERS * PER_USER)
        .map(|i| Post {
            id: format!("post_{i:05}"),
            author_id: format!("user_{:03}", i % USERS),
            title: format!("Post {i}"),
            tags: vec!["mongodb".into(), format!("tag{}", i % 5)],
            at: DateTime::from_millis(1_700_000_000_000 + i as i64 * 1000),
        })
        .collect();
    for chunk in all.chunks(5000) {
        posts.insert_many(chunk).await.expect("posts");
    }
}

/// Times `first` and `second` once each, in that order, with the commands
/// each sent.
async fn pair<A, B>(log: &CommandLog, first: A, second: B) -> ((Duration, usize), (Duration, usize))
where
    A: std::future::Future<Output = Duration>,
    B: std::future::Future<Output = Duration>,
{
    log.clear();
    let a = first.await;
    let a_cmds = log.take().len();
    let b = second.await;
    let b_cmds = log.take().len();
    ((a, a_cmds), (b, b_cmds))
}

/// The rounds of one way of reaching the server.
async fn measure(db: &mongodb::Database, log: &CommandLog, rounds: usize) {
    let users = Repo::<User>::new(db);
    let posts = Repo::<Post>::new(db);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed as usize
    };
    for what in ["family", "pairs"] {
        let (mut join, mut plain) = (Side::default(), Side::default());
        for round in 0..rounds + 3 {
            let id = format!("user_{:03}", next() % USERS);
            let ids: Vec<String> = (0..PAGE)
                .map(|_| format!("post_{:05}", next() % (USERS * PER_USER)))
                .collect();
            let run_join = async {
                let t = Instant::now();
                if what == "family" {
                    let children = posts.children(Post::FIELDS.author_id, &id).page_size(PAGE);
                    let family = children.with_parent().page().await.expect("join");
                    assert!(family.parent.is_some() && family.children.len() == PAGE as usize);
                } else {
                    let page = posts
                        .find(Post::FIELDS.id.is_in(&ids))
                        .with_parents(Post::FIELDS.author_id)
                        .page(PAGE)
                        .await
                        .expect("join");
                    assert!(page.items.iter().all(|(_, u)| u.is_some()));
                }
                t.elapsed()
            };
            let run_plain = async {
                let t = Instant::now();
                let page = if what == "family" {
                    let children = posts.children(Post::FIELDS.author_id, &id).page_size(PAGE);
                    children.page().await.expect("page")
                } else {
                    posts
                        .find(Post::FIELDS.id.is_in(&ids))
                        .page(PAGE)
                        .await
                        .expect("page")
                };
                let parents = users
                    .parents_of(Post::FIELDS.author_id, &page.items)
                    .await
                    .expect("parents");
                assert!(parents.iter().all(Option::is_some));
                t.elapsed()
            };
            // Alternate which side goes first; the first rounds warm up.
            let (j, p) = if round % 2 == 0 {
                pair(log, run_join, run_plain).await
            } else {
                let (p, j) = pair(log, run_plain, run_join).await;
                (j, p)
            };
            if round >= 3 {
                join.push(j);
                plain.push(p);
            }
        }
        row(what, &join, &plain);
    }
}

#[derive(Default)]
struct Side {
    times: Vec<Duration>,
    commands: usize,
}

impl Side {
    fn push(&mut self, (time, commands): (Duration, usize)) {
        self.times.push(time);
        self.commands += commands;
    }

    fn commands_per_op(&self) -> f64 {
        self.commands as f64 / self.times.len().max(1) as f64
    }
}

fn row(name: &str, join: &Side, plain: &Side) {
    let ratio = Spread::of_ratios(&join.times, &plain.times);
    println!(
        "{:<8} {:>10.0} {:>6.2} | {:>10.0} {:>6.2} | {:>6.3} {:>13}",
        name,
        median_us(&join.times),
        join.commands_per_op(),
        median_us(&plain.times),
        plain.commands_per_op(),
        ratio.median,
        ratio.range()
    );
}
