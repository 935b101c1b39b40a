//! The walk's results pinned: two collections of documents that hold every
//! shape the walk tells apart (nested arrays, sub-documents inside arrays
//! and inside those, polymorphic tags at the top and inside array items,
//! one path holding values of mixed types, an empty key, a dotted key
//! beside the sub-document path it spells, more candidate paths, tag values
//! and pairs than are kept) are read, and what the walk kept (each array's
//! lengths and growth, the sizes, the polymorphic sub-documents, every
//! candidate path with its kinds, distinct values and links) is compared,
//! line by line, with `walk_tests.txt`, written by the walk that built
//! documents and strings per field. `WALK_TESTS=overwrite` writes it again.

use bson::{doc, oid::ObjectId, Bson, DateTime, Document, RawDocumentBuf};

use super::options::AuditOptions;
use super::references::dump;
use super::scan::Scan;

/// A small deterministic generator (a 64-bit LCG).
struct Draw(u64);

impl Draw {
    fn next(&mut self, below: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % below.max(1)
    }
}

fn oid(seconds: u32, n: u32) -> ObjectId {
    let c = n.to_be_bytes();
    ObjectId::from_parts(seconds, [7; 5], [c[1], c[2], c[3]])
}

/// A value of a type chosen by `pick`.
fn mixed(pick: u64, i: i64) -> Bson {
    match pick % 9 {
        0 => Bson::Int32(i as i32),
        1 => Bson::Int64(i),
        2 => Bson::Double(i as f64 / 4.0),
        3 => Bson::String(format!("v{}", i % 37)),
        4 => Bson::Null,
        5 => Bson::Boolean(i % 2 == 0),
        6 => Bson::ObjectId(oid(1_600_000_000, (i % 13) as u32)),
        7 => Bson::Document(doc! { "inner": i, "t": format!("k{}", i % 3) }),
        _ => Bson::Array(vec![Bson::Int32(1), Bson::String("x".into())]),
    }
}

/// Events: ObjectId `_id`s a minute apart, so each document's age is its
/// `_id`'s time.
fn events(count: u32) -> Vec<Document> {
    let mut draw = Draw(46);
    (0..count)
        .map(|i| {
            let kind = ["click", "view", "buy", "refund"][draw.next(4) as usize];
            let details = match kind {
                "click" => doc! { "x": draw.next(800) as i32, "y": draw.next(600) as i32 },
                "view" => doc! {
                    "page": format!("/p/{}", draw.next(50)),
                    "ms": draw.next(9000) as i64,
                    "trail": (0..draw.next(4)).map(|t| format!("/t/{t}")).collect::<Vec<_>>(),
                },
                "buy" => doc! {
                    "sku": format!("s{}", draw.next(400)),
                    "qty": 1 + draw.next(3) as i32,
                    "price": 9.5,
                    "lines": (0..1 + draw.next(3))
                        .map(|l| doc! { "n": l as i32, "tags": ["a", "b"] })
                        .collect::<Vec<_>>(),
                },
                _ => doc! { "reason": "late", "of": oid(1_700_000_000, draw.next(150) as u32) },
            };
            let items: Vec<Document> = (0..draw.next(4))
                .map(|k| {
                    let t = ["pen", "book", "cup"][draw.next(3) as usize];
                    let spec = match t {
                        "pen" => doc! { "ink": "blue" },
                        "book" => doc! { "pages": draw.next(900) as i32, "isbn": format!("{k}") },
                        _ => doc! { "ml": 250, "lid": { "color": "red" } },
                    };
                    doc! {
                        "type": t,
                        "spec": spec,
                        "sku": format!("s{}", draw.next(400)),
                        // Older documents hold more.
                        "vals": (0..(count - i) / 100 + draw.next(2) as u32).map(|v| v as i32).collect::<Vec<_>>(),
                        "grid": [[1, 2], [{ "x": 1, "deep": [[{ "y": 2 }]] }], 3, []],
                    }
                })
                .collect();
            let mut d = doc! {
                "_id": oid(1_700_000_000 + i * 60, i),
                "kind": kind,
                "status": format!("s{}", draw.next(30)),
                "details": details,
                "n": mixed(draw.next(9), i64::from(i)),
                "ref": oid(1_700_000_000, draw.next(150) as u32),
                "refs": (0..draw.next(5))
                    .map(|_| oid(1_700_000_000, draw.next(150) as u32))
                    .collect::<Vec<_>>(),
                "items": items,
                "matrix": (0..draw.next(3))
                    .map(|r| (0..r).map(|c| Bson::Int32(c as i32)).collect::<Vec<_>>())
                    .collect::<Vec<_>>(),
                "dot.ted": i % 3 == 0,
                "dot": { "ted": i as i64, "other": "x" },
                "at": DateTime::from_millis(1_700_000_000_000 + i64::from(i)),
            };
            if i % 5 == 0 {
                d.insert(
                    "",
                    vec![doc! { "_id": i, "inner": [i, i + 1], "label": "e" }],
                );
            }
            if i % 97 == 3 {
                // More string fields and sub-documents than pairs are kept.
                for s in 0..20 {
                    d.insert(format!("s{s}"), format!("tag{}", draw.next(3)));
                }
                for s in 0..15 {
                    d.insert(format!("d{s}"), doc! { format!("k{}", draw.next(4)): 1 });
                }
            }
            if i % 251 == 7 {
                // More candidate paths than are kept.
                for f in 0..300 {
                    d.insert(format!("f{f}"), i64::from(f));
                }
            }
            if i % 61 == 5 {
                // More keys under one tag value than are kept.
                let wide: Document = (0..130)
                    .map(|k| (format!("w{:03}", (k + i) % 160), Bson::Int32(k as i32)))
                    .collect();
                d.insert("shape", "wide");
                d.insert("layout", wide);
            } else if i % 2 == 0 {
                d.insert("shape", ["tall", "flat"][(i % 4 / 2) as usize]);
                d.insert("layout", doc! { format!("h{}", i % 4): 1 });
            }
            d
        })
        .collect()
}

/// Orders: int `_id`s, aged by their first date field; `hist` grows with
/// age, `pad` makes a few of them large.
fn orders(count: u32) -> Vec<Document> {
    let mut draw = Draw(7);
    (0..count)
        .map(|i| {
            let mut d = doc! {
                "_id": i64::from(i),
                "customer": format!("c{}", draw.next(60)),
                "when": DateTime::from_millis(1_600_000_000_000 + i64::from(i) * 86_400_000),
                "hist": (0..(count - i) / 10).map(|h| h as i32).collect::<Vec<_>>(),
                "lines": (0..1 + draw.next(3))
                    .map(|_| doc! { "product_id": format!("p{}", draw.next(30)), "n": mixed(draw.next(9), 3) })
                    .collect::<Vec<_>>(),
            };
            if i % 50 == 9 {
                d.insert("pad", "p".repeat(1000 + i as usize));
            }
            d
        })
        .collect()
}

fn walked(name: &str, docs: &[Document]) -> String {
    let mut scan = Scan::new(name, None);
    for d in docs {
        scan.add(&RawDocumentBuf::try_from(d).expect("a document"));
    }
    let options = AuditOptions {
        long: 40,
        ..AuditOptions::default()
    };
    let audit = scan.audit(&options);
    let mut out = format!("collection {name}: read {}\n", audit.read);
    for array in &audit.arrays {
        out.push_str(&format!("{array:?}\n"));
    }
    out.push_str(&format!("{:?}\n", audit.sizes));
    for p in &audit.polymorphic {
        out.push_str(&format!("{p:?}\n"));
    }
    out.push_str(&dump(&scan.ids, &scan.candidates));
    out
}

#[test]
fn the_walk_keeps_what_it_always_kept() {
    let got = walked("events", &events(3_000)) + &walked("orders", &orders(400));
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/adopt/audit/walk_tests.txt"
    );
    if std::env::var("WALK_TESTS").as_deref() == Ok("overwrite") {
        std::fs::write(file, &got).expect("write");
        return;
    }
    let want = std::fs::read_to_string(file).expect("walk_tests.txt");
    for (n, (g, w)) in got.lines().zip(want.lines()).enumerate() {
        assert_eq!(g, w, "line {}", n + 1);
    }
    assert_eq!(got.lines().count(), want.lines().count());
}
