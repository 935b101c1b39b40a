use bson::oid::ObjectId;
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

// Each side of a two-sided pair holds the other side's `_id` type: both
// arrays here hold the wrong one, and each is reported on its own field.
#[derive(Document, Serialize, Deserialize)]
#[document(collection = "students")]
struct Student {
    #[serde(rename = "_id")]
    id: ObjectId,
    #[many_to_many(two_sided, to = Course, inverse = student_ids, max = 50)]
    course_ids: Vec<ObjectId>,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "courses")]
struct Course {
    #[serde(rename = "_id")]
    id: String,
    #[many_to_many(two_sided, to = Student, inverse = course_ids, max = 500)]
    student_ids: Vec<String>,
}

fn main() {}
