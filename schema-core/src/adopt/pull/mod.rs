//! Models generated from the data: [`pull`] reads every collection of a
//! database (a `$sample`, or whole) and writes the Rust source of the
//! models that decode it, with the bounds, references, polymorphic
//! sub-documents and indexes it found.
//!
//! ```no_run
//! # async fn demo(db: schema_core::mongodb::Database) -> schema_core::Result<()> {
//! use schema_core::{pull, PullOptions};
//!
//! let pulled = pull(&db, &PullOptions::default()).await?;
//! std::fs::write("src/models.rs", &pulled.source).expect("written");
//! for path in pulled.unbounded() {
//!     println!("decide: {path} looks unbounded"); // the models do not compile until then
//! }
//! # Ok(())
//! # }
//! ```
//!
//! What the source holds, per collection: a `#[derive(Document)]` struct
//! and `#[derive(Embedded)]` types for its sub-documents (one per distinct
//! shape, shared); fields in snake_case with `#[serde(rename)]` where the
//! stored name differs; `Option` where a field was missing or null; the
//! type that decodes every value seen (`i64` for ints and longs, `f64` for
//! numbers, `Bson` for anything else mixed, said in a comment with the
//! counts); `#[embed(max = N)]` from the longest array seen plus
//! [`PullOptions::headroom`], with the lengths in a comment, and no bound
//! at all for an array that looks unbounded (so the models do not compile
//! until the user decides); `#[reference(index, to = ..)]` and
//! `#[many_to_many(..)]` for the ids of other collections; an enum for a
//! sub-document whose shape a tag decides; the server's indexes as
//! `index(..)` declarations. Sorted, so the same data gives the same text.

mod emit;
mod indexes;
mod infer;
mod ir;
mod links;
mod names;
mod shapes;
mod tags;

use std::collections::BTreeMap;
use std::fmt;

use bson::{doc, Document as BsonDocument};
use futures_util::TryStreamExt;
use mongodb::Database;

use super::sample;
use crate::error::{Error, Result};
use crate::model::index::server::ServerIndex;
use infer::{Object, Splits};
use ir::At;
use names::{type_name, Scope, TAKEN_TYPES};
use shapes::{Context, Shapes};

/// What [`pull`] reads, and how it bounds arrays.
#[derive(Debug, Clone, PartialEq)]
pub struct PullOptions {
    /// Documents sampled per collection with `$sample` (1,000 by default).
    pub sample: u32,
    /// Read every document instead of a sample.
    pub full_scan: bool,
    /// The room an array's bound leaves above the longest one seen, in
    /// percent (100 by default: twice the longest), rounded up to 1, 2 or
    /// 5 times a power of ten.
    pub headroom: u32,
    /// An array this long in any document looks unbounded and gets no
    /// bound (1,000 by default, as [`AuditOptions::long`](crate::AuditOptions::long)).
    pub long: u64,
}

impl Default for PullOptions {
    fn default() -> Self {
        PullOptions {
            sample: 1_000,
            full_scan: false,
            headroom: 100,
            long: 1_000,
        }
    }
}

/// The models [`pull`] generated.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Pulled {
    /// The Rust source: one file, to read and adjust before use.
    pub source: String,
    /// One per collection, by collection name.
    pub models: Vec<PulledModel>,
}

/// One collection's model.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct PulledModel {
    /// The collection.
    pub collection: String,
    /// The Rust type generated for it.
    pub name: String,
    /// How many documents were read.
    pub read: u64,
    /// The array paths that look unbounded, left without a bound: the
    /// model does not compile until each is bounded or moved out.
    pub unbounded: Vec<String>,
}

impl Pulled {
    /// The array paths (`collection.path`) left without a bound.
    pub fn unbounded(&self) -> impl Iterator<Item = String> + '_ {
        self.models.iter().flat_map(|m| {
            m.unbounded
                .iter()
                .map(move |p| format!("{}.{p}", m.collection))
        })
    }
}

impl fmt::Display for Pulled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

/// Reads every collection of `db` (reads only) and writes the Rust source
/// of models that decode what it holds.
pub async fn pull(db: &Database, options: &PullOptions) -> Result<Pulled> {
    // The audit of the same data: the arrays that look unbounded, the
    // references and the polymorphic sub-documents it finds.
    let report = crate::adopt::audit::audit(
        db,
        &crate::AuditOptions {
            sample: options.sample,
            full_scan: options.full_scan,
            long: options.long,
        },
    )
    .await?;
    let mut flagged = BTreeMap::new();
    let mut found = BTreeMap::new();
    let mut beside: BTreeMap<String, Splits> = BTreeMap::new();
    for c in &report.collections {
        for a in c.arrays.iter().filter(|a| a.unbounded.is_some()) {
            let why = a.unbounded.clone().unwrap_or_default();
            flagged.insert((a.collection.clone(), a.path.clone()), why);
        }
        for r in &c.references {
            let link = links::Link {
                to: r.to.clone(),
                checked: r.checked,
                found: r.found,
                indexed: r.indexed,
                one_sided: r.one_sided.as_ref().map(|o| o.one_sided),
                leading: Vec::new(),
            };
            found.insert((r.collection.clone(), r.path.clone()), link);
        }
        for p in &c.polymorphic {
            if let Some(tag) = tags::beside(&p.tag, &p.path) {
                let splits = beside.entry(p.collection.clone()).or_default();
                splits.insert(p.path.clone(), tag);
            }
        }
    }
    let names = sample::collections(db).await?;
    let mut types = Scope::with(TAKEN_TYPES);
    let mut walks: BTreeMap<String, (String, Object)> = BTreeMap::new();
    let mut split_tags = BTreeMap::new();
    for name in &names {
        let rust = types.claim(
            &[
                type_name(name, true),
                format!("{}Doc", type_name(name, true)),
            ],
            "",
        );
        let mut splits = beside.remove(name).unwrap_or_default();
        let mut object = walk(db, name, options, &splits).await?;
        // A tag inside the sub-document it decides (which the audit does
        // not look for): a second walk keeps the fields per tag value.
        let inside = tags::detect(&object);
        let more = inside.iter().any(|(path, _)| !splits.contains_key(path));
        for (path, tag) in inside {
            splits.entry(path).or_insert(tag);
        }
        if more {
            object = walk(db, name, options, &splits).await?;
        }
        for (path, tag) in splits {
            split_tags.insert((name.clone(), path), tag);
        }
        walks.insert(name.clone(), (rust, object));
    }
    let mut listed = BTreeMap::new();
    for name in &names {
        let models = crate::query::server_indexes::listed_indexes(db, name).await?;
        let indexes: Vec<ServerIndex> = models.iter().map(ServerIndex::from_model).collect();
        listed.insert(name.clone(), indexes);
    }
    let mut links = links::Links::new(found);
    links.note_leading(&listed);
    links.prepare(&walks, options.long, &flagged);
    let ctx = Context {
        headroom: options.headroom,
        long: options.long,
        flagged: &flagged,
        links: &links,
        tags: &split_tags,
    };
    let mut shapes = Shapes::new(ctx);
    shapes.types = types;
    let mut models = Vec::new();
    let mut pulled = Vec::new();
    for (collection, (name, object)) in walks.iter_mut() {
        let at = At {
            collection,
            owner: name,
            path: String::new(),
            root: true,
        };
        let (fields, skipped) = shapes.fields(&at, object, None);
        let mut notes = vec![format!(
            "`{collection}`: {} documents read.",
            ir::count(object.count)
        )];
        if !skipped.is_empty() {
            notes.push(format!(
                "Keys no field can hold (empty, dotted or `$`-led), left to the open validator: \
                 {skipped:?}."
            ));
        }
        let by_stored: BTreeMap<String, String> = fields
            .iter()
            .map(|f| (f.stored.clone(), f.rust.clone()))
            .collect();
        let declared: Vec<BsonDocument> = fields
            .iter()
            .filter_map(|f| {
                let attr = f.attrs.first()?;
                if attr.starts_with("#[reference(") {
                    Some(doc! { f.stored.clone(): 1, "_id": 1 })
                } else if attr.starts_with("#[many_to_many(") {
                    Some(doc! { f.stored.clone(): 1 })
                } else {
                    None
                }
            })
            .collect();
        let mut declarations = Vec::new();
        for index in listed.get(collection).into_iter().flatten() {
            match indexes::declare(index, &by_stored, &declared) {
                Ok(Some(declaration)) => declarations.push(declaration),
                Ok(None) => {}
                Err(why) => notes.push(format!(
                    "Index `{}` not declared: {why} (the plan shows it as an extra index).",
                    index.name
                )),
            }
        }
        let unbounded: Vec<String> = shapes
            .unbounded
            .iter()
            .filter(|(c, _)| c == collection)
            .map(|(_, p)| p.clone())
            .collect();
        pulled.push(PulledModel {
            collection: collection.clone(),
            name: name.clone(),
            read: object.count,
            unbounded,
        });
        models.push(emit::Model {
            collection: collection.clone(),
            name: name.clone(),
            notes,
            indexes: declarations,
            fields,
            open: !skipped.is_empty() || object.unrecorded > 0,
        });
    }
    let header = header(options, &pulled);
    let source = emit::source(&header, &models, &shapes.subs);
    Ok(Pulled {
        source,
        models: pulled,
    })
}

/// Reads collection `name` through the walk.
async fn walk(db: &Database, name: &str, options: &PullOptions, splits: &Splits) -> Result<Object> {
    let refused = |e| Error::from_server(e, "read", name);
    let mut cursor = sample::documents(db, name, options.sample, options.full_scan).await?;
    let mut root = Object::default();
    while let Some(raw) = cursor.try_next().await.map_err(refused)? {
        root.add(&raw, "", splits);
    }
    Ok(root)
}

/// The file's first comment: how it was made.
fn header(options: &PullOptions, models: &[PulledModel]) -> Vec<String> {
    let read = if options.full_scan {
        "--full".to_owned()
    } else {
        format!("--sample {}", options.sample)
    };
    let counts: Vec<String> = models
        .iter()
        .map(|m| format!("{} {}", m.collection, ir::count(m.read)))
        .collect();
    let mut lines = vec![
        format!(
            "Models pulled from the data by `schema pull {read} --headroom {} --long {}`.",
            options.headroom, options.long
        ),
        format!(
            "Documents read: {}.",
            if counts.is_empty() {
                "none".to_owned()
            } else {
                counts.join(", ")
            }
        ),
        "Every comment says what was seen: read them, then adjust the types, the bounds and the \
         names before use."
            .to_owned(),
    ];
    if models.iter().any(|m| !m.unbounded.is_empty()) {
        lines.push(
            "An array that looks unbounded has no bound on purpose: these models do not compile \
             until each one is bounded or moved out."
                .to_owned(),
        );
    }
    lines
}
