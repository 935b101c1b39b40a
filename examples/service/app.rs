//! The web service of `examples/service`: its model, its HTTP routes on
//! `Repo`, and a consumer that keeps the totals per status, spawned beside
//! the server and stopped cleanly when the server shuts down. Shared with
//! the test that runs it over HTTP (`tests/it/service.rs`).

use std::future::Future;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use schema_core::bson::{doc, Document as BsonDocument};
use schema_core::mongodb::{Collection, Database};
use schema_core::prelude::*;
use schema_core::{Change, Consumer, Error, Ran, Schema};
use serde::{Deserialize, Serialize};

/// An order, looked up by `_id` and listed by status, newest first.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "service_orders", index(keys(status = asc, placed = desc)))]
pub struct Order {
    #[serde(rename = "_id")]
    pub id: String,
    pub status: String,
    pub total_cents: i64,
    /// When it was placed, in milliseconds since the epoch.
    pub placed: i64,
}

/// The collection the consumer keeps: one document per status, `n` orders.
pub const TOTALS: &str = "service_totals";

/// The most orders a listing returns.
const PAGE: u64 = 100;

/// The models, for setup.
pub fn schema() -> Schema {
    Schema::new().with::<Order>()
}

/// What the handlers share.
#[derive(Clone)]
struct App {
    orders: Repo<Order>,
    totals: Collection<BsonDocument>,
}

/// Serves the routes on `listener` until `shutdown` completes, with the
/// consumer `order-totals` running in a spawned task; then stops the
/// consumer (it finishes the change it is handling and releases its lease)
/// and returns what it did.
pub async fn run(
    db: Database,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<Ran, Box<dyn std::error::Error + Send + Sync>> {
    schema().sync(&db).await?;
    let app = App {
        orders: Repo::new(&db),
        totals: db.collection(TOTALS),
    };
    let consumer = Arc::new(Consumer::new("order-totals", &app.orders));
    let stopper = consumer.stopper();
    let totals = app.totals.clone();
    let counting = tokio::spawn(async move {
        consumer
            .run(&totals, |session, totals, event| {
                Box::pin(async move {
                    if let Change::Insert(order) = &event.change {
                        totals
                            .update_one(doc! { "_id": &order.status }, doc! { "$inc": { "n": 1 } })
                            .upsert(true)
                            .session(session)
                            .await?;
                    }
                    Ok(())
                })
            })
            .await
    });
    let router = Router::new()
        .route("/orders", get(list).post(place))
        .route("/orders/{id}", get(one))
        .route("/totals", get(totals_by_status))
        .with_state(app);
    axum::serve(listener, router)
        .with_graceful_shutdown(shutdown)
        .await?;
    stopper.stop();
    Ok(counting.await??)
}

/// A framework error as an HTTP answer: a duplicate `_id` is a conflict,
/// a document the model's rules refuse a bad request, the rest a server
/// error. The message names the field and the rule, never stored values.
struct Failed(Error);

impl IntoResponse for Failed {
    fn into_response(self) -> Response {
        let status = match &self.0 {
            Error::DuplicateKey { .. } => StatusCode::CONFLICT,
            Error::ValidationFailed { .. } | Error::OverBound { .. } | Error::TooLarge { .. } => {
                StatusCode::BAD_REQUEST
            }
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        (status, self.0.to_string()).into_response()
    }
}

impl From<Error> for Failed {
    fn from(e: Error) -> Self {
        Failed(e)
    }
}

/// `POST /orders`: inserts the order.
async fn place(State(app): State<App>, Json(order): Json<Order>) -> Result<StatusCode, Failed> {
    app.orders.insert(&order).await?;
    Ok(StatusCode::CREATED)
}

/// `GET /orders/{id}`: the order, or 404.
async fn one(State(app): State<App>, Path(id): Path<String>) -> Result<Response, Failed> {
    Ok(match app.orders.get(&id).await? {
        Some(order) => Json(order).into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    })
}

#[derive(Deserialize)]
struct ByStatus {
    status: String,
}

/// `GET /orders?status=..`: the newest orders of a status, on the index.
async fn list(
    State(app): State<App>,
    Query(by): Query<ByStatus>,
) -> Result<Json<Vec<Order>>, Failed> {
    let orders = app
        .orders
        .find(Order::FIELDS.status.eq(&by.status))
        .sort(Order::FIELDS.placed.desc())
        .limit(PAGE)
        .all()
        .await?;
    Ok(Json(orders))
}

/// `GET /totals`: the consumer's count of orders per status.
async fn totals_by_status(State(app): State<App>) -> Result<Json<BsonDocument>, Failed> {
    let mut totals = BsonDocument::new();
    let mut cursor = app
        .totals
        .find(doc! {})
        .await
        .map_err(|e| Failed(e.into()))?;
    while cursor.advance().await.map_err(|e| Failed(e.into()))? {
        let row = cursor.deserialize_current().map_err(|e| Failed(e.into()))?;
        if let (Ok(status), Some(n)) = (row.get_str("_id"), row.get("n")) {
            totals.insert(status, n.clone());
        }
    }
    Ok(Json(totals))
}
