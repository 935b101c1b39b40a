#!/usr/bin/env python3
"""Checks every link of the book (book/src/*.md), of README.md and of the
other documents that link into them (CHANGELOG.md, RELIABILITY.md,
BENCHMARKS.md, docs/*.md).

Run by scripts/book.sh after `mdbook build book` (the book built into
target/book). For each Markdown link outside code:

- a relative link must name a file or folder of the repository, and an
  `#anchor` must name a heading of the Markdown file it points at (a
  GitHub-style id, the one the repository host shows), and, for a chapter
  of the book, an id of the built page as well (the one mdBook gives it);
- a link into the book must point at a chapter that SUMMARY.md lists;
- an `http(s)` link is only checked for its form (no network here).

It also checks that SUMMARY.md lists every chapter under book/src and that
every link inside the built pages between chapters lands on a page and an id
of the built book. Prints each broken link with its file and line, and exits
with 1 if there is any. A file of the repository that the README or a
chapter names in inline code (`tests/it/joins.rs`) and that is not there is
told as a note, without failing.
"""
import html.parser
import pathlib
import re
import sys
import urllib.parse

ROOT = pathlib.Path(__file__).resolve().parent.parent
BOOK_SRC = ROOT / "book" / "src"
BUILT = ROOT / "target" / "book"

errors = []


def error(path, line, message):
    errors.append(f"{path.relative_to(ROOT)}:{line}: {message}")


def without_fences(text):
    """The text with its fenced code blocks blanked out (the same length and
    the same line breaks, so positions stay true)."""
    out = []
    fence = None
    for line in text.split("\n"):
        stripped = line.lstrip()
        marker = re.match(r"(`{3,}|~{3,})", stripped)
        if fence is None and marker:
            fence = marker.group(1)[0] * len(marker.group(1))
            out.append(" " * len(line))
        elif fence is not None:
            if stripped.startswith(fence) and not stripped[len(fence):].strip(fence[0]).strip():
                fence = None
            out.append(" " * len(line))
        else:
            out.append(line)
    return "\n".join(out)


def without_code(text):
    """The text with fenced blocks and inline code spans blanked out."""
    # Inline code: a run of backticks up to the next run of the same length.
    return re.sub(
        r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)",
        lambda m: re.sub(r"[^\n]", " ", m.group(0)),
        without_fences(text),
        flags=re.S,
    )


def slug(heading):
    """The id GitHub and mdBook give a heading: its text lowercased, spaces
    as '-', anything but letters, digits, '-' and '_' left out."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.replace("`", "")
    out = []
    for ch in text.strip().lower():
        if ch.isalnum() or ch in "-_":
            out.append(ch)
        elif ch.isspace():
            out.append("-")
    return "".join(out)


def headings(path):
    """The ids of a Markdown file's headings, repeats numbered -1, -2..."""
    ids, seen = set(), {}
    for line in without_fences(path.read_text()).split("\n"):
        m = re.match(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        base = slug(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        ids.add(base if n == 0 else f"{base}-{n}")
    return ids


class Page(html.parser.HTMLParser):
    """The ids of a built page, and the links of its content (`<main>`)."""

    def __init__(self):
        super().__init__()
        self.ids, self.links, self.in_main = set(), [], 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "main":
            self.in_main += 1
        if tag == "a" and self.in_main and attrs.get("href"):
            self.links.append(attrs["href"])

    def handle_endtag(self, tag):
        if tag == "main":
            self.in_main -= 1


pages = {}


def page(name):
    """The parsed built page of a chapter (`name.html`), or None."""
    if name not in pages:
        built = BUILT / name
        if built.is_file():
            parser = Page()
            parser.feed(built.read_text())
            pages[name] = parser
        else:
            pages[name] = None
    return pages[name]


def summary_chapters():
    text = without_code((BOOK_SRC / "SUMMARY.md").read_text())
    return {m.group(1) for m in re.finditer(r"\]\(([^)#\s]+\.md)\)", text)}


LISTED = summary_chapters()


def check_link(source, line, target):
    if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
        scheme = target.split(":", 1)[0].lower()
        if scheme in ("http", "https"):
            url = urllib.parse.urlsplit(target)
            if not url.netloc or "." not in url.netloc or re.search(r"\s", target):
                error(source, line, f"malformed URL {target}")
        elif scheme != "mailto":
            error(source, line, f"unexpected link scheme in {target}")
        return
    path_part, _, anchor = target.partition("#")
    path_part = urllib.parse.unquote(path_part)
    dest = (source.parent / path_part).resolve() if path_part else source
    try:
        dest.relative_to(ROOT)
    except ValueError:
        error(source, line, f"{target} points outside the repository")
        return
    if not dest.exists():
        error(source, line, f"{target}: no such file")
        return
    in_book = dest.parent == BOOK_SRC and dest.suffix == ".md"
    if in_book and dest.name != "SUMMARY.md" and dest.name not in LISTED:
        error(source, line, f"{target}: a chapter SUMMARY.md does not list")
        return
    if not anchor:
        return
    if dest.suffix != ".md":
        error(source, line, f"{target}: an anchor into a file that is not Markdown")
        return
    if anchor not in headings(dest):
        error(source, line, f"{target}: no heading with the id `{anchor}`")
    if in_book:
        built = page(dest.with_suffix(".html").name)
        if built is None:
            error(source, line, f"{target}: the built book has no such page")
        elif anchor not in built.ids:
            error(source, line, f"{target}: the built page has no id `{anchor}`")


def check_markdown(path):
    text = without_code(path.read_text())
    for m in re.finditer(r"\[[^\]]*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)", text):
        line = text.count("\n", 0, m.start()) + 1
        target = m.group(1)
        if not target:
            error(path, line, "an empty link")
            continue
        check_link(path, line, target)
    for m in re.finditer(r"<(https?://[^>\s]+)>", text):
        check_link(path, text.count("\n", 0, m.start()) + 1, m.group(1))


PATH = re.compile(
    r"(?<![\w/.-])((?:tests|examples|benches|scripts|docs|book|schema-core|schema-derive"
    r"|schema-testkit|schema-bson3-check)/[A-Za-z0-9_./*-]*)"
)


def stale_paths(path):
    """Files of the repository a text names in inline code (`tests/x.rs`)
    that are not there: told, not failed, since files move while the text
    follows a commit later."""
    text = without_fences(path.read_text())
    for span in re.finditer(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", text, flags=re.S):
        for m in PATH.finditer(span.group(2)):
            name = m.group(1).rstrip(".")
            if not list(ROOT.glob(name.rstrip("/"))):
                line = text.count("\n", 0, span.start()) + 1
                print(f"note: {path.relative_to(ROOT)}:{line} names `{name}`, which is not there")


def check_built():
    """Links between the built chapters land on a page and an id."""
    for built in sorted(BUILT.glob("*.html")):
        parsed = page(built.name)
        for href in parsed.links:
            if re.match(r"^[a-z][a-z0-9+.-]*:", href, re.I) or href.startswith("../"):
                continue  # external, or a file of the repository (checked above)
            name, _, anchor = href.partition("#")
            target = page(name) if name else parsed
            if target is None:
                errors.append(f"target/book/{built.name}: link {href}: no such page")
            elif anchor and anchor not in target.ids:
                errors.append(f"target/book/{built.name}: link {href}: no id `{anchor}`")


def main():
    if not (BUILT / "index.html").is_file():
        sys.exit("target/book is not built: run `mdbook build book` first")
    chapters = {p.name for p in BOOK_SRC.glob("*.md")} - {"SUMMARY.md"}
    for name in sorted(chapters - LISTED):
        errors.append(f"book/src/{name}: not listed in book/src/SUMMARY.md")
    sources = (
        [ROOT / name for name in ("README.md", "CHANGELOG.md", "RELIABILITY.md", "BENCHMARKS.md")]
        + sorted((ROOT / "docs").glob("*.md"))
        + sorted(BOOK_SRC.glob("*.md"))
    )
    for path in sources:
        check_markdown(path)
    check_built()
    for path in [ROOT / "README.md"] + sorted(BOOK_SRC.glob("*.md")):
        stale_paths(path)
    for e in errors:
        print(e)
    if errors:
        sys.exit(f"{len(errors)} broken link(s)")
    print(f"links: {len(sources)} files checked, none broken")


main()
