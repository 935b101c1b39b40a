// A copy of an encrypted field would store its value in clear.
use schema_core::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "doctors")]
struct Doctor {
    #[serde(rename = "_id")]
    id: String,
    #[encrypt(random)]
    license: String,
}

#[derive(Document, Serialize, Deserialize)]
#[document(collection = "appointments")]
struct Appointment {
    #[serde(rename = "_id")]
    id: String,
    #[reference(index, to = Doctor)]
    doctor: String,
    #[copy(from = doctor, field = license)]
    doctor_license: Option<String>,
}

fn main() {}
