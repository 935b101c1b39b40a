//! "did you mean `max`?" for misspelled keys and field names.

/// The candidate closest to `word`, when it is close enough to be a typo.
pub fn closest<'a, I>(word: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    let limit = match word.chars().count() {
        0..=3 => 1,
        4..=6 => 2,
        _ => 3,
    };
    candidates
        .into_iter()
        .map(|c| (distance(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// ` ; did you mean `x`?` or, with no close candidate, the list of keys.
pub fn hint(word: &str, candidates: &[&str]) -> String {
    match closest(word, candidates.iter().copied()) {
        Some(close) => format!("; did you mean `{close}`?"),
        None => {
            let list: Vec<String> = candidates.iter().map(|c| format!("`{c}`")).collect();
            format!("; expected one of {}", list.join(", "))
        }
    }
}

/// The hint for a field name that names no field, given each field's Rust
/// name and stored name: the field stored under that name (attributes name
/// fields by their Rust name), one whose name differs only in case or
/// underscores, a close misspelling of a Rust or a stored name, or the one
/// field whose name the word begins or ends (`tenant` for `tenant_id`).
/// Empty when none is.
pub fn field_hint(word: &str, fields: &[(&str, &str)]) -> String {
    if let Some((rust, _)) = fields
        .iter()
        .find(|(rust, stored)| *stored == word && *rust != word)
    {
        return format!(
            "; `{word}` is the stored name of `{rust}`: name the field by its Rust name, `{rust}`"
        );
    }
    let plain = |s: &str| -> String {
        s.chars()
            .filter(|c| *c != '_' && *c != '-')
            .flat_map(char::to_lowercase)
            .collect()
    };
    let close = fields
        .iter()
        .find(|(rust, stored)| plain(rust) == plain(word) || plain(stored) == plain(word))
        .map(|(rust, _)| *rust)
        .or_else(|| closest(word, fields.iter().map(|(rust, _)| *rust)))
        .or_else(|| {
            let stored = closest(word, fields.iter().map(|(_, stored)| *stored))?;
            fields
                .iter()
                .find(|(_, s)| *s == stored)
                .map(|(rust, _)| *rust)
        })
        .or_else(|| {
            let mut part = fields.iter().filter(|(rust, stored)| {
                [rust, stored].iter().any(|name| {
                    let (name, word) = (name.to_lowercase(), word.to_lowercase());
                    name.len() > word.len() && (name.starts_with(&word) || name.ends_with(&word))
                })
            });
            match (part.next(), part.next()) {
                (Some((rust, _)), None) => Some(*rust),
                _ => None,
            }
        });
    match close {
        Some(rust) => format!("; did you mean `{rust}`?"),
        None => String::new(),
    }
}

/// Edit distance where a swap of two neighbours counts as one edit
/// (optimal string alignment), so `mxa` is one edit from `max`.
pub fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    for i in 0..=a.len() {
        d[i * width] = i;
    }
    for (j, cell) in d.iter_mut().enumerate().take(width) {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[(i - 1) * width + j] + 1)
                .min(d[i * width + j - 1] + 1)
                .min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = best;
        }
    }
    d[a.len() * width + b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(distance("max", "max"), 0);
        assert_eq!(distance("mxa", "max"), 1);
        assert_eq!(distance("collecton", "collection"), 1);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("kitten", "sitting"), 3);
    }

    #[test]
    fn suggestions() {
        let keys = ["max", "keep", "history", "unbounded"];
        assert_eq!(closest("mxa", keys), Some("max"));
        assert_eq!(closest("histroy", keys), Some("history"));
        assert_eq!(closest("colour", keys), None);
        assert_eq!(hint("mxa", &keys), "; did you mean `max`?");
        assert!(hint("zzz", &keys).contains("expected one of `max`"));
    }

    #[test]
    fn field_hints() {
        let fields = [
            ("id", "_id"),
            ("tenant_id", "tenantId"),
            ("day", "d"),
            ("display_name", "displayName"),
        ];
        let hint = |word| field_hint(word, &fields);
        // A stored name: the Rust name, not the closest spelling (`id`).
        assert_eq!(
            hint("d"),
            "; `d` is the stored name of `day`: name the field by its Rust name, `day`"
        );
        assert!(hint("_id").contains("name the field by its Rust name, `id`"));
        // The word a name begins with.
        assert_eq!(hint("tenant"), "; did you mean `tenant_id`?");
        // Case and underscores, a stored name misspelt, a Rust name misspelt.
        assert_eq!(hint("displayname"), "; did you mean `display_name`?");
        assert_eq!(hint("displayNme"), "; did you mean `display_name`?");
        assert_eq!(hint("dya"), "; did you mean `day`?");
        assert_eq!(hint("colour"), "");
        // A word two names begin with names neither.
        let two = [("room_number", "roomNumber"), ("room_name", "roomName")];
        assert_eq!(field_hint("room", &two), "");
    }
}
