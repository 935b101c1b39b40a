//! [`DriverError`]: a driver or server error the runtime has no variant
//! for, shown without anything stored.

use std::fmt;

use super::server;

/// A driver or server error the runtime has no variant of its own for
/// ([`Error::Driver`](super::Error::Driver)). Its message and its `Debug`
/// form are the driver's account without the server's raw reply and without
/// the values a server's message quotes (a stored document, an array, a
/// string: "Cannot create field 'km' in element {…}"), so that no log holds
/// stored data; its code and labels are kept. The driver's own error, data
/// included, is there for a caller who asks for it ([`get_ref`](Self::get_ref)).
pub struct DriverError(pub(super) mongodb::error::Error);

impl DriverError {
    /// The server's error code, when the server sent one.
    pub fn code(&self) -> Option<i32> {
        server::code_of(&self.0)
    }

    /// Whether the driver or the server attached this error label.
    pub fn has_label(&self, label: &str) -> bool {
        self.0.contains_label(label)
    }

    /// The driver's error as it is: its message and the server's reply may
    /// quote stored data, so keep it out of logs.
    pub fn get_ref(&self) -> &mongodb::error::Error {
        &self.0
    }

    /// The driver's error as it is (see [`get_ref`](Self::get_ref)).
    pub fn into_inner(self) -> mongodb::error::Error {
        self.0
    }
}

impl fmt::Display for DriverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&server::driver_message(&self.0))
    }
}

impl fmt::Debug for DriverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DriverError")
            .field("message", &server::driver_message(&self.0))
            .field("code", &self.code())
            .finish()
    }
}

impl From<mongodb::error::Error> for super::Error {
    fn from(err: mongodb::error::Error) -> Self {
        super::Error::Driver(DriverError(err))
    }
}
