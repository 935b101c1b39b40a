//! A small web service on axum whose handlers use `Repo` (insert, get, a
//! listing on an index), and which runs a named consumer in the background
//! with `tokio::spawn`, stopped cleanly on shutdown (Ctrl-C).
//!
//! `cargo run --example service` (uses `MONGODB_URI`, or starts a test
//! server), then, in another terminal:
//!
//! ```text
//! curl -X POST localhost:3000/orders -H 'content-type: application/json' \
//!      -d '{"_id":"o1","status":"new","total_cents":1250,"placed":1}'
//! curl localhost:3000/orders/o1
//! curl 'localhost:3000/orders?status=new'
//! curl localhost:3000/totals
//! ```
//!
//! `PORT` picks the port (3000 by default; 0 for any free one).

mod app;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let client = schema_testkit::server::connect().await?;
    let db = client.database("service");
    let port = std::env::var("PORT").unwrap_or_else(|_| "3000".into());
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    println!("listening on http://{}", listener.local_addr()?);
    let shutdown = async {
        let _ = tokio::signal::ctrl_c().await;
        println!("shutting down");
    };
    let ran = app::run(db, listener, shutdown).await?;
    println!(
        "stopped cleanly: the consumer handled {} changes",
        ran.handled
    );
    Ok(())
}
