#!/usr/bin/env bash
# Renders every Mermaid block of docs/diagrams.md (the examples' models, as
# `Schema::diagram()` draws them) to SVG with the Mermaid project's own
# renderer, `@mermaid-js/mermaid-cli` (npm), in a Chromium from the Debian
# packages. A block the renderer cannot parse fails the run. The SVGs go to
# target/diagrams/ (not checked in: GitHub renders the blocks itself).
set -euo pipefail
cd "$(dirname "$0")/.."

MMDC_VERSION="11.17.0"
TOOLS="target/mermaid-cli"
OUT="target/diagrams"

if ! command -v chromium >/dev/null 2>&1; then
  echo "diagrams: installing chromium (Debian) for the Mermaid renderer"
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
if [ ! -x "$TOOLS/node_modules/.bin/mmdc" ] \
  || ! "$TOOLS/node_modules/.bin/mmdc" --version 2>/dev/null | grep -qF "$MMDC_VERSION"; then
  echo "diagrams: installing @mermaid-js/mermaid-cli $MMDC_VERSION (npm)"
  mkdir -p "$TOOLS"
  (cd "$TOOLS" && PUPPETEER_SKIP_DOWNLOAD=1 npm install --silent --no-audit --no-fund \
    "@mermaid-js/mermaid-cli@$MMDC_VERSION" >/dev/null)
fi

mkdir -p "$OUT"
cat > "$OUT/puppeteer.json" <<JSON
{"executablePath": "$(command -v chromium)", "args": ["--no-sandbox", "--disable-gpu"]}
JSON
# One .mmd file per ```mermaid block, named after the heading above it.
python3 - "$OUT" <<'PY'
import pathlib, re, sys
out = pathlib.Path(sys.argv[1])
text = pathlib.Path("docs/diagrams.md").read_text()
blocks = re.findall(r"^## (\S+)[^\n]*\n+```mermaid\n(.*?)```", text, re.S | re.M)
if not blocks:
    sys.exit("docs/diagrams.md holds no mermaid block")
for name, body in blocks:
    (out / f"{name}.mmd").write_text(body)
print(f"diagrams: {len(blocks)} blocks: {', '.join(n for n, _ in blocks)}")
PY
for mmd in "$OUT"/*.mmd; do
  "$TOOLS/node_modules/.bin/mmdc" -q -p "$OUT/puppeteer.json" -i "$mmd" -o "${mmd%.mmd}.svg"
  echo "diagrams: rendered ${mmd%.mmd}.svg ($(wc -c < "${mmd%.mmd}.svg") bytes)"
done
