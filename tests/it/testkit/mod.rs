//! The test setup itself: the server the tests share, and the client that
//! records the commands it sends.

mod command_log;
mod server_smoke;
