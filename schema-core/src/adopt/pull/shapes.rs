//! From what the walk saw to the models' shapes: a Rust type per path (the
//! type that decodes every value seen, the reason in a comment when there
//! was a choice), `Option` where a field was missing or null, a bound from
//! the longest array seen, and one struct per distinct sub-document shape
//! (identical shapes at several paths share one).

use std::collections::BTreeMap;

use super::infer::{Kind, Node, Object, Tag};
use super::ir::{bound, count, scalar, At, Body, Field, Sub, Ty, Variant};
use super::links::{Link, Links};
use super::names::{field_name, plain_key, type_name, Scope, TAKEN_TYPES};
/// What the shapes are built with.
pub(super) struct Context<'a> {
    /// `PullOptions::headroom`, in percent.
    pub(super) headroom: u32,
    /// `PullOptions::long`.
    pub(super) long: u64,
    /// Array paths the audit found unbounded, by collection and path, with
    /// its reason.
    pub(super) flagged: &'a BTreeMap<(String, String), String>,
    pub(super) links: &'a Links,
    /// The tag of each split path, by collection.
    pub(super) tags: &'a BTreeMap<(String, String), Tag>,
}

/// The sub-document types of the whole file, shared across collections.
pub(super) struct Shapes<'a> {
    pub(super) ctx: Context<'a>,
    pub(super) subs: Vec<Sub>,
    by_body: BTreeMap<String, usize>,
    pub(super) types: Scope,
    /// The array paths left without a bound, by collection.
    pub(super) unbounded: Vec<(String, String)>,
}

/// A value's type, what was seen, and whether it needs the free-form
/// escape hatch (`#[embed(unbounded = ..)]`) or is an array left unbounded.
struct Typed {
    ty: Ty,
    attrs: Vec<String>,
    notes: Vec<String>,
    free: bool,
}

impl Typed {
    fn plain(ty: Ty) -> Typed {
        Typed {
            ty,
            attrs: Vec::new(),
            notes: Vec::new(),
            free: false,
        }
    }

    fn free(ty: Ty, reason: &str, notes: Vec<String>) -> Typed {
        Typed {
            ty,
            attrs: vec![format!("#[embed(unbounded = {reason:?})]")],
            notes,
            free: true,
        }
    }
}

/// A field encrypted on the client: `#[encrypt(..)]` with the algorithm
/// its values were encrypted with, read as the type they held.
fn encrypted(deterministic: bool, original: u8) -> Typed {
    let how = if deterministic {
        "deterministic"
    } else {
        "random"
    };
    let mut typed = match scalar(Kind::Encrypted {
        deterministic,
        original,
    }) {
        Some(name) => Typed::plain(Ty::named(name)),
        None => Typed::plain(Ty::named("Bson")),
    };
    typed.attrs.push(format!("#[encrypt({how})]"));
    typed.notes.push(format!(
        "encrypted on the client ({how}, BSON binary subtype 6), holding {}: reads need the data key it names, and an equality filter finds only values encrypted under the key this model names",
        match (original, super::ir::plain_kind(original)) {
            (_, Some(kind)) => format!("`{}` values", kind.name()),
            (0x03, None) => "sub-documents".to_owned(),
            (0x04, None) => "arrays".to_owned(),
            (other, None) => format!("values of BSON type {other:#04x}"),
        }
    ));
    typed
}

impl<'a> Shapes<'a> {
    pub(super) fn new(ctx: Context<'a>) -> Shapes<'a> {
        Shapes {
            ctx,
            subs: Vec::new(),
            by_body: BTreeMap::new(),
            types: Scope::with(TAKEN_TYPES),
            unbounded: Vec::new(),
        }
    }

    /// The fields of a struct (or variant) for `object`, `_id` first, then
    /// by stored name; the keys no field can hold are returned apart.
    pub(super) fn fields(
        &mut self,
        at: &At<'_>,
        object: &mut Object,
        skip: Option<&str>,
    ) -> (Vec<Field>, Vec<String>) {
        let mut scope = Scope::default();
        let mut fields = Vec::new();
        let mut skipped = Vec::new();
        let count = object.count;
        let mut keys: Vec<String> = object.fields.keys().cloned().collect();
        if let Some(at) = keys.iter().position(|k| k == "_id") {
            let id = keys.remove(at);
            keys.insert(0, id);
        }
        for key in keys {
            if skip == Some(key.as_str()) {
                continue;
            }
            if !plain_key(&key) {
                skipped.push(key);
                continue;
            }
            let node = object.fields.get_mut(&key).expect("a key of the map");
            let child = At {
                collection: at.collection,
                owner: at.owner,
                path: if at.path.is_empty() {
                    key.clone()
                } else {
                    format!("{}.{key}", at.path)
                },
                root: at.root,
            };
            let mut field = self.field(&child, &key, node, count);
            field.rust = scope.claim(&[field_name(&key)], "_");
            fields.push(field);
        }
        (fields, skipped)
    }

    /// One field: its type, `Option` when missing or null somewhere, and
    /// what was seen.
    fn field(&mut self, at: &At<'_>, stored: &str, node: &mut Node, parent: u64) -> Field {
        let mut typed = self.value(at, stored, node);
        let missing = parent.saturating_sub(node.present);
        let mut optional = Vec::new();
        if missing > 0 {
            optional.push(format!(
                "missing in {} of {}",
                count(missing),
                count(parent)
            ));
        }
        if node.nulls > 0 {
            optional.push(format!("null in {}", count(node.nulls)));
        }
        if !optional.is_empty() {
            typed.ty = Ty::Option(Box::new(typed.ty));
            typed.notes.push(optional.join(", "));
        }
        let link = self.ctx.links.get(at.collection, &at.path).cloned();
        if let Some(link) = link {
            self.link(at, &link, &mut typed);
        }
        Field {
            stored: stored.to_owned(),
            rust: String::new(),
            ty: typed.ty,
            skip_none: missing > 0,
            attrs: typed.attrs,
            notes: typed.notes,
        }
    }

    /// The attribute (or the note) for a reference found at this field.
    fn link(&self, at: &At<'_>, link: &Link, typed: &mut Typed) {
        let found = link.describe();
        match self.ctx.links.attribute(at, link, &typed.ty, &typed.attrs) {
            Ok(Some(attr)) => {
                typed.attrs = vec![attr];
                typed.notes.push(found);
            }
            Ok(None) => typed.notes.push(found),
            Err(why) => typed.notes.push(format!("{found}; not declared: {why}")),
        }
    }

    /// The type that decodes every non-null value seen at `node`.
    fn value(&mut self, at: &At<'_>, stored: &str, node: &mut Node) -> Typed {
        let kinds: Vec<Kind> = node.kinds().collect();
        match kinds[..] {
            [] => Typed::free(
                Ty::named("Bson"),
                "only null was seen: its type is not known",
                Vec::new(),
            ),
            [Kind::Document] => {
                let object = node.object.as_mut().expect("documents were seen");
                Typed::plain(self.object(at, stored, object))
            }
            [Kind::Array] => self.array(at, stored, node),
            [Kind::Encrypted {
                deterministic,
                original,
            }] => encrypted(deterministic, original),
            [kind] => match scalar(kind) {
                Some(name) => Typed::plain(Ty::named(name)),
                None => Typed::free(
                    Ty::named("Bson"),
                    &format!("BSON {} values: no Rust type of their own", kind.name()),
                    Vec::new(),
                ),
            },
            _ => self.mixed(node, &kinds),
        }
    }

    /// A field of several types: the one type that decodes them all, or
    /// `Bson`.
    fn mixed(&self, node: &Node, kinds: &[Kind]) -> Typed {
        let seen: Vec<String> = node
            .kinds
            .iter()
            .map(|(k, n)| format!("{} {}", k.name(), count(*n)))
            .collect();
        let seen = format!("mixed types: {}", seen.join(", "));
        let ints = |k: &Kind| matches!(k, Kind::Int32 | Kind::Int64);
        let (ty, why) = if kinds.iter().all(ints) {
            ("i64", "i64 decodes both")
        } else if kinds.iter().all(|k| ints(k) || matches!(k, Kind::Double)) {
            ("f64", "f64 decodes them all")
        } else {
            let mut typed = Typed::free(
                Ty::named("Bson"),
                "mixed types: a Bson decodes them all",
                Vec::new(),
            );
            typed
                .notes
                .push(format!("{seen}: only Bson decodes them all"));
            return typed;
        };
        let mut typed = Typed::plain(Ty::named(ty));
        typed.notes.push(format!("{seen}: {why}"));
        typed
    }

    /// An array: its items' type and its bound (none when it looks
    /// unbounded, so that the model does not compile until decided).
    fn array(&mut self, at: &At<'_>, stored: &str, node: &mut Node) -> Typed {
        let array = node.array.as_mut().expect("arrays were seen");
        let lengths = &mut array.lengths;
        let (max, seen) = (lengths.max, lengths.seen);
        let (p50, p99) = (lengths.percentile(50), lengths.percentile(99));
        let mut notes = vec![format!(
            "lengths: max {}, p50 {}, p99 {}, {} arrays seen",
            count(max),
            count(p50),
            count(p99),
            count(seen)
        )];
        let items = &mut array.items;
        let item = if items.present == items.nulls {
            notes.push("no item seen: the item type is a guess".to_owned());
            Typed::plain(Ty::named("String"))
        } else {
            let singular = type_name(stored, true);
            self.value(at, &singular, items)
        };
        notes.extend(item.notes.iter().map(|n| format!("items: {n}")));
        let mut ty = item.ty.clone();
        if items.nulls > 0 {
            ty = Ty::Option(Box::new(ty));
            notes.push(format!("items: null in {}", count(items.nulls)));
        }
        let ty = Ty::Vec(Box::new(ty));
        if item.free || matches!(item.ty, Ty::Vec(_)) {
            let reason = if item.free {
                "items of no one type: no bound can be checked"
            } else {
                "arrays inside an array: no bound can be checked"
            };
            return Typed::free(ty, reason, notes);
        }
        let flagged = self
            .ctx
            .flagged
            .get(&(at.collection.to_owned(), at.path.clone()));
        let why = if max >= self.ctx.long {
            Some(format!("{} items in one document", count(max)))
        } else {
            flagged.map(|why| format!("the audit says: {why}"))
        };
        if let Some(why) = why {
            notes.push(format!(
                "looks unbounded: {why}; so no bound is declared and this model does not \
                 compile until you decide: bound it (`#[embed(max = N)]`, pushes refused past \
                 N), or move the items out into a collection of their own, each pointing at \
                 its parent (`#[reference(index)]`: the move of an embedded array into its own \
                 collection)"
            ));
            self.unbounded
                .push((at.collection.to_owned(), at.path.clone()));
            return Typed {
                ty,
                attrs: Vec::new(),
                notes,
                free: false,
            };
        }
        Typed {
            ty,
            attrs: vec![format!("#[embed(max = {})]", bound(max, self.ctx.headroom))],
            notes,
            free: false,
        }
    }

    /// The sub-document type for `object` (shared with any identical one).
    fn object(&mut self, at: &At<'_>, stored: &str, object: &mut Object) -> Ty {
        let tag = self
            .ctx
            .tags
            .get(&(at.collection.to_owned(), at.path.clone()))
            .cloned();
        let hint = type_name(stored, false);
        let owner_hint = format!("{}{hint}", at.owner);
        let name_now = hint.clone();
        let inner = At {
            collection: at.collection,
            owner: &name_now,
            path: at.path.clone(),
            root: false,
        };
        let usable = super::tags::tells_apart(object);
        let (body, notes) = match tag {
            Some(tag) if usable => self.variants(&inner, object, &tag),
            _ => {
                let (fields, skipped) = self.fields(&inner, object, None);
                let mut notes = Vec::new();
                if !skipped.is_empty() {
                    notes.push(format!(
                        "keys no field can hold (empty, dotted or `$`-led), left to the open \
                         validator: {skipped:?}"
                    ));
                }
                if object.unrecorded > 0 {
                    notes.push(format!(
                        "more than {} keys: {} more not read into fields (a map?), left to the \
                         open validator",
                        super::infer::MAX_KEYS,
                        count(object.unrecorded)
                    ));
                }
                let open = !skipped.is_empty() || object.unrecorded > 0;
                (Body::Struct { fields, open }, notes)
            }
        };
        Ty::Named(self.register(&at.path, &[hint, owner_hint], notes, body))
    }

    /// The variants of a polymorphic sub-document, one per tag value.
    fn variants(&mut self, at: &At<'_>, object: &mut Object, tag: &Tag) -> (Body, Vec<String>) {
        let variants = object.variants.as_mut().expect("split");
        let inside = match tag {
            Tag::Inside(key) => Some(key.clone()),
            Tag::Beside(_) => None,
        };
        let mut scope = Scope::default();
        let mut out = Vec::new();
        for (value, object) in variants.by_value.iter_mut() {
            let (fields, _) = self.fields(at, object, inside.as_deref());
            out.push(Variant {
                rust: scope.claim(&[type_name(value, false)], ""),
                value: value.clone(),
                count: object.count,
                fields,
            });
        }
        let notes = match tag {
            Tag::Inside(key) => vec![format!(
                "Its `{key}` decides its shape: one variant per value."
            )],
            Tag::Beside(key) => {
                // Tried in order: the variants with the most fields first.
                out.sort_by_key(|v| std::cmp::Reverse(v.fields.len()));
                vec![format!(
                    "The `{key}` beside it decides its shape: one variant per value. The tag is \
                     stored beside the sub-document, not in it, so serde tells the variants \
                     apart by their fields (untagged, tried in order); with the tag moved \
                     inside, `#[serde(tag = \"{key}\")]` would say it."
                )]
            }
        };
        (
            Body::Enum {
                tag: inside,
                variants: out,
            },
            notes,
        )
    }

    /// Records a sub-document type, or finds the identical one already
    /// recorded; returns its name.
    fn register(&mut self, path: &str, names: &[String], notes: Vec<String>, body: Body) -> String {
        let mut identity = String::new();
        super::emit::body(&mut identity, "", &body, false).expect("writing to a String");
        if let Some(&at) = self.by_body.get(&identity) {
            let sub = &mut self.subs[at];
            if !sub.paths.iter().any(|p| p == path) {
                sub.paths.push(path.to_owned());
            }
            return sub.name.clone();
        }
        let name = self.types.claim(names, "");
        self.by_body.insert(identity, self.subs.len());
        self.subs.push(Sub {
            name: name.clone(),
            paths: vec![path.to_owned()],
            notes,
            body,
        });
        name
    }
}
