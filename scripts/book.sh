#!/usr/bin/env bash
# Builds the book (book/, mdBook) into target/book and checks every link of
# the book and of the README (scripts/check-book-links.py). Installs the
# pinned mdBook from crates.io into cargo's bin directory when it is missing
# (a few minutes, once). The book's Rust snippets are compiled elsewhere: as
# doctests of the root package (src/lib.rs).
set -euo pipefail
cd "$(dirname "$0")/.."

MDBOOK_VERSION=0.5.4
bin="${CARGO_HOME:-$HOME/.cargo}/bin"
export PATH="$bin:$PATH"

if [ "$(mdbook --version 2>/dev/null)" != "mdbook v$MDBOOK_VERSION" ]; then
    echo "installing mdbook $MDBOOK_VERSION into $bin (a few minutes, once)"
    cargo install mdbook --locked --version "$MDBOOK_VERSION"
fi

rm -rf target/book
mdbook build book
python3 scripts/check-book-links.py
