#!/usr/bin/env bash
# The demo: every seed scenario against a real server, with the figures printed,
# then `verify` checks the data the examples left behind.
# Installs the test server if missing and starts it on a free port with a
# temporary directory, unless MONGODB_URI is set: then it uses that server and
# leaves the data in place (each example prints its database name).
# Exits non-zero as soon as an example's figures are not the seed's.
set -euo pipefail
cd "$(dirname "$0")/.."

DEFAULT_EXAMPLES="blog school chat orders catalog"
EXAMPLES="${EXAMPLES:-$DEFAULT_EXAMPLES}"

if [ -z "${MONGODB_URI:-}" ]; then
  scripts/install-server.sh
fi
echo "building the examples (release)"
cargo build --release --quiet --examples

if [ -z "${MONGODB_URI:-}" ]; then
  BIN="${SECANTUSD:-${CARGO_HOME:-$HOME/.cargo}/bin/secantusd-rs}"
  DIR="$(mktemp -d)"
  "$BIN" --host 127.0.0.1 --port 0 --storage-path "$DIR/data" --cache-size 256M --sync-on-commit \
    --enable-test-commands >"$DIR/out" 2>"$DIR/log" &
  PID=$!
  trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$DIR"' EXIT
  for _ in $(seq 1 300); do
    grep -q "listening on" "$DIR/out" 2>/dev/null && break
    kill -0 $PID 2>/dev/null || { cat "$DIR/log"; echo "server did not start"; exit 1; }
    sleep 0.1
  done
  ADDR="$(sed -n 's/.*listening on //p' "$DIR/out" | head -1)"
  [ -n "$ADDR" ] || { cat "$DIR/log"; echo "server did not start"; exit 1; }
  export MONGODB_URI="mongodb://$ADDR/?directConnection=true"
  echo "demo server: secantusd-rs on $ADDR (temporary data, stopped at the end)"
  KEEP=0
else
  echo "demo server: MONGODB_URI (data is left in place)"
  KEEP=1
fi

for example in $EXAMPLES; do
  echo
  echo "=================== example: $example ==================="
  cargo run --release --quiet --example "$example"
done

if [ "$EXAMPLES" = "$DEFAULT_EXAMPLES" ]; then
  echo
  echo "=================== verify: the data left behind ==================="
  cargo run --release --quiet --example verify
fi
echo
echo "demo finished: every example ran"
if [ "$KEEP" = 1 ]; then
  DATABASES=""
  for example in $EXAMPLES; do
    case "$example" in
      blog | school | chat) DATABASES="$DATABASES seed000_$example" ;;
      orders) DATABASES="$DATABASES seed001_orders" ;;
      catalog) DATABASES="$DATABASES seed004_catalog" ;;
    esac
  done
  echo "data left in place on MONGODB_URI, databases:$DATABASES"
fi
