//! A depth guard for building validators: no `$jsonSchema` nests deeper than
//! [`MAX_SCHEMA_DEPTH`], so a recursive type that escapes the compile-time
//! check (one reached only through generic sub-documents or through a field
//! that opts out of the rule, or a hand-written [`BsonSchema`] impl that
//! recurses through a container) panics with a message naming it instead of
//! overflowing the stack and aborting the process.
//!
//! Every schema the derive builds for a field, and every container impl of
//! [`BsonSchema`] in this crate, asks for its inner schema through
//! [`schema_of`]. A hand-written impl that calls itself directly, without
//! going through a container or [`schema_of`], is outside its reach.

use std::cell::RefCell;

use bson::Document;

use crate::model::validator::BsonSchema;

/// The deepest a validator may nest: 100 levels, the most the server accepts
/// in a stored document, so no valid model comes near it.
pub const MAX_SCHEMA_DEPTH: usize = 100;

thread_local! {
    /// The types whose schemas are being built, outermost first.
    static PATH: RefCell<Vec<&'static str>> = const { RefCell::new(Vec::new()) };
}

/// Leaves one level when dropped, also while unwinding.
struct Level;

impl Drop for Level {
    fn drop(&mut self) {
        PATH.with(|path| path.borrow_mut().pop());
    }
}

/// `T::bson_schema()`, one level deeper.
///
/// # Panics
///
/// When the schema being built is already [`MAX_SCHEMA_DEPTH`] levels deep:
/// a type on the way holds itself (a recursive type), and its validator has
/// no end. The message names the outermost type that repeats.
///
/// ```
/// use schema_core::BsonSchema;
/// use schema_core::schema_of;
///
/// // A hand-written schema that recurses through a container of this crate.
/// struct Tree;
/// impl BsonSchema for Tree {
///     fn bson_schema() -> bson::Document {
///         bson::doc! { "bsonType": "object", "properties": { "kids": schema_of::<Vec<Tree>>() } }
///     }
/// }
///
/// let built = std::panic::catch_unwind(|| schema_of::<Tree>());
/// assert!(built.is_err());
/// assert_eq!(schema_of::<String>(), bson::doc! { "bsonType": "string" });
/// ```
pub fn schema_of<T: BsonSchema + ?Sized>() -> Document {
    let too_deep = PATH.with(|path| {
        let mut path = path.borrow_mut();
        path.push(std::any::type_name::<T>());
        (path.len() > MAX_SCHEMA_DEPTH).then(|| recursion(&path))
    });
    let _level = Level;
    if let Some(message) = too_deep {
        panic!("{message}");
    }
    T::bson_schema()
}

/// The message for a path that got too deep: the outermost type that comes
/// back, and the types in between.
fn recursion(path: &[&'static str]) -> String {
    let repeat = path.iter().enumerate().find_map(|(i, name)| {
        path[i + 1..]
            .iter()
            .position(|later| later == name)
            .map(|gap| &path[i..=i + 1 + gap])
    });
    let what = match repeat {
        Some(cycle) => format!(
            "`{}` holds itself (through {})",
            cycle[0],
            cycle[1..]
                .iter()
                .map(|name| format!("`{name}`"))
                .collect::<Vec<_>>()
                .join(" > ")
        ),
        None => format!("`{}` nests without end", path[0]),
    };
    format!(
        "the $jsonSchema nests more than {MAX_SCHEMA_DEPTH} levels deep: {what}; a recursive type has no \
         bounded depth: store the recursive part in its own collection and point at the parent with \
         `#[reference(index)]`"
    )
}
