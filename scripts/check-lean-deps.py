#!/usr/bin/env python3
"""Fails when `schema-core` asks for more of tokio than its code uses.

The library brings no runtime: the caller does. So the tokio features it
declares must be exactly the tokio modules its sources name (`tokio::sync`,
`tokio::time`, ...), with tokio's default features off. The runtime, macros,
processes and I/O belong to the root dev package (tests, examples, benches).
Reads `cargo metadata --locked --no-deps` and the sources under
`schema-core/src`.
"""
import json
import pathlib
import re
import subprocess
import sys

# tokio modules whose name is also the feature that enables them.
GATED = {"fs", "io", "net", "process", "rt", "signal", "sync", "time", "macros"}


def main():
    meta = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--locked", "--no-deps"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    core = next(p for p in meta["packages"] if p["name"] == "schema-core")
    tokio = [d for d in core["dependencies"] if d["name"] == "tokio" and d["kind"] is None]
    if len(tokio) != 1:
        sys.exit(f"schema-core: expected one normal tokio dependency, found {len(tokio)}")
    declared = set(tokio[0]["features"])
    problems = []
    if tokio[0]["uses_default_features"]:
        problems.append("tokio's default features are on (set default-features = false)")

    src = pathlib.Path(core["manifest_path"]).parent / "src"
    used = set()
    for path in src.rglob("*.rs"):
        text = path.read_text()
        used |= {m for m in re.findall(r"\btokio::(\w+)", text) if m in GATED}
        if re.search(r"#\[\s*tokio::(main|test)", text):
            used.add("macros")
    if extra := sorted(declared - used):
        problems.append(f"declares tokio features its code does not use: {extra}")
    if missing := sorted(used - declared):
        problems.append(f"uses tokio modules it does not declare: {missing}")
    if problems:
        sys.exit("schema-core: " + "; ".join(problems))
    print(f"schema-core asks tokio for {sorted(declared)}: exactly what its code uses")


if __name__ == "__main__":
    main()
