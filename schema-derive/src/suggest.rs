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
}
