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
const SCALARS: &[&str] = &[
    "String",
    "str",
    "bool",
    "char",
    "i8",
    "i16",
    "i32",
    "i64",
    "i128",
    "isize",
    "u8",
    "u16",
    "u32",
    "u64",
    "u128",
    "usize",
    "f32",
    "f64",
    "ObjectId",
    "DateTime",
    "Decimal128",
    "Uuid",
    "Timestamp",
];

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
    let inner = peel(ty);
    if let Type::Slice(_) = inner {
        return Some(Growable::Array);
    }
    let (name, before, bare) = last_name(inner)?;
    if ARRAYS.contains(&name.as_str()) {
        return Some(Growable::Array);
    }
    if MAPS.contains(&name.as_str()) {
        return Some(Growable::Map);
    }
    // `bson::Array` is a `Vec<Bson>`; a bare `Array` is taken to be it too.
    if name == "Array" && bare && matches!(before.as_deref(), None | Some("bson")) {
        return Some(Growable::Array);
    }
    None
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
    (bare && SCALARS.contains(&name.as_str())).then_some(name)
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
