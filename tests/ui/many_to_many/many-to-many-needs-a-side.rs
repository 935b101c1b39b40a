use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "students")]
struct Student {
    #[serde(rename = "_id")]
    id: String,
    #[many_to_many(to = Course)]
    course_ids: Vec<String>,
    #[many_to_many(one_sided, to = Course, inverse = student_ids)]
    other_ids: Vec<String>,
}
#[derive(Document, Serialize, Deserialize)]
#[document(collection = "courses")]
struct Course {
    #[serde(rename = "_id")]
    id: String,

}

fn main() {}
