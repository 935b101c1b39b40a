#!/usr/bin/env bash
# Installs the test database server, `secantusd-rs` (MongoDB wire protocol over
# WiredTiger, from the crates.io crate `secantus-mdb`), unless it is already
# installed. It builds WiredTiger with cmake: about 5 minutes on 2 cores.
set -euo pipefail

VERSION="0.5.3-beta.196"
BIN="${CARGO_HOME:-$HOME/.cargo}/bin/secantusd-rs"

if [ -n "${SECANTUSD:-}" ] && [ -x "$SECANTUSD" ]; then
  echo "secantusd-rs: using $SECANTUSD"
  exit 0
fi
if [ -x "$BIN" ] && "$BIN" --version 2>/dev/null | grep -qF "$VERSION"; then
  echo "secantusd-rs: already installed ($("$BIN" --version 2>/dev/null | head -1))"
  exit 0
fi

if ! command -v cmake >/dev/null 2>&1; then
  echo "secantusd-rs: installing cmake (needed to build WiredTiger)"
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq cmake >/dev/null
fi

echo "secantusd-rs: building secantus-mdb $VERSION (about 5 minutes)"
# The crate declares rust-version 1.98; it builds and runs on older toolchains.
cargo install secantus-mdb --version "$VERSION" --ignore-rust-version --locked --quiet
"$BIN" --version | head -1
