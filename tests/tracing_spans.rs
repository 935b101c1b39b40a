//! With the `tracing` feature, every helper call runs in a `helper` span
//! holding its collection, operation, attempts, last retry reason, the
//! commands it sent and its error, and a `transaction(..)` run in a
//! `transaction` span around the helpers it runs. The spans are captured by
//! a subscriber layer of the test's own; the commands a span claims are
//! checked against the commands the client's event handler saw meanwhile.
//!
//! `cargo test --features tracing --test tracing_spans`

mod models;
mod support;

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use models::{Course, Student};
use mongodb::event::command::CommandEvent;
use mongodb::event::EventHandler;
use mongodb::options::ClientOptions;
use mongodb::Client;
use schema_core::prelude::*;
use schema_core::{transaction, Error};
use support::failpoint::{self, FAILPOINT};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;

/// The fields of a span or an event, as text.
#[derive(Debug, Clone, Default, PartialEq)]
struct Fields(BTreeMap<String, String>);

impl Fields {
    fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }
}

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

/// A closed span: its name, fields and the name of its parent.
#[derive(Debug, Clone)]
struct Closed {
    name: &'static str,
    fields: Fields,
    parent: Option<&'static str>,
}

/// What the layer saw: closed spans and events, in order.
#[derive(Default)]
struct Seen {
    spans: Vec<Closed>,
    events: Vec<Fields>,
}

#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Seen>>);

impl Capture {
    fn lock(&self) -> MutexGuard<'_, Seen> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The spans closed since the last call.
    fn take_spans(&self) -> Vec<Closed> {
        std::mem::take(&mut self.lock().spans)
    }

    fn take_events(&self) -> Vec<Fields> {
        std::mem::take(&mut self.lock().events)
    }
}

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Capture {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut fields = Fields::default();
        attrs.record(&mut fields);
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(fields);
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id) {
            if let Some(fields) = span.extensions_mut().get_mut::<Fields>() {
                values.record(fields);
            }
        }
    }

    fn on_event(&self, event: &Event<'_>, _ctx: Context<'_, S>) {
        let mut fields = Fields::default();
        event.record(&mut fields);
        self.lock().events.push(fields);
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(&id) {
            let fields = span
                .extensions()
                .get::<Fields>()
                .cloned()
                .unwrap_or_default();
            let parent = span.parent().map(|p| p.name());
            self.lock().spans.push(Closed {
                name: span.name(),
                fields,
                parent,
            });
        }
    }
}

/// The commands a client started, as its event handler saw them; the same
/// handler counts them for the spans.
#[derive(Clone, Default)]
struct Started(Arc<Mutex<Vec<String>>>);

impl Started {
    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// A client named `app` (for the failpoint) whose commands are counted for
/// the spans and recorded in the returned log.
async fn traced_client(app: &str) -> (Client, Started) {
    let mut options = ClientOptions::parse(support::uri()).await.unwrap();
    options.app_name = Some(app.to_owned());
    let started = Started::default();
    let log = started.clone();
    options.command_event_handler = Some(EventHandler::callback(move |event: CommandEvent| {
        schema_core::trace::on_command(&event);
        if let CommandEvent::Started(s) = event {
            log.0.lock().unwrap().push(s.command_name);
        }
    }));
    (Client::with_options(options).unwrap(), started)
}

/// The one `helper` span closed since the last call.
fn one_helper(capture: &Capture) -> Fields {
    let spans = capture.take_spans();
    let helpers: Vec<&Closed> = spans.iter().filter(|s| s.name == "helper").collect();
    assert_eq!(helpers.len(), 1, "one helper span: {spans:#?}");
    helpers[0].fields.clone()
}

fn count(n: usize) -> String {
    n.to_string()
}

#[tokio::test]
async fn every_helper_call_has_a_span_with_what_it_did() {
    let _turn = FAILPOINT.lock().await;
    let app = "tracing_spans";
    let capture = Capture::default();
    let _subscriber =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(capture.clone()));
    let (client, started) = traced_client(app).await;
    let db = support::fresh_db(&client, app).await;
    models::school::schema().sync(&db).await.unwrap();
    let students = Repo::<Student>::new(&db);
    let courses = Repo::<Course>::new(&db);
    let links = Links::new(&db, Student::FIELDS.course_ids);
    capture.take_spans();
    started.take();

    // A plain insert: one command.
    students.insert(&Student::new("s0", "Ada")).await.unwrap();
    let span = one_helper(&capture);
    assert_eq!(span.get("collection"), Some("students"));
    assert_eq!(span.get("operation"), Some("insert"));
    assert_eq!(span.get("attempts"), Some("1"));
    assert_eq!(span.get("retry_reason"), None);
    assert_eq!(span.get("error"), None);
    assert_eq!(
        span.get("commands"),
        Some(count(started.take().len()).as_str())
    );
    courses.insert(&Course::new("c0", "Algebra")).await.unwrap();
    capture.take_spans();
    started.take();

    // A two-sided link: both updates and the commit, in one transaction.
    links
        .link(&"s0".to_owned(), &"c0".to_owned())
        .await
        .unwrap();
    let span = one_helper(&capture);
    let sent = started.take();
    assert!(sent.iter().any(|c| c == "commitTransaction"), "{sent:?}");
    assert_eq!(span.get("operation"), Some("link"));
    assert_eq!(span.get("attempts"), Some("1"));
    assert_eq!(span.get("commands"), Some(count(sent.len()).as_str()));

    // A write conflict on the first update: the link runs twice, and the
    // span says so, with the reason; the retry is an event of its own.
    courses.insert(&Course::new("c1", "Biology")).await.unwrap();
    capture.take_spans();
    started.take();
    capture.take_events();
    failpoint::conflict(&client, app, 1, &["update"]).await;
    capture.take_spans();
    started.take();
    let linked = links.link(&"s0".to_owned(), &"c1".to_owned()).await;
    failpoint::off(&client).await;
    linked.unwrap();
    let spans = capture.take_spans();
    let span = spans
        .iter()
        .find(|s| s.name == "helper" && s.fields.get("operation") == Some("link"))
        .expect("the link's span")
        .fields
        .clone();
    let sent: Vec<String> = started
        .take()
        .into_iter()
        .filter(|c| c != "configureFailPoint")
        .collect();
    assert_eq!(span.get("attempts"), Some("2"), "{span:?}");
    assert_eq!(span.get("retry_reason"), Some("TransientTransactionError"));
    assert_eq!(
        span.get("commands"),
        Some(count(sent.len()).as_str()),
        "{sent:?}"
    );
    assert!(
        sent.iter().filter(|c| *c == "update").count() >= 3,
        "the failed update and both of the second attempt: {sent:?}"
    );
    let retries: Vec<Fields> = capture
        .take_events()
        .into_iter()
        .filter(|e| e.get("message") == Some("retrying"))
        .collect();
    assert_eq!(retries.len(), 1, "{retries:?}");
    assert_eq!(retries[0].get("attempt"), Some("2"));
    assert_eq!(retries[0].get("reason"), Some("TransientTransactionError"));

    // A refused query: its error is in the span, and nothing was sent.
    let refused = students
        .find_one(Student::FIELDS.name.eq("Ada"))
        .await
        .unwrap_err();
    assert!(matches!(refused, Error::Unindexed { .. }), "{refused}");
    let span = one_helper(&capture);
    assert_eq!(span.get("operation"), Some("find_one"));
    assert_eq!(span.get("commands"), Some("0"));
    assert_eq!(span.get("error"), Some(refused.to_string().as_str()));
    assert!(started.take().is_empty());

    // A transaction of the caller's: its span holds the helpers' spans, and
    // counts their commands and its own (the commit).
    transaction(&client)
        .run(async |s| {
            students
                .insert(&Student::new("s1", "Grace"))
                .session(&mut *s)
                .await?;
            courses.get(&"c0".to_owned()).session(&mut *s).await?;
            Ok(())
        })
        .await
        .unwrap();
    let spans = capture.take_spans();
    let sent = started.take();
    let inner: Vec<&Closed> = spans.iter().filter(|s| s.name == "helper").collect();
    assert_eq!(inner.len(), 2, "{spans:#?}");
    assert!(
        inner.iter().all(|s| s.parent == Some("transaction")),
        "{spans:#?}"
    );
    let (insert, get) = (&inner[0].fields, &inner[1].fields);
    assert_eq!(
        (insert.get("operation"), get.get("operation")),
        (Some("insert"), Some("get"))
    );
    let transaction = spans
        .iter()
        .find(|s| s.name == "transaction")
        .expect("the transaction's span");
    assert_eq!(transaction.fields.get("attempts"), Some("1"));
    assert_eq!(
        transaction.fields.get("commands"),
        Some(count(sent.len()).as_str()),
        "{sent:?}"
    );
    let in_helpers: usize = [insert, get]
        .iter()
        .map(|f| f.get("commands").unwrap().parse::<usize>().unwrap())
        .sum();
    assert!(
        sent.len() > in_helpers,
        "the commit is the transaction's own: {sent:?}"
    );
}

/// A model sharded on the room: by `_id` alone, a query goes to every shard.
#[derive(Document, serde::Serialize, serde::Deserialize)]
#[document(collection = "traced_messages", shard_key(room_id))]
struct Message {
    #[serde(rename = "_id")]
    id: String,
    #[serde(rename = "roomId")]
    room_id: String,
}

#[tokio::test]
async fn a_broadcast_on_a_sharded_model_is_a_warning() {
    let capture = Capture::default();
    let _subscriber =
        tracing::subscriber::set_default(tracing_subscriber::registry().with(capture.clone()));
    let (client, _started) = traced_client("tracing_broadcasts").await;
    let db = support::fresh_db(&client, "tracing_broadcasts").await;
    schema_core::Schema::new()
        .with::<Message>()
        .sync(&db)
        .await
        .unwrap();
    let messages = Repo::<Message>::new(&db);
    let broadcasts = |capture: &Capture| -> Vec<Fields> {
        capture
            .take_events()
            .into_iter()
            .filter(|e| e.get("shard_key").is_some())
            .collect()
    };
    messages.get(&"m1".to_owned()).await.unwrap();
    let seen = broadcasts(&capture);
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].get("operation"), Some("get"));
    assert_eq!(seen[0].get("collection"), Some("traced_messages"));
    assert_eq!(seen[0].get("shard_key"), Some("{ \"roomId\": 1 }"));
    assert!(seen[0]
        .get("message")
        .is_some_and(|m| m.contains("goes to every shard")));
    // By the shard key: one shard, no warning (and no value in any event).
    let lobby = "lobby".to_owned();
    messages
        .find(Message::FIELDS.room_id.eq(&lobby))
        .all()
        .await
        .unwrap();
    assert!(broadcasts(&capture).is_empty());
    messages.delete(&"m1".to_owned()).await.unwrap();
    let seen = broadcasts(&capture);
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert!(!format!("{seen:?}").contains("m1"), "no value: {seen:?}");
}
