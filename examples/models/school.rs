//! Seed 000, many-to-many: students and courses keep id arrays on both
//! sides, written together in one transaction.

use schema_core::{Document, Schema};
use serde::{Deserialize, Serialize};

/// `students`: the courses a student takes (at most 50).
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[document(collection = "students")]
pub struct Student {
    #[serde(rename = "_id")]
    pub id: String,
    pub name: String,
    #[many_to_many(two_sided, to = Course, inverse = student_ids, max = 50)]
    pub course_ids: Vec<String>,
}

impl Student {
    /// A student who takes no course yet.
    pub fn new(id: impl Into<String>, name: impl Into<String>) -> Student {
        Student {
            id: id.into(),
            name: name.into(),
            course_ids: Vec::new(),
        }
    }
}

/// `courses`: the students of a course (at most 500).
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename_all = "camelCase")]
#[document(collection = "courses")]
pub struct Course {
    #[serde(rename = "_id")]
    pub id: String,
    pub title: String,
    #[many_to_many(two_sided, to = Student, inverse = course_ids, max = 500)]
    pub student_ids: Vec<String>,
}

impl Course {
    /// A course that no student takes yet.
    pub fn new(id: impl Into<String>, title: impl Into<String>) -> Course {
        Course {
            id: id.into(),
            title: title.into(),
            student_ids: Vec::new(),
        }
    }
}

/// The schema of both sides, for setup.
pub fn schema() -> Schema {
    Schema::new().with::<Student>().with::<Course>()
}
