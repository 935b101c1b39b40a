#!/usr/bin/env python3
"""The public surface of schema-core as its rustdoc shows it: every name a
user can reach, with each path that reaches it (the prelude and the hidden
`__private` of generated code left out), and the names reached by more than
one path. Reads target/doc/schema_core (build it first:
`cargo doc -p schema-core --no-deps --features tracing,cli`).

usage: scripts/public-surface.py [--list] [--doc DIR]   (exit 1 when a name has
two paths; DIR is the docs folder, target/doc by default)
"""
import collections, html, os, re, sys

DOC = sys.argv[sys.argv.index('--doc') + 1] if '--doc' in sys.argv else os.path.join(os.path.dirname(__file__), '..', 'target', 'doc')
ROOT = os.path.join(DOC, 'schema_core')
KINDS = ('struct', 'enum', 'fn', 'trait', 'macro', 'constant', 'type', 'derive', 'attr', 'static', 'union', 'mod')


def module_pages():
    for dirpath, _, files in os.walk(ROOT):
        if 'index.html' in files:
            rel = os.path.relpath(dirpath, ROOT)
            module = () if rel == '.' else tuple(rel.split(os.sep))
            yield module, os.path.join(dirpath, 'index.html')


def items(page):
    """(kind, name, target) of each item a module page lists: its own items,
    and the `pub use` re-exports (rustdoc lists those it does not inline
    under "Re-exports", each linking the item it names)."""
    text = open(page, encoding='utf-8').read()
    out = []
    for dt_id, body in re.findall(r'<dt(?: id="([^"]*)")?>(.*?)</dt>', text, re.S):
        links = [(k, h, re.sub(r'<[^>]+>', '', n))
                 for k, h, n in re.findall(r'<a class="([a-z]+)" href="([^"]+)"[^>]*>(.*?)</a>', body)]
        if not links:
            continue
        kind, href, name = links[-1]
        if dt_id.startswith('reexport.'):
            name = dt_id[len('reexport.'):]
        if href.endswith('index.html'):
            kind = 'mod'
        out.append((kind, html.unescape(name), os.path.normpath(os.path.join(os.path.dirname(page), href))))
    return out


def main():
    if not os.path.isdir(ROOT):
        sys.exit('build the docs first: cargo doc -p schema-core --no-deps --features tracing,cli')
    pages = dict(module_pages())
    dirs = {os.path.normpath(os.path.dirname(page)): module for module, page in pages.items()}
    # Every path a module is reached by: its own, and each `pub use` of it.
    names_of = collections.defaultdict(set)
    for module in pages:
        names_of[module].add(module)
    changed = True
    while changed:
        changed = False
        for module, page in pages.items():
            for kind, name, target in items(page):
                if kind != 'mod' or target is None:
                    continue
                used = dirs.get(os.path.normpath(os.path.dirname(target)))
                if used is None:
                    continue
                for via in list(names_of[module]):
                    alias = via + (name,)
                    if alias not in names_of[used] and len(alias) < 8:
                        names_of[used].add(alias)
                        changed = True
    by_name = collections.defaultdict(set)
    for module, page in pages.items():
        for kind, name, target in items(page):
            if kind in ('mod', 'use'):
                continue
            for via in names_of[module]:
                if via[:1] in (('prelude',), ('__private',)):
                    continue
                by_name[name].add('::'.join(('schema_core',) + via + (name,)))
    total = sum(len(p) for p in by_name.values())
    twice = {n: sorted(p) for n, p in by_name.items() if len(p) > 1}
    if '--list' in sys.argv:
        for name in sorted(by_name):
            print(f"{name}: {', '.join(sorted(by_name[name]))}")
    print(f"{len(by_name)} public names, {total} paths; {len(twice)} names by more than one path")
    for name, ps in sorted(twice.items()):
        print(f"  {name}: {', '.join(ps)}")
    sys.exit(1 if twice else 0)


main()
