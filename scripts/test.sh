#!/usr/bin/env bash
# The project's test command: sets up everything on a fresh machine (the test
# server included), then runs every check CI runs. Tests start their own
# server on a free port with a temporary directory, or use MONGODB_URI.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each step says when it starts, in seconds since the command began.
step() { echo "== [${SECONDS}s] $*"; }

scripts/install-server.sh
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"

step "rust-version (no locked dependency needs a newer toolchain than we declare)"
python3 scripts/check-rust-version.py
step "lean dependencies (schema-core asks tokio only for what its code uses, the driver for bson 3 only)"
python3 scripts/check-lean-deps.py
step "rustfmt"
cargo fmt --all -- --check
step "clippy (schema-core with its default features; everything with the tracing feature)"
# The feature changes schema-core alone (its spans), and the root package's
# tracing example and test: the first run checks the library as a user
# builds it by default, the second every crate and target with the feature.
cargo clippy -p schema-core --all-targets -- -D warnings
cargo clippy --workspace --all-targets --features tracing -- -D warnings
step "docs"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --features tracing
step "book (mdBook into target/book, every link of the book and the README checked)" && bash scripts/book.sh
step "package (the published crates build from their packaged sources)"
# Cargo verifies each package against the others through a temporary local
# registry, whose sources it unpacks under $CARGO_HOME/registry/src and never
# unpacks again while the version is unchanged: drop earlier unpackings of
# our own crates so the verify step builds today's sources, not a stale copy.
rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/schema-derive-[0-9]* \
       "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/schema-core-[0-9]*
cargo package -p schema-derive -p schema-core
step "examples build"
cargo build --examples --features tracing
step "tests (doctests, unit, trybuild, server-backed integration)"
log="$(mktemp)"
rel="$(mktemp)"
trap 'rm -f "$log" "$rel"' EXIT
# Every test is built and run with the `tracing` feature, as the examples
# above are built, so that nothing is built twice: the feature adds spans
# and changes no behaviour, and clippy checked the default build above.
cargo test --workspace --lib --bins --tests --features tracing --no-run
# The reliability binary (servers of its own, killed and restarted: minutes
# spent waiting on them) runs from here beside the steps below, and its
# output is read at the end. `--test '[!re]*'` is every other test target
# but `encryption` (the feature's, with the C library: its own step below);
# this check keeps it so.
cargo metadata --no-deps --format-version 1 | python3 -c '
import json, sys
tests = [t["name"] for p in json.load(sys.stdin)["packages"] for t in p["targets"] if "test" in t["kind"]]
hidden = sorted(n for n in tests if n[0] in "re" and n not in ("reliability", "encryption"))
sys.exit(f"test targets the pattern [!re]* would skip: {hidden}" if hidden else 0)'
cargo test -p schema-workspace --features tracing --test reliability >"$rel" 2>&1 &
reliability=$!
# schema-core's doctests (with `tracing`, and `cli`, which the root package
# turns on) and every Rust snippet of the README and the book (the root
# package's doctests), in one run: built alone, schema-core would unify its
# dependencies' features without the root's dev-dependencies and build
# serde_json, time, bson, the driver and itself once more for its doctests
# alone; together they reuse the build above.
cargo test -p schema-core -p schema-workspace --doc --features tracing 2>&1 | tee -a "$log"
cargo test --workspace --lib --bins --features tracing --test '[!re]*' 2>&1 | tee -a "$log"
step "encryption (libmongocrypt found or fetched; the feature's clippy, known-answer, server-backed and compile-fail tests, its chapter's snippets)"
# The `encryption` feature links libmongocrypt >= 1.18: the script prints
# the directory of one it found, or of the pymongocrypt wheel's build it
# fetched into its cache. Its tests are a binary of their own, so that the
# steps above never need the library.
crypt_dir="$(bash scripts/install-mongocrypt.sh)"
export MONGOCRYPT_LIB_DIR="$crypt_dir"
export LD_LIBRARY_PATH="$crypt_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
cargo clippy -p schema-core --all-targets --features encryption -- -D warnings
cargo test -p schema-core --features tracing,encryption --lib crypt:: 2>&1 | tee -a "$log"
# The binary holds the server-backed tests and the compile-fail cases of
# `#[encrypt]` (tests/encryption/ui), which need the feature.
cargo test --features tracing,encryption --test encryption 2>&1 | tee -a "$log"
# The book's chapter on encrypted fields: its snippets need the feature.
cargo test -p schema-workspace --doc --features tracing,encryption encrypted_fields 2>&1 | tee -a "$log"
step "diagrams (docs/diagrams.md rendered to SVG by mermaid-cli, in Chromium)"
bash scripts/render-diagrams.sh
step "reliability (started with the tests)"
wait "$reliability" || { cat "$rel"; exit 1; }
tee -a "$log" <"$rel"
echo "all checks passed in ${SECONDS}s"
# One closing line for the whole run, summed over every test binary.
awk '/^test result:/ { p += $4; f += $6 } END { printf "tests: %d passed, %d failed\n", p, f }' "$log"
