#!/usr/bin/env bash
# Finds or fetches libmongocrypt >= 1.18, the C library behind the `encryption`
# feature of schema-core (through the `mongocrypt` crate), and prints the
# directory that holds it on stdout (messages go to stderr):
#
#   dir="$(scripts/install-mongocrypt.sh)"
#   export MONGOCRYPT_LIB_DIR="$dir" LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
#
# Order: `MONGOCRYPT_LIB_DIR` when it already holds a new enough library; then
# one the system's loader knows (`ldconfig -p`); otherwise the library carried
# by the pymongocrypt wheel (manylinux, libmongocrypt 1.21.0), downloaded once
# with pip into a cache directory and reused. That build has no native crypto:
# schema-core supplies it through libmongocrypt's crypto hooks.
set -euo pipefail

WHEEL_VERSION="1.21.2"
MIN_VERSION="1.18"
CACHE="${MONGOCRYPT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/schema-core/libmongocrypt-pymongocrypt-$WHEEL_VERSION}"

say() { echo "libmongocrypt: $*" >&2; }

# The version a library file reports (`mongocrypt_version`), empty if it does
# not load.
version_of() {
  python3 - "$1" 2>/dev/null <<'EOF' || true
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
lib.mongocrypt_version.restype = ctypes.c_char_p
lib.mongocrypt_version.argtypes = [ctypes.c_void_p]
print(lib.mongocrypt_version(None).decode())
EOF
}

# Whether a version string is at least MIN_VERSION.
new_enough() {
  [ -n "$1" ] && python3 - "$1" "$MIN_VERSION" <<'EOF'
import re, sys
def key(v): return tuple(int(x) for x in re.findall(r"\d+", v)[:3])
sys.exit(0 if key(sys.argv[1]) >= key(sys.argv[2]) else 1)
EOF
}

# A directory whose `libmongocrypt.so` is new enough: print it and stop.
accept() {
  local dir="$1" v
  [ -e "$dir/libmongocrypt.so" ] || return 1
  v="$(version_of "$dir/libmongocrypt.so")"
  if new_enough "$v"; then
    say "using $v in $dir"
    echo "$dir"
    exit 0
  fi
  say "skipping $dir: version '${v:-unknown}' (needs >= $MIN_VERSION)"
  return 1
}

if [ -n "${MONGOCRYPT_LIB_DIR:-}" ]; then accept "$MONGOCRYPT_LIB_DIR" || true; fi
if command -v ldconfig >/dev/null 2>&1; then
  for lib in $(ldconfig -p 2>/dev/null | awk '/libmongocrypt\.so / {print $NF}'); do
    accept "$(dirname "$lib")" || true
  done
fi
accept "$CACHE" || true

say "fetching the pymongocrypt $WHEEL_VERSION wheel (libmongocrypt 1.21.0) into $CACHE"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --no-deps --only-binary=:all: \
  --dest "$tmp" "pymongocrypt==$WHEEL_VERSION" >&2
wheel="$(ls "$tmp"/pymongocrypt-*.whl)"
python3 - "$wheel" "$tmp/lib" <<'EOF'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    z.extract("pymongocrypt/libmongocrypt.so", sys.argv[2])
EOF
mkdir -p "$CACHE"
# The real file under its SONAME (what the loader looks for at run time), the
# bare name beside it (what the linker looks for with `-lmongocrypt`).
install -m 0755 "$tmp/lib/pymongocrypt/libmongocrypt.so" "$CACHE/libmongocrypt.so.0"
ln -sf libmongocrypt.so.0 "$CACHE/libmongocrypt.so"
accept "$CACHE" || { say "the wheel's library did not load"; exit 1; }
