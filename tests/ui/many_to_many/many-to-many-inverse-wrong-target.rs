use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

// `Student::course_ids` names `Course::teacher_ids` as its inverse, but that
// array links courses to teachers, not back to students.
#[derive(Document, Serialize, Deserialize)]
#[document(collection = "students")]
struct Student {
    #[serde(rename = "_id")]
    id: String,
    #[many_to_many(two_sided, to = Course, inverse = teacher_ids)]
    course_ids: Vec<String>,
}
#[derive(Document, Serialize, Deserialize)]
#[document(collection = "courses")]
struct Course {
    #[serde(rename = "_id")]
    id: String,
    #[many_to_many(two_sided, to = Teacher, inverse = course_ids)]
    teacher_ids: Vec<String>,
}
#[derive(Document, Serialize, Deserialize)]
#[document(collection = "teachers")]
struct Teacher {
    #[serde(rename = "_id")]
    id: String,
    #[many_to_many(two_sided, to = Course, inverse = teacher_ids)]
    course_ids: Vec<String>,
}

fn main() {}
