#!/usr/bin/env python3
"""Fails when `schema-core` asks for more of tokio than its code uses, or
pulls in a second bson.

The library brings no runtime: the caller does. So the tokio features it
declares must be exactly the tokio modules its sources name (`tokio::sync`,
`tokio::time`, ...), with tokio's default features off. The runtime, macros,
processes and I/O belong to the root dev package (tests, examples, benches).
One exception, behind a feature: the `schema` binary (`src/bin/`, the `cli`
feature) builds a runtime, with `tokio/rt` turned on by that feature alone,
never by the library's own dependency line; no library file names
`tokio::runtime`.

`schema-core` is built on bson 3 and re-exports it: the driver must be asked
for `bson-3` and never for `bson-2` (which its default features and
`compat-3-0-0` turn on), so that the library's normal dependency tree holds
one bson, the one `schema_core::bson` names.

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

    # What a feature of schema-core turns on in tokio (`cli = ["tokio/rt"]`).
    by_feature = {
        f.split("/", 1)[1]
        for enabled in core["features"].values()
        for f in enabled
        if f.startswith("tokio/")
    }
    src = pathlib.Path(core["manifest_path"]).parent / "src"
    bins = src / "bin"
    used = set()
    for path in src.rglob("*.rs"):
        text = path.read_text()
        names = {m for m in re.findall(r"\btokio::(\w+)", text)}
        if "runtime" in names:
            if bins not in path.parents:
                problems.append(f"{path.relative_to(src)} builds a runtime: only a binary may")
            elif "rt" not in by_feature:
                problems.append("the binary builds a runtime and no feature turns on `tokio/rt`")
        used |= {m for m in names if m in GATED}
        if re.search(r"#\[\s*tokio::(main|test)", text):
            used.add("macros")
    if "rt" in declared:
        problems.append("the library's tokio dependency asks for `rt`: it brings no runtime")
    if extra := sorted(declared - used):
        problems.append(f"declares tokio features its code does not use: {extra}")
    if missing := sorted(used - declared):
        problems.append(f"uses tokio modules it does not declare: {missing}")
    problems += bson_problems(core)
    if problems:
        sys.exit("schema-core: " + "; ".join(problems))
    print(f"schema-core asks tokio for {sorted(declared)}: exactly what its code uses")
    print("schema-core asks the driver for bson 3 only, and depends on bson 3")


def bson_problems(core):
    """The driver on bson 3 alone, and a `bson` dependency of major 3."""
    normal = {d["name"]: d for d in core["dependencies"] if d["kind"] is None}
    problems = []
    driver = normal.get("mongodb")
    if driver is None:
        return ["no normal mongodb dependency"]
    features = set(driver["features"])
    if driver["uses_default_features"]:
        problems.append("the driver's default features are on (they turn on bson-2)")
    if extra := sorted(features & {"bson-2", "compat-3-0-0"}):
        problems.append(f"the driver is asked for {extra}, which pull in bson 2")
    if "bson-3" not in features:
        problems.append("the driver is not asked for bson-3")
    bson = normal.get("bson")
    if bson is None or not re.match(r"^\^?3(\.|$)", bson["req"]):
        found = bson["req"] if bson else "none"
        problems.append(f"the bson dependency must be major 3 (found {found})")
    return problems


if __name__ == "__main__":
    main()
