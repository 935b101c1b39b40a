// Models pulled from the data by `schema pull --full --headroom 100 --long 1000`.
// Documents read: courses 8, posts 500, students 40, users 1,000.
// Every comment says what was seen: read them, then adjust the types, the bounds and the names
// before use.

use schema_core::bson::DateTime;
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

// Every model below, for the schema command (a `src/bin/schema.rs` whose `main` awaits
// `schema_core::cli::run(&models::schema())`) and for `Schema::plan` and `sync`.
pub fn schema() -> schema_core::Schema {
    schema_core::Schema::new()
        .with::<Course>()
        .with::<Post>()
        .with::<Student>()
        .with::<User>()
}

// `courses`: 8 documents read.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "courses")]
pub struct Course {
    #[serde(rename = "_id")]
    pub id: String,
    // lengths: max 10, p50 9, p99 10, 8 arrays seen
    // holds `students` ids (36 of 36 looked up found); no index leads with it on the server
    #[serde(rename = "studentIds")]
    #[many_to_many(two_sided, to = Student, inverse = course_ids, max = 20)]
    pub student_ids: Vec<String>,
    pub title: String,
}

// `posts`: 500 documents read.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "posts")]
pub struct Post {
    #[serde(rename = "_id")]
    pub id: String,
    pub at: DateTime,
    // holds `users` ids (100 of 100 looked up found); no index leads with it on the server
    #[serde(rename = "authorId")]
    #[reference(index, to = User)]
    pub author_id: String,
    // lengths: max 3, p50 3, p99 3, 500 arrays seen
    #[embed(max = 10)]
    pub tags: Vec<String>,
    pub title: String,
}

// `students`: 40 documents read.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "students")]
pub struct Student {
    #[serde(rename = "_id")]
    pub id: String,
    // lengths: max 2, p50 2, p99 2, 40 arrays seen
    // holds `courses` ids (8 of 8 looked up found); no index leads with it on the server; 8 links
    // held on one side only
    #[serde(rename = "courseIds")]
    #[many_to_many(two_sided, to = Course, inverse = student_ids, max = 5)]
    pub course_ids: Vec<String>,
    pub name: String,
}

// `users`: 1,000 documents read.
#[derive(Document, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[document(collection = "users")]
pub struct User {
    #[serde(rename = "_id")]
    pub id: String,
    pub email: String,
    pub profile: Profile,
}

// At `profile`.
#[derive(Embedded, Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Profile {
    pub bio: String,
    #[serde(rename = "displayName")]
    pub display_name: String,
    #[serde(rename = "joinedYear")]
    pub joined_year: i32,
}
