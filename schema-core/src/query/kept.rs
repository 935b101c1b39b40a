//! The documents of a page as its finds hand them over (one at a time,
//! where they lie in their batch): read at once when none can hold a
//! ciphertext, else kept, to be decrypted (an `async` step) and read once
//! the page is in (see `crypt`).

use bson::{RawDocument, RawDocumentBuf};

use crate::error::Result;

/// A page's items, read or kept (see the module docs).
pub(crate) struct Kept<T> {
    sealed: bool,
    kept: Vec<RawDocumentBuf>,
    items: Vec<T>,
}

impl<T> Kept<T> {
    /// Keeps the documents when `sealed` (they may hold ciphertext), reads
    /// them at once otherwise.
    pub(crate) fn new(sealed: bool) -> Self {
        Kept {
            sealed,
            kept: Vec::new(),
            items: Vec::new(),
        }
    }

    /// One document of the page: read by `read`, or kept.
    pub(crate) fn take(
        &mut self,
        raw: &RawDocument,
        read: impl FnOnce(&RawDocument) -> Result<T>,
    ) -> Result<()> {
        if self.sealed {
            self.kept.push(raw.to_owned());
        } else {
            self.items.push(read(raw)?);
        }
        Ok(())
    }

    /// The page's items, the kept ones opened (decrypted and read) by
    /// `open`, in the page's order.
    pub(crate) async fn open<F, Fut>(self, mut open: F) -> Result<Vec<T>>
    where
        F: FnMut(RawDocumentBuf) -> Fut,
        Fut: std::future::Future<Output = Result<T>>,
    {
        let mut items = self.items;
        for raw in self.kept {
            items.push(open(raw).await?);
        }
        Ok(items)
    }
}
