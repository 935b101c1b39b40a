//! Client-side field encryption (`--features encryption`; libmongocrypt from
//! `scripts/install-mongocrypt.sh` on `MONGOCRYPT_LIB_DIR` and
//! `LD_LIBRARY_PATH`): data keys in the key vault, explicit encryption and
//! decryption against the real server, and encrypted fields declared on
//! models (their writes, reads, filters, setup and compile-time rules). A
//! binary of its own, built only with the feature (`cargo test --features encryption --test encryption`),
//! so that the other tests never need the C library.

#[path = "../support/mod.rs"]
mod support;

mod changes;
mod copies;
mod corpus;
mod explicit;
mod fields;
mod keys;
mod legacy;
mod migrate;
mod moved;
mod nested;
mod outside;
mod reads;
mod rotate;
mod ui;
mod verify;
