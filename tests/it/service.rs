//! The web service example (`examples/service`) run as a user runs it, on
//! the multi-threaded runtime: its routes exercised over HTTP on a loopback
//! port (insert, get, a listing on the index, a duplicate refused with 409),
//! the consumer it spawned keeping the totals per status, and a graceful
//! shutdown that stops the consumer cleanly with every change handled once.

#[path = "../../examples/service/app.rs"]
mod app;

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::support;

/// One request with `Connection: close`: the status code and the body.
async fn http(port: u16, method: &str, path: &str, body: Option<&str>) -> (u16, String) {
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let body = body.unwrap_or("");
    let request = format!(
        "{method} {path} HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\
         content-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    let status = answer[9..12].parse().unwrap();
    let body = answer
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

fn order(id: &str, status: &str, placed: i64) -> String {
    format!(r#"{{"_id":"{id}","status":"{status}","total_cents":1250,"placed":{placed}}}"#)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_web_service_serves_repo_over_http_and_stops_its_consumer_cleanly() {
    let client = support::client().await;
    let db = support::fresh_db(&client, "service").await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let service = tokio::spawn(app::run(db.clone(), listener, async {
        let _ = stopped.await;
    }));

    // The consumer saves where it starts before the first order, so that
    // it counts them all.
    let positions = db.collection::<bson::Document>(schema_core::CONSUMERS);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    while positions
        .find_one(bson::doc! { "_id": "order-totals", "token": { "$type": "object" } })
        .await
        .unwrap()
        .is_none()
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the consumer's start"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    for (id, status, placed) in [("o1", "new", 1), ("o2", "paid", 2), ("o3", "new", 3)] {
        let (code, body) = http(port, "POST", "/orders", Some(&order(id, status, placed))).await;
        assert_eq!(code, 201, "{body}");
    }
    let (code, body) = http(port, "POST", "/orders", Some(&order("o1", "new", 9))).await;
    assert_eq!(code, 409, "a duplicate _id: {body}");
    assert!(body.contains("`_id_`") && !body.contains("1250"), "{body}");

    let (code, body) = http(port, "GET", "/orders/o2", None).await;
    assert_eq!(code, 200);
    let got: app::Order = serde_json::from_str(&body).unwrap();
    assert_eq!(got.status, "paid");
    assert_eq!(http(port, "GET", "/orders/none", None).await.0, 404);

    let (code, body) = http(port, "GET", "/orders?status=new", None).await;
    assert_eq!(code, 200, "{body}");
    let listed: Vec<app::Order> = serde_json::from_str(&body).unwrap();
    let ids: Vec<&str> = listed.iter().map(|o| o.id.as_str()).collect();
    assert_eq!(ids, ["o3", "o1"], "newest first, on the index");

    let expected = serde_json::json!({ "new": 2, "paid": 1 });
    loop {
        let (code, body) = http(port, "GET", "/totals", None).await;
        assert_eq!(code, 200, "{body}");
        if serde_json::from_str::<serde_json::Value>(&body).unwrap() == expected {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "totals: {body}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    stop.send(()).unwrap();
    let ran = service.await.unwrap().unwrap();
    assert_eq!(ran.handled, 3, "{ran:?}");
    let position = positions
        .find_one(bson::doc! { "_id": "order-totals" })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        position.get("holder"),
        Some(&bson::Bson::Null),
        "the lease released"
    );
}
