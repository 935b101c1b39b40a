// After `project::<View>()` only the view's fields are left: a filter or
// sort names them (`Headline::FIELDS.title`), not a field the view dropped.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "posts")]
struct Post {
    #[serde(rename = "_id")]
    id: String,
    title: String,
    body: String,
}

#[derive(Projection, Deserialize)]
#[projection(of = Post)]
struct Headline {
    title: String,
}

fn sorted(posts: &Repo<Post>) {
    let _ = posts
        .aggregate()
        .scan()
        .project::<Headline>()
        .sort(Post::FIELDS.body.asc());
}

fn main() {}
