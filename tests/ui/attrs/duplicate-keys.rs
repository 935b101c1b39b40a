// Every repeated attribute key is reported the same way, on the repeat, and
// the first value is the one kept: including the keys once never checked
// (`keep`, `history`, `unbounded`, `inverse`) and `collection` across two
// `#[document]` attributes.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "comments")]
struct Comment {
    #[serde(rename = "_id")]
    id: String,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts")]
#[document(collection = "articles")]
#[document(index(keys(title = asc), name = "by_title", name = "title_again"))]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    title: String,
    #[embed(max = 10, keep = "newest", keep = "oldest", history = Comment, history = Comment)]
    comments: Vec<String>,
    #[embed(unbounded = "a fixed list", unbounded = "said twice")]
    labels: Vec<String>,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "students")]
struct Student {
    #[serde(rename = "_id")]
    id: String,
    #[many_to_many(two_sided, to = Course, inverse = student_ids, inverse = student_ids)]
    course_ids: Vec<String>,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "courses")]
struct Course {
    #[serde(rename = "_id")]
    id: String,
    #[many_to_many(two_sided, two_sided, to = Student, inverse = course_ids)]
    student_ids: Vec<String>,
}

fn main() {}
