//! Keyset pages by reference: over inserts running meanwhile, through long
//! runs of equal sort values, and over sort keys some documents lack.

mod null_sort_keys;
mod references;
mod ties;
