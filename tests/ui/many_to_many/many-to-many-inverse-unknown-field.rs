use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "students")]
struct Student {
    #[serde(rename = "_id")]
    id: String,
    #[many_to_many(two_sided, to = Course, inverse = students)]
    course_ids: Vec<String>,
}
#[derive(Document, Serialize, Deserialize)]
#[document(collection = "courses")]
struct Course {
    #[serde(rename = "_id")]
    id: String,
    #[many_to_many(two_sided, to = Student, inverse = course_ids)]
    student_ids: Vec<String>,
}

fn main() {}
