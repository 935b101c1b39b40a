//! Rust names for stored ones: snake_case fields (keywords and digits
//! taken care of), PascalCase types in the singular, each unique in its
//! scope.

use std::collections::BTreeSet;

const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "static", "struct", "super", "trait", "true", "try", "type", "typeof",
    "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Type names the generated file already uses (its imports, the prelude,
/// std's): a model never takes one.
pub(super) const TAKEN_TYPES: &[&str] = &[
    "Binary",
    "Box",
    "Bson",
    "BsonSchema",
    "DateTime",
    "Decimal128",
    "Deserialize",
    "Document",
    "EmbedField",
    "Embedded",
    "Err",
    "Field",
    "Filter",
    "LinkField",
    "Links",
    "None",
    "ObjectId",
    "Ok",
    "Option",
    "Projection",
    "RefField",
    "Regex",
    "Repo",
    "Result",
    "Self",
    "Serialize",
    "Some",
    "String",
    "Through",
    "Timestamp",
    "Update",
    "Vec",
];

/// Whether the server and the derive take `key` as a field's stored name
/// (not empty, no `.`, no NUL, not starting with `$`).
pub(super) fn plain_key(key: &str) -> bool {
    !key.is_empty() && !key.contains(['.', '\0']) && !key.starts_with('$')
}

/// The words of a stored name: split at `_`, `-`, spaces and other
/// punctuation, and where camelCase turns (`joinedYear` -> joined, year;
/// `HTTPServer` -> http, server).
fn words(name: &str) -> Vec<String> {
    let chars: Vec<char> = name.chars().collect();
    let mut words = Vec::new();
    let mut word = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            continue;
        }
        if c.is_uppercase() && !word.is_empty() {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if prev.is_lowercase() || prev.is_ascii_digit() || (prev.is_uppercase() && next_lower) {
                words.push(std::mem::take(&mut word));
            }
        }
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// A Rust field name for a stored name: `authorId` -> `author_id`, `_id` ->
/// `id`, `type` -> `type_`, `2fa` -> `f_2fa`, `été` -> `été`.
pub(super) fn field_name(stored: &str) -> String {
    if stored == "_id" {
        return "id".to_owned();
    }
    let mut name = words(stored).join("_");
    if name.is_empty() {
        name = "field".to_owned();
    }
    if name.starts_with(|c: char| c.is_numeric()) {
        name.insert_str(0, "f_");
    }
    if KEYWORDS.contains(&name.as_str()) {
        name.push('_');
    }
    name
}

/// A PascalCase type name for a stored name, its last word in the singular
/// when `singular` (`orders` -> `Order`, `categories` -> `Category`,
/// `displayName` -> `DisplayName`).
pub(super) fn type_name(stored: &str, singular: bool) -> String {
    let mut words = words(stored);
    if singular {
        if let Some(last) = words.last_mut() {
            *last = singular_of(last);
        }
    }
    let mut name: String = words
        .iter()
        .map(|w| {
            let mut chars = w.chars();
            match chars.next() {
                Some(first) => first.to_uppercase().chain(chars).collect::<String>(),
                None => String::new(),
            }
        })
        .collect();
    if name.is_empty() {
        name = "Item".to_owned();
    }
    if name.starts_with(|c: char| c.is_numeric()) {
        name.insert(0, 'T');
    }
    name
}

fn singular_of(word: &str) -> String {
    let keep = [
        "alias", "analysis", "bonus", "bus", "campus", "census", "corpus", "news", "series",
        "species", "status", "virus",
    ];
    if keep.contains(&word) || word.len() <= 2 || word.ends_with("ss") {
        return word.to_owned();
    }
    if let Some(stem) = word.strip_suffix("ies") {
        return format!("{stem}y");
    }
    for ending in ["sses", "xes", "ches", "shes", "zes"] {
        if word.ends_with(ending) {
            return word[..word.len() - 2].to_owned();
        }
    }
    match word.strip_suffix('s') {
        Some(stem) => stem.to_owned(),
        None => word.to_owned(),
    }
}

/// Names already taken in one scope (a file's types, a struct's fields).
#[derive(Debug, Default)]
pub(super) struct Scope {
    taken: BTreeSet<String>,
}

impl Scope {
    /// A scope where `taken` are already used.
    pub(super) fn with(taken: &[&str]) -> Scope {
        Scope {
            taken: taken.iter().map(|s| (*s).to_owned()).collect(),
        }
    }

    /// The first of `candidates` not taken, or the last with the smallest
    /// number after it (`_2` for a field, `2` for a type) that is not;
    /// taken from now on.
    pub(super) fn claim(&mut self, candidates: &[String], separator: &str) -> String {
        let name = match candidates.iter().find(|c| !self.taken.contains(*c)) {
            Some(free) => free.clone(),
            None => {
                let last = candidates.last().map_or("Item", String::as_str);
                (2..)
                    .map(|n| format!("{last}{separator}{n}"))
                    .find(|c| !self.taken.contains(c))
                    .unwrap_or_default()
            }
        };
        self.taken.insert(name.clone());
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_snake_case_and_valid() {
        let cases = [
            ("authorId", "author_id"),
            ("_id", "id"),
            ("current_price", "current_price"),
            ("HTTPServer", "http_server"),
            ("type", "type_"),
            ("2fa", "f_2fa"),
            ("a-b c", "a_b_c"),
            ("", "field"),
            ("_class", "class"),
        ];
        for (stored, rust) in cases {
            assert_eq!(field_name(stored), rust, "{stored}");
        }
    }

    #[test]
    fn types_are_pascal_case_singular() {
        let cases = [
            ("orders", "Order"),
            ("categories", "Category"),
            ("boxes", "Box"),
            ("addresses", "Address"),
            ("status", "Status"),
            ("shipping_address", "ShippingAddress"),
            ("messy", "Messy"),
            ("roomMessages", "RoomMessage"),
            ("skus", "Sku"),
        ];
        for (stored, rust) in cases {
            assert_eq!(type_name(stored, true), rust, "{stored}");
        }
        assert_eq!(type_name("details", false), "Details");
    }

    #[test]
    fn a_taken_name_gets_the_next_candidate_or_a_number() {
        let mut scope = Scope::with(&["Item"]);
        let item = || vec!["Item".to_owned(), "OrderItem".to_owned()];
        assert_eq!(scope.claim(&item(), ""), "OrderItem");
        assert_eq!(scope.claim(&item(), ""), "OrderItem2");
    }
}
