//! Transactions: the convenient API's specification replayed, the options
//! commits are sent with, sessions given to every helper, and the retries
//! each helper counts.

mod options;
mod retry_counts;
mod session_actions;
mod spec;
