//! What can be told from a field's type as written, before type checking.
//!
//! These checks give a direct message naming the field for the obvious cases
//! (`Vec<T>`, `Option<HashMap<K, V>>`, `String`); the trait bounds in the
//! generated code catch everything else (type aliases, nested sub-documents).

use syn::{GenericArgument, PathArguments, Type};

/// A collection that can grow without bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Growable {
    Array,
    Map,
}

impl Growable {
    pub fn noun(self) -> &'static str {
        match self {
            Growable::Array => "array",
            Growable::Map => "map",
        }
    }
}

const ARRAYS: &[&str] = &[
    "Vec",
    "VecDeque",
    "HashSet",
    "BTreeSet",
    "IndexSet",
    "LinkedList",
];
const MAPS: &[&str] = &["HashMap", "BTreeMap", "IndexMap"];
const WRAPPERS: &[&str] = &["Option", "Box", "Arc", "Rc"];

/// Obvious single values (with [`BSON_VALUES`]); these have no fields of
/// their own whatever scope the model is in: the primitives and `String`.
const PRIMITIVES: &[&str] = &[
    "String", "str", "bool", "char", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16",
    "u32", "u64", "u128", "usize", "f32", "f64",
];

/// bson's value types, the other obvious single values; a bare `DateTime`
/// may also be the user's own type, `bson::DateTime` is bson's.
const BSON_VALUES: &[&str] = &["ObjectId", "DateTime", "Decimal128", "Uuid", "Timestamp"];

/// Whether the type, as written, can hold no sub-document with field
/// constants of its own: a primitive, `String` or one of bson's value types
/// named through `bson::`, also inside `Option`, `Box`, `Arc`, `Rc`, an
/// array, a list or a set. Its field constant needs no path type (no field
/// constants below it). Anything else, an alias included, may: it keeps one.
pub fn holds_no_fields(ty: &Type) -> bool {
    let inner = peel(ty);
    if let Type::Array(array) = inner {
        return holds_no_fields(&array.elem);
    }
    if let Some((kind, item)) = growable_with_items(ty) {
        return kind == Growable::Array && item.is_some_and(holds_no_fields);
    }
    match last_name(inner) {
        Some((name, before, true)) => {
            PRIMITIVES.contains(&name.as_str())
                || (BSON_VALUES.contains(&name.as_str())
                    && matches!(before.as_deref(), Some("bson" | "oid")))
        }
        _ => false,
    }
}

/// Looks through parentheses, macro groups, references and the wrappers
/// `Option`, `Box`, `Arc`, `Rc`.
pub fn peel(mut ty: &Type) -> &Type {
    loop {
        ty = match ty {
            Type::Paren(p) => &p.elem,
            Type::Group(g) => &g.elem,
            Type::Reference(r) => &r.elem,
            Type::Path(p) if p.qself.is_none() => {
                let Some(last) = p.path.segments.last() else {
                    return ty;
                };
                if !WRAPPERS.contains(&last.ident.to_string().as_str()) {
                    return ty;
                }
                match single_type_arg(&last.arguments) {
                    Some(inner) => inner,
                    None => return ty,
                }
            }
            _ => return ty,
        };
    }
}

fn single_type_arg(args: &PathArguments) -> Option<&Type> {
    let PathArguments::AngleBracketed(args) = args else {
        return None;
    };
    let mut types = args.args.iter().filter_map(|a| match a {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    });
    let first = types.next()?;
    types.next().is_none().then_some(first)
}

/// The last path segment's name, when the type is a plain path.
fn last_name(ty: &Type) -> Option<(String, Option<String>, bool)> {
    let Type::Path(p) = ty else { return None };
    if p.qself.is_some() {
        return None;
    }
    let mut segments = p.path.segments.iter().rev();
    let last = segments.next()?;
    let before = segments.next().map(|s| s.ident.to_string());
    Some((
        last.ident.to_string(),
        before,
        matches!(last.arguments, PathArguments::None),
    ))
}

/// `Some` when the type, looking through `Option`/`Box`/`Arc`, is obviously
/// a collection with no bound of its own.
pub fn growable(ty: &Type) -> Option<Growable> {
    growable_with_items(ty).map(|(kind, _)| kind)
}

/// [`growable`], with the item type when it is written out (the value type
/// of a map).
fn growable_with_items(ty: &Type) -> Option<(Growable, Option<&Type>)> {
    let inner = peel(ty);
    if let Type::Slice(slice) = inner {
        return Some((Growable::Array, Some(&slice.elem)));
    }
    let kind = growable_name(inner)?;
    let item = match inner {
        Type::Path(p) => p
            .path
            .segments
            .last()
            .and_then(|last| match &last.arguments {
                PathArguments::AngleBracketed(args) => match kind {
                    Growable::Array => args.args.iter().find_map(as_type),
                    Growable::Map => args.args.iter().filter_map(as_type).nth(1),
                },
                _ => None,
            }),
        _ => None,
    };
    Some((kind, item))
}

fn as_type(arg: &GenericArgument) -> Option<&Type> {
    match arg {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    }
}

/// The advice for a field whose type is obviously an array or map with no
/// bound, naming what it is: an array of free-form values (`bson::Array`)
/// and an array of arrays cannot be fixed by `#[embed(max = N)]` alone.
pub fn unbounded_advice(ty: &Type, label: &str) -> Option<String> {
    let (kind, item) = growable_with_items(ty)?;
    let noun = kind.noun();
    if is_bson_array(peel(ty)) {
        return Some(format!(
            "unbounded array of free-form values `{label}`: describe the items with a `#[derive(Embedded)]` type \
             and bound the array with `#[embed(max = N)]` (`Vec<Item>`), store them in their own collection and \
             point at the parent with `#[reference(index)]`, or keep it free-form with `#[embed(unbounded = \"reason\")]`"
        ));
    }
    if let Some(inner) = item.and_then(growable) {
        let inner = inner.noun();
        return Some(format!(
            "unbounded {noun} of {inner}s `{label}`: `#[embed(max = N)]` would bound the outer {noun} only; \
             each inner {inner} needs its own sub-document: a `#[derive(Embedded)]` struct holding it with its own \
             `#[embed(max = N)]`, stored in this {noun} with `#[embed(max = N)]`"
        ));
    }
    Some(format!(
        "unbounded {noun} `{label}`: add `#[embed(max = N)]`, or store the children in their own collection and \
         point at the parent with `#[reference(index)]`"
    ))
}

/// The free-form BSON type a field is written as, looking through
/// `Option`/`Box`: `bson::Document` (or a bare `Document`), a raw document,
/// or `bson::Bson`. Keys unknown to the model: neither an array nor a map.
pub fn free_form_name(ty: &Type) -> Option<&'static str> {
    let (name, before, bare) = last_name(peel(ty))?;
    if !bare || !matches!(before.as_deref(), None | Some("bson")) {
        return None;
    }
    match name.as_str() {
        "Document" => Some("bson::Document"),
        "RawDocumentBuf" => Some("bson::RawDocumentBuf"),
        "Bson" => Some("bson::Bson"),
        _ => None,
    }
}

fn is_bson_array(ty: &Type) -> bool {
    matches!(last_name(ty), Some((name, before, true))
        if name == "Array" && matches!(before.as_deref(), None | Some("bson")))
}

/// Whether the type names the container itself (`Self` or its own name, as
/// a one-segment path) anywhere inside it, other than in `PhantomData`:
/// a recursive type.
pub fn holds_itself(ty: &Type, container: &syn::Ident) -> bool {
    match ty {
        Type::Paren(p) => holds_itself(&p.elem, container),
        Type::Group(g) => holds_itself(&g.elem, container),
        Type::Reference(r) => holds_itself(&r.elem, container),
        Type::Array(a) => holds_itself(&a.elem, container),
        Type::Slice(s) => holds_itself(&s.elem, container),
        Type::Ptr(p) => holds_itself(&p.elem, container),
        Type::Tuple(t) => t.elems.iter().any(|e| holds_itself(e, container)),
        Type::Path(p) => {
            if let Some(qself) = &p.qself {
                if holds_itself(&qself.ty, container) {
                    return true;
                }
            }
            if p.path.segments.len() == 1 {
                let ident = &p.path.segments[0].ident;
                if ident == "Self" || ident == container {
                    return true;
                }
            }
            p.path.segments.iter().any(|segment| {
                segment.ident != "PhantomData"
                    && matches!(&segment.arguments, PathArguments::AngleBracketed(args)
                        if args.args.iter().filter_map(as_type).any(|t| holds_itself(t, container)))
            })
        }
        _ => false,
    }
}

fn growable_name(inner: &Type) -> Option<Growable> {
    let (name, _, _) = last_name(inner)?;
    if ARRAYS.contains(&name.as_str()) {
        return Some(Growable::Array);
    }
    if MAPS.contains(&name.as_str()) {
        return Some(Growable::Map);
    }
    // `bson::Array` is a `Vec<Bson>`; a bare `Array` is taken to be it too.
    is_bson_array(inner).then_some(Growable::Array)
}

/// Whether the type is, looking through `Option`, a list of values (a
/// growable array or a fixed-size one): what `#[reference]` must not hold.
pub fn is_list(ty: &Type) -> bool {
    matches!(growable(ty), Some(Growable::Array)) || matches!(peel(ty), Type::Array(_))
}

/// The name of an obvious single value (`String`, `i32`, `ObjectId`, ...),
/// looking through `Option`/`Box`.
pub fn scalar_name(ty: &Type) -> Option<String> {
    let (name, _, bare) = last_name(peel(ty))?;
    let scalar = PRIMITIVES.contains(&name.as_str()) || BSON_VALUES.contains(&name.as_str());
    (bare && scalar).then_some(name)
}

/// The bare name of the type, when it is a plain path with no arguments
/// (`i64`, `ObjectId`, `bson::oid::ObjectId`), looking through parentheses
/// only: what a rule that needs one exact type compares.
pub fn bare_name(ty: &Type) -> Option<String> {
    let mut ty = ty;
    while let Type::Paren(p) = ty {
        ty = &p.elem;
    }
    match last_name(ty)? {
        (name, _, true) => Some(name),
        _ => None,
    }
}

/// The last path segment's name as written, arguments aside (`Vec` for
/// `Vec<String>`), looking through parentheses only.
pub fn outer_name(ty: &Type) -> Option<String> {
    let mut ty = ty;
    while let Type::Paren(p) = ty {
        ty = &p.elem;
    }
    last_name(ty).map(|(name, _, _)| name)
}

/// Whether the type is written `Option<...>` (looking through parentheses).
pub fn is_option(ty: &Type) -> bool {
    let mut ty = ty;
    while let Type::Paren(p) = ty {
        ty = &p.elem;
    }
    matches!(last_name(ty), Some((name, _, false)) if name == "Option")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A bad test type parses as an empty verbatim type, failing the assertions.
    fn ty(s: &str) -> Type {
        syn::parse_str(s).unwrap_or(Type::Verbatim(proc_macro2::TokenStream::new()))
    }

    #[test]
    fn sees_collections_through_wrappers() {
        assert_eq!(growable(&ty("Vec<String>")), Some(Growable::Array));
        assert_eq!(growable(&ty("Option<Box<Vec<T>>>")), Some(Growable::Array));
        assert_eq!(
            growable(&ty("std::collections::VecDeque<T>")),
            Some(Growable::Array)
        );
        assert_eq!(growable(&ty("Arc<HashMap<K, V>>")), Some(Growable::Map));
        assert_eq!(growable(&ty("bson::Array")), Some(Growable::Array));
        assert_eq!(growable(&ty("Box<[u8]>")), Some(Growable::Array));
        assert_eq!(growable(&ty("[u8; 4]")), None);
        assert_eq!(growable(&ty("String")), None);
        assert_eq!(growable(&ty("my::Array")), None);
        assert_eq!(growable(&ty("Tags")), None);
    }

    #[test]
    fn advice_names_what_the_type_is() {
        let advice = |s: &str| unbounded_advice(&ty(s), "f").unwrap_or_default();
        assert!(advice("Vec<String>").starts_with("unbounded array `f`: add `#[embed(max = N)]`"));
        assert!(advice("HashMap<String, i32>").starts_with("unbounded map `f`"));
        assert!(advice("Vec<Vec<String>>").starts_with("unbounded array of arrays `f`"));
        assert!(advice("BTreeMap<String, Vec<u8>>").starts_with("unbounded map of arrays `f`"));
        assert!(advice("Option<Box<[Vec<u8>]>>").starts_with("unbounded array of arrays `f`"));
        assert!(advice("bson::Array").starts_with("unbounded array of free-form values `f`"));
        assert_eq!(unbounded_advice(&ty("String"), "f"), None);
    }

    #[test]
    fn finds_recursion() {
        let node: syn::Ident = syn::parse_quote!(Node);
        assert!(holds_itself(&ty("Option<Box<Self>>"), &node));
        assert!(holds_itself(&ty("Vec<Node>"), &node));
        assert!(holds_itself(&ty("Option<(i32, Box<Node>)>"), &node));
        assert!(holds_itself(&ty("HashMap<String, Node>"), &node));
        assert!(!holds_itself(&ty("PhantomData<Node>"), &node));
        assert!(!holds_itself(&ty("other::Node"), &node));
        assert!(!holds_itself(&ty("Vec<NodeId>"), &node));
    }

    #[test]
    fn names_scalars() {
        assert_eq!(scalar_name(&ty("String")).as_deref(), Some("String"));
        assert_eq!(scalar_name(&ty("Option<i32>")).as_deref(), Some("i32"));
        assert_eq!(
            scalar_name(&ty("bson::oid::ObjectId")).as_deref(),
            Some("ObjectId")
        );
        assert_eq!(scalar_name(&ty("Vec<String>")), None);
        assert_eq!(scalar_name(&ty("Profile")), None);
    }

    #[test]
    fn tells_values_without_fields() {
        for plain in [
            "String",
            "Option<String>",
            "Vec<String>",
            "Option<Box<i64>>",
            "[u8; 4]",
            "bson::DateTime",
            "mongodb::bson::oid::ObjectId",
            "BTreeSet<u32>",
        ] {
            assert!(holds_no_fields(&ty(plain)), "{plain}");
        }
        for may in [
            "Profile",
            "DateTime",
            "Vec<Item>",
            "Option<Address>",
            "HashMap<String, String>",
            "bson::Document",
            "Alias",
            "Vec<T>",
        ] {
            assert!(!holds_no_fields(&ty(may)), "{may}");
        }
    }

    #[test]
    fn lists() {
        assert!(is_list(&ty("Vec<ObjectId>")));
        assert!(is_list(&ty("Option<HashSet<String>>")));
        assert!(is_list(&ty("[String; 3]")));
        assert!(!is_list(&ty("ObjectId")));
        assert!(!is_list(&ty("HashMap<String, String>")));
        assert!(is_option(&ty("Option<String>")));
        assert!(!is_option(&ty("String")));
    }
}
