//! For a collection a registered model covers: the documents read that the
//! model cannot decode or whose arrays break its bounds (checked here, as
//! a read of them would), and those that fail its `$jsonSchema` validator
//! (counted by the server, with the query setup's plan counts violators
//! with, restricted to the documents read): what a `sync` tightening the
//! validator would refuse, seen before it.

use bson::{doc, Bson, Document as BsonDocument, RawDocument};
use mongodb::Database;
use serde::Serialize;

use crate::error::{raw_id, Error, Result};
use crate::model::codec::StoredCheck;
use crate::setup::read::violators;
use crate::setup::schema::ModelInfo;

/// How many `_id`s of a kind of failing document are named.
const NAMED: usize = 5;

/// `_id`s per validator count (an `$in` of the documents read).
const IDS_PER_COUNT: usize = 1_000;

/// What a declared model makes of the documents read.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct DeclaredAudit {
    /// The collection.
    pub collection: String,
    /// The model's Rust type name.
    pub model: String,
    /// How many documents were checked (those read).
    pub checked: u64,
    /// Those the model cannot decode (a missing field, another type...).
    pub undecodable: Failing,
    /// Those it decodes but whose arrays or maps hold more than its bounds.
    pub over_bound: Failing,
    /// Those that fail its `$jsonSchema` validator (counted by the server).
    pub validator: Failing,
}

impl DeclaredAudit {
    /// Whether any document fails the model.
    pub fn is_finding(&self) -> bool {
        self.undecodable.count + self.over_bound.count + self.validator.count > 0
    }
}

/// Documents that fail, counted and the first few named by `_id`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Failing {
    /// How many.
    pub count: u64,
    /// The `_id`s of the first five (as text; never their content).
    pub ids: Vec<String>,
}

impl Failing {
    fn add(&mut self, id: String) {
        self.count += 1;
        if self.ids.len() < NAMED {
            self.ids.push(id);
        }
    }
}

/// What is kept while reading a covered collection.
#[derive(Debug)]
pub(super) struct Checked {
    model: &'static str,
    validator: BsonDocument,
    check: Option<StoredCheck>,
    checked: u64,
    undecodable: Failing,
    over_bound: Failing,
    /// The `_id`s read, for the validator's count (a sample's only: a full
    /// scan counts over the collection).
    ids: Option<Vec<Bson>>,
}

impl Checked {
    pub(super) fn new(model: &ModelInfo, check: Option<StoredCheck>, full_scan: bool) -> Self {
        Checked {
            model: model.name,
            validator: model.validator.clone(),
            check,
            checked: 0,
            undecodable: Failing::default(),
            over_bound: Failing::default(),
            ids: (!full_scan).then(Vec::new),
        }
    }

    pub(super) fn add(&mut self, raw: &RawDocument) {
        self.checked += 1;
        if let Some(ids) = &mut self.ids {
            if let Some(id) = raw.get("_id").ok().flatten() {
                ids.extend(Bson::try_from(id).ok());
            }
        }
        match self.check.map(|check| check(raw)) {
            None | Some(Ok(())) => {}
            Some(Err(Error::OverBound { .. })) => self.over_bound.add(raw_id(raw)),
            Some(Err(_)) => self.undecodable.add(raw_id(raw)),
        }
    }

    /// The audit, with the validator counted by the server.
    pub(super) async fn audit(self, db: &Database, collection: &str) -> Result<DeclaredAudit> {
        let mut validator = Failing::default();
        if !self.validator.is_empty() {
            let parts: Vec<Option<BsonDocument>> = match &self.ids {
                None => vec![None],
                Some(ids) => ids
                    .chunks(IDS_PER_COUNT)
                    .map(|ids| Some(doc! { "_id": { "$in": ids } }))
                    .collect(),
            };
            for within in parts {
                let found = violators(db, collection, &self.validator, within).await?;
                validator.count += found.count;
                for id in found.id_texts() {
                    if validator.ids.len() < NAMED {
                        validator.ids.push(id);
                    }
                }
            }
        }
        Ok(DeclaredAudit {
            collection: collection.to_owned(),
            model: self.model.to_owned(),
            checked: self.checked,
            undecodable: self.undecodable,
            over_bound: self.over_bound,
            validator,
        })
    }
}
