//! The Rust source of the pulled models: a header saying how it was made,
//! the imports it needs, then per collection its `#[derive(Document)]`
//! struct followed by the sub-document types it introduced, each with the
//! comments saying what was seen.

use std::fmt::{self, Write as _};

use super::ir::{Body, Field, Sub, Ty};

/// The widest a comment line is written.
const WIDTH: usize = 100;

/// One collection's model.
#[derive(Debug)]
pub(super) struct Model {
    pub(super) collection: String,
    pub(super) name: String,
    pub(super) notes: Vec<String>,
    /// Its `index(..)` declarations.
    pub(super) indexes: Vec<String>,
    pub(super) fields: Vec<Field>,
    pub(super) open: bool,
}

/// The whole file.
pub(super) fn source(header: &[String], models: &[Model], subs: &[Sub]) -> String {
    let mut out = String::new();
    write_source(&mut out, header, models, subs).expect("writing to a String");
    out
}

fn write_source(
    out: &mut String,
    header: &[String],
    models: &[Model],
    subs: &[Sub],
) -> fmt::Result {
    for line in header {
        comment(out, "", line)?;
    }
    writeln!(out)?;
    let mut used = Vec::new();
    for model in models {
        types_of(&model.fields, &mut used);
    }
    for sub in subs {
        match &sub.body {
            Body::Struct { fields, .. } => types_of(fields, &mut used),
            Body::Enum { variants, .. } => {
                for v in variants {
                    types_of(&v.fields, &mut used);
                }
            }
        }
    }
    if used.iter().any(|t| t == "ObjectId") {
        writeln!(out, "use schema_core::bson::oid::ObjectId;")?;
    }
    let bson: Vec<&str> = [
        "Binary",
        "Bson",
        "DateTime",
        "Decimal128",
        "Regex",
        "Timestamp",
    ]
    .into_iter()
    .filter(|t| used.iter().any(|u| u == t))
    .collect();
    match bson[..] {
        [] => {}
        [one] => writeln!(out, "use schema_core::bson::{one};")?,
        _ => writeln!(out, "use schema_core::bson::{{{}}};", bson.join(", "))?,
    }
    writeln!(out, "use schema_core::prelude::*;")?;
    writeln!(out, "use serde::{{Deserialize, Serialize}};")?;
    writeln!(out)?;
    schema_fn(out, models)?;
    let mut written = vec![false; subs.len()];
    for model in models {
        writeln!(out)?;
        root(out, model)?;
        let mut order = Vec::new();
        met(&model.fields, subs, &mut written, &mut order);
        for at in order {
            writeln!(out)?;
            let sub = &subs[at];
            let mut paths: Vec<String> = sub.paths.iter().map(|p| format!("`{p}`")).collect();
            paths.dedup();
            comment(out, "", &format!("At {}.", paths.join(", ")))?;
            for note in &sub.notes {
                comment(out, "", note)?;
            }
            body(out, &sub.name, &sub.body, true)?;
        }
    }
    Ok(())
}

/// `schema()`: every model pulled, registered, as the schema command and
/// setup take them.
fn schema_fn(out: &mut String, models: &[Model]) -> fmt::Result {
    comment(
        out,
        "",
        "Every model below, for the schema command (a `src/bin/schema.rs` whose `main` awaits \
         `schema_core::cli::run(&models::schema())`) and for `Schema::plan` and `sync`.",
    )?;
    writeln!(out, "pub fn schema() -> schema_core::Schema {{")?;
    let calls: Vec<String> = models
        .iter()
        .map(|m| format!(".with::<{}>()", m.name))
        .collect();
    let chain = format!("schema_core::Schema::new(){}", calls.concat());
    // As rustfmt writes it: on one line when it fits its 60 columns for a
    // chain, else a call per line.
    if chain.len() <= 60 {
        writeln!(out, "    {chain}")?;
    } else {
        writeln!(out, "    schema_core::Schema::new()")?;
        for call in calls {
            writeln!(out, "        {call}")?;
        }
    }
    writeln!(out, "}}")
}

/// The sub-document types `fields` use and that are not written yet, each
/// before the types it uses, in the order met.
fn met(fields: &[Field], subs: &[Sub], written: &mut [bool], order: &mut Vec<usize>) {
    fn walk(ty: &Ty, subs: &[Sub], written: &mut [bool], order: &mut Vec<usize>) {
        match ty {
            Ty::Vec(inner) | Ty::Option(inner) => walk(inner, subs, written, order),
            Ty::Named(name) => {
                let Some(at) = subs.iter().position(|s| &s.name == name) else {
                    return;
                };
                if written[at] {
                    return;
                }
                written[at] = true;
                order.push(at);
                match &subs[at].body {
                    Body::Struct { fields, .. } => met(fields, subs, written, order),
                    Body::Enum { variants, .. } => {
                        for v in variants {
                            met(&v.fields, subs, written, order);
                        }
                    }
                }
            }
        }
    }
    for field in fields {
        walk(&field.ty, subs, written, order);
    }
}

/// The named types `fields` use (for the imports).
fn types_of(fields: &[Field], used: &mut Vec<String>) {
    fn walk(ty: &Ty, used: &mut Vec<String>) {
        match ty {
            Ty::Named(name) => used.push(name.clone()),
            Ty::Vec(inner) | Ty::Option(inner) => walk(inner, used),
        }
    }
    for field in fields {
        walk(&field.ty, used);
    }
}

fn root(out: &mut String, model: &Model) -> fmt::Result {
    for note in &model.notes {
        comment(out, "", note)?;
    }
    writeln!(
        out,
        "#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]"
    )?;
    let mut keys = vec![format!("collection = {:?}", model.collection)];
    keys.extend(model.indexes.iter().cloned());
    if model.open {
        keys.push("open".to_owned());
    }
    let one_line = format!("#[document({})]", keys.join(", "));
    if one_line.len() <= WIDTH {
        writeln!(out, "{one_line}")?;
    } else {
        writeln!(out, "#[document(")?;
        for key in &keys {
            writeln!(out, "    {key},")?;
        }
        writeln!(out, ")]")?;
    }
    writeln!(out, "pub struct {} {{", model.name)?;
    fields(out, "    ", &model.fields, true, "pub ")?;
    writeln!(out, "}}")
}

/// A sub-document type (with its comments when `notes`; without, it is
/// the type's identity, for sharing identical shapes).
pub(super) fn body(out: &mut String, name: &str, body: &Body, notes: bool) -> fmt::Result {
    writeln!(
        out,
        "#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]"
    )?;
    match body {
        Body::Struct { fields: list, open } => {
            if *open {
                writeln!(out, "#[document(open)]")?;
            }
            writeln!(out, "pub struct {name} {{")?;
            fields(out, "    ", list, notes, "pub ")?;
            writeln!(out, "}}")
        }
        Body::Enum { tag, variants } => {
            match tag {
                Some(tag) => writeln!(out, "#[serde(tag = {tag:?})]")?,
                None => writeln!(out, "#[serde(untagged, deny_unknown_fields)]")?,
            }
            writeln!(out, "pub enum {name} {{")?;
            for (i, v) in variants.iter().enumerate() {
                if i > 0 && notes {
                    writeln!(out)?;
                }
                if notes {
                    let n = super::ir::count(v.count);
                    comment(out, "    ", &format!("{:?}: {n} seen", v.value))?;
                }
                if tag.is_some() && v.rust != v.value {
                    writeln!(out, "    #[serde(rename = {:?})]", v.value)?;
                }
                writeln!(out, "    {} {{", v.rust)?;
                fields(out, "        ", &v.fields, notes, "")?;
                writeln!(out, "    }},")?;
            }
            writeln!(out, "}}")
        }
    }
}

fn fields(out: &mut String, indent: &str, fields: &[Field], notes: bool, vis: &str) -> fmt::Result {
    for field in fields {
        if notes {
            for note in &field.notes {
                comment(out, indent, note)?;
            }
        }
        let mut serde = Vec::new();
        if field.rust != field.stored {
            serde.push(format!("rename = {:?}", field.stored));
        }
        if field.skip_none {
            serde.push("skip_serializing_if = \"Option::is_none\"".to_owned());
        }
        if !serde.is_empty() {
            writeln!(out, "{indent}#[serde({})]", serde.join(", "))?;
        }
        for attr in &field.attrs {
            writeln!(out, "{indent}{attr}")?;
        }
        writeln!(out, "{indent}{vis}{}: {},", field.rust, field.ty)?;
    }
    Ok(())
}

/// `text` as `//` lines of at most [`WIDTH`] characters.
fn comment(out: &mut String, indent: &str, text: &str) -> fmt::Result {
    if text.is_empty() {
        return writeln!(out, "{indent}//");
    }
    let room = WIDTH.saturating_sub(indent.len() + 3).max(20);
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.len() + 1 + word.len() > room {
            writeln!(out, "{indent}// {line}")?;
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    writeln!(out, "{indent}// {line}")
}
