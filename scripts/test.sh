#!/usr/bin/env bash
# The project's test command: sets up everything on a fresh machine (the test
# server included), then runs every check CI runs. Tests start their own
# server on a free port with a temporary directory, or use MONGODB_URI.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-server.sh
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

echo "== rustfmt"
cargo fmt --all -- --check
echo "== clippy"
cargo clippy --workspace --all-targets -- -D warnings
echo "== tests"
cargo test --workspace --lib --bins --tests --examples
cargo test --workspace --doc
echo "== docs"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps
echo "all checks passed"
