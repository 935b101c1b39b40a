//! `Schema::diagram`: the examples' models as Mermaid flowcharts. The
//! diagrams checked in under `docs/diagrams.md` are the ones the models
//! draw today (refresh with
//! `DIAGRAMS=overwrite cargo test --test it -- schema::diagram`), and each
//! line is a node or an edge of the flowchart grammar the diagram uses.

use crate::example_models;

use example_models::{blog, catalog, chat, orders, school};
use schema_core::Schema;

const FILE: &str = "docs/diagrams.md";

fn diagrams() -> Vec<(&'static str, Schema)> {
    vec![
        (
            "blog (seed 000: users and posts)",
            Schema::new().with::<blog::User>().with::<blog::Post>(),
        ),
        ("school (seed 000: students and courses)", school::schema()),
        (
            "chat (seed 000: a room and its messages)",
            Schema::new()
                .with::<chat::Room>()
                .with::<chat::RoomMessage>(),
        ),
        (
            "orders (seed 001: embedded line items, referenced products)",
            Schema::new()
                .with::<orders::Order>()
                .with::<orders::Product>(),
        ),
        (
            "catalog (seed 004: products, skus and the copied colors)",
            Schema::new()
                .with::<catalog::Product>()
                .with::<catalog::Sku>(),
        ),
    ]
}

fn document() -> String {
    let mut out = String::from(
        "# The examples' models, drawn\n\n\
         `Schema::diagram()` for the models of each example (`examples/models/`), as\n\
         Mermaid flowcharts: collections, embedded arrays with their `max`, references\n\
         with the index they ride (and their delete policy), id-array links (two-sided\n\
         ones both ways), and copies of a referenced field (dotted). Kept current by\n\
         `tests/it/schema/diagram.rs`; [back to the README](../README.md).\n",
    );
    for (title, schema) in diagrams() {
        out.push_str(&format!(
            "\n## {title}\n\n```mermaid\n{}```\n",
            schema.diagram()
        ));
    }
    out.push_str(&format!(
        "\n## schema (every example's models but `orders`, as \
         `cargo run --example schema -- diagram` prints them)\n\n{}",
        command_diagram()
    ));
    out
}

/// What the `schema` example's command prints for `diagram`.
fn command_diagram() -> String {
    let mut printed: Vec<u8> = Vec::new();
    let schema = example_models::all();
    let run = schema_core::cli::run_with(&schema, ["schema", "diagram"], &mut printed);
    let outcome = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(run)
        .unwrap();
    assert_eq!(outcome, schema_core::cli::Outcome::Done);
    String::from_utf8(printed).unwrap()
}

#[test]
fn the_checked_in_diagrams_are_the_models_of_today() {
    let wanted = document();
    if std::env::var("DIAGRAMS").as_deref() == Ok("overwrite") {
        std::fs::write(FILE, &wanted).unwrap();
    }
    let stored = std::fs::read_to_string(FILE).unwrap_or_default();
    assert_eq!(
        stored, wanted,
        "{FILE} is stale: run `DIAGRAMS=overwrite cargo test --test it -- schema::diagram`"
    );
}

#[test]
fn every_line_is_a_node_or_an_edge() {
    let node = |s: &str| -> bool {
        let id_end = s.find(['[', '(']).unwrap_or(0);
        id_end > 0
            && s[..id_end]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_')
            && (s.ends_with("\"]") || s.ends_with("\"])"))
    };
    let id = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    for (title, schema) in diagrams() {
        let diagram = schema.diagram();
        let mut lines = diagram.lines();
        assert_eq!(lines.next(), Some("flowchart LR"), "{title}");
        for line in lines {
            let line = line.trim();
            let ok = node(line)
                || ["-->", "<-->", "-.->", "---"].iter().any(|arrow| {
                    line.split_once(&format!(" {arrow}"))
                        .is_some_and(|(from, rest)| {
                            let to = match rest.split_once("| ") {
                                Some((label, to)) => {
                                    label.starts_with("|\"") && label.ends_with('"') && id(to)
                                }
                                None => id(rest.trim()),
                            };
                            id(from) && to
                        })
                });
            assert!(ok, "{title}: not a node or an edge: {line}");
        }
    }
}

#[test]
fn the_catalog_draws_its_link_its_copy_and_its_embed() {
    let catalog = Schema::new()
        .with::<catalog::Product>()
        .with::<catalog::Sku>()
        .diagram();
    assert!(
        catalog.contains("products -->|\"skus: ids, max 100\"| skus"),
        "{catalog}"
    );
    assert!(
        catalog.contains("products -.->|\"colors copies skus.color\"| skus"),
        "{catalog}"
    );
    assert!(
        catalog.contains("products_colors([\"colors: embedded, max 100\"])"),
        "{catalog}"
    );
    let school = school::schema().diagram();
    assert_eq!(
        school.matches("<-->").count(),
        1,
        "a two-sided link is drawn once: {school}"
    );
}

mod lookalikes {
    use schema_core::prelude::*;
    use serde::{Deserialize, Serialize};

    #[derive(Document, Serialize, Deserialize)]
    #[document(collection = "orders")]
    pub struct Order {
        #[serde(rename = "_id")]
        id: String,
        #[embed(max = 3)]
        tags: Vec<String>,
    }

    #[derive(Document, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    #[document(collection = "order-items")]
    pub struct DashedItem {
        #[serde(rename = "_id")]
        id: String,
        #[reference(index, to = Order)]
        order_id: String,
    }

    #[derive(Document, Serialize, Deserialize)]
    #[serde(rename_all = "camelCase")]
    #[document(collection = "order_items")]
    pub struct UnderscoredItem {
        #[serde(rename = "_id")]
        id: String,
        #[reference(index, to = Order, on_delete = "cascade")]
        order_id: String,
    }

    /// Named like the embedded `tags` of `orders` would be drawn.
    #[derive(Document, Serialize, Deserialize)]
    #[document(collection = "orders_tags")]
    pub struct OrderTag {
        #[serde(rename = "_id")]
        id: String,
    }
}

#[test]
fn collections_whose_names_differ_only_in_dashes_and_underscores_are_two_nodes() {
    use lookalikes::*;
    let diagram = Schema::new()
        .with::<Order>()
        .with::<DashedItem>()
        .with::<UnderscoredItem>()
        .with::<OrderTag>()
        .diagram();
    assert_eq!(
        diagram,
        "flowchart LR\n\
         \x20 orders[\"orders (Order)\"]\n\
         \x20 order_items_2[\"order-items (DashedItem)\"]\n\
         \x20 order_items[\"order_items (UnderscoredItem)\"]\n\
         \x20 orders_tags[\"orders_tags (OrderTag)\"]\n\
         \x20 orders_tags_2([\"tags: embedded, max 3\"])\n\
         \x20 orders --- orders_tags_2\n\
         \x20 order_items_2 -->|\"orderId, index orderId_1__id_1\"| orders\n\
         \x20 order_items -->|\"orderId, index orderId_1__id_1, on delete: cascade\"| orders\n"
    );
}
