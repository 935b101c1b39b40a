//! What a `Schema` tells about the models it holds without writing them:
//! clashing collections, the verification of links and copies, diagrams.

mod collisions;
mod diagram;
mod verify;
