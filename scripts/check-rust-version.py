#!/usr/bin/env python3
"""Fails when a locked dependency declares a newer `rust-version` than the
workspace's own, so the `rust-version` in Cargo.toml stays truthful.

Reads `cargo metadata --locked` (every package in Cargo.lock that the
workspace can use, dev and build dependencies included) and compares each
package's declared `rust-version` with the workspace members'.
"""
import json
import subprocess
import sys


def version(text):
    parts = [int(p) for p in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def main():
    out = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--locked"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    meta = json.loads(out)
    members = set(meta["workspace_members"])
    ours = {}
    theirs = []
    for pkg in meta["packages"]:
        declared = pkg.get("rust_version")
        if pkg["id"] in members:
            if pkg.get("publish") != []:
                ours[pkg["name"]] = declared
        elif declared:
            theirs.append((version(declared), pkg["name"], pkg["version"], declared))
    missing = [name for name, declared in ours.items() if not declared]
    if missing:
        print(f"rust-version: not declared by {', '.join(sorted(missing))}")
        return 1
    floor = min(version(v) for v in ours.values())
    newer = sorted(t for t in theirs if t[0] > floor)
    shown = ".".join(str(p) for p in floor)
    if newer:
        print(f"rust-version: the workspace declares {shown}, but these locked dependencies need more:")
        for _, name, ver, declared in newer:
            print(f"  {name} {ver}: rust-version {declared}")
        return 1
    highest = max(theirs)[1:] if theirs else ("none", "", "")
    print(f"rust-version: {shown} covers every locked dependency (highest: {highest[0]} {highest[1]}, {highest[2]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
