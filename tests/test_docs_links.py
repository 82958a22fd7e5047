"""Every relative link in the repository's Markdown files points at something that exists.

A reader who follows README.md, docs/ or hardware/ and lands on a missing file (or a
heading that was renamed) is lost; this test finds such links before they do. It reads
every ``*.md`` file in the tree (not the virtual environment, build output or mutmut's
copy) and checks inline links and images, reference definitions and HTML ``src``/``href``
attributes. Web addresses are not fetched; a ``#fragment`` into a Markdown file must name
one of its headings (GitHub's anchor rules) or an explicit ``id``/``name`` anchor.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# Folders that are not the project's own documents: the environment, caches, build and
# test output, and mutmut's working copy of the tree.
SKIP_DIRS = {".git", ".venv", "venv", "node_modules", "mutants", "artifacts", "build",
             "dist", "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache",
             ".hypothesis"}

FENCE = re.compile(r"^ {0,3}(```|~~~)")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
# [text](target "title") and ![alt](target); the target may be wrapped in <...>.
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+[^)]*)?\)")
REFERENCE_DEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HTML_ATTR = re.compile(r"""\b(?:src|href)\s*=\s*["']([^"']+)["']""", re.IGNORECASE)
HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"""\b(?:id|name)\s*=\s*["']([^"']+)["']""", re.IGNORECASE)
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def markdown_files(root: Path = ROOT) -> list[Path]:
    """Every Markdown file of the project under ``root``, sorted."""
    found: list[Path] = []
    for path in root.rglob("*.md"):
        parts = path.relative_to(root).parts[:-1]
        if any(part in SKIP_DIRS or part.endswith(".egg-info") for part in parts):
            continue
        found.append(path)
    return sorted(found)


def _prose_lines(text: str) -> list[tuple[int, str]]:
    """The lines outside fenced code blocks, with inline code removed, numbered from 1."""
    lines: list[tuple[int, str]] = []
    fence: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        opened = FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1) == fence:
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        lines.append((number, INLINE_CODE.sub("", line)))
    return lines


def links(text: str) -> list[tuple[int, str]]:
    """Every link target in a Markdown text, with its line number."""
    found: list[tuple[int, str]] = []
    # A reference definition cannot interrupt a paragraph: "[seed]: text" inside one is
    # prose. It may follow a blank line (or the start, or another definition).
    may_define = True
    for number, line in _prose_lines(text):
        for match in INLINE_LINK.finditer(line):
            found.append((number, match.group(1).strip("<>")))
        definition = REFERENCE_DEF.match(line) if may_define else None
        if definition:
            found.append((number, definition.group(1).strip("<>")))
        may_define = not line.strip() or definition is not None
        for match in HTML_ATTR.finditer(line):
            found.append((number, match.group(1)))
    return found


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its words
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").lower()
    kept = "".join(ch for ch in text
                   if ch in " -_" or unicodedata.category(ch)[0] in "LN")
    return kept.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """The anchors a Markdown text offers: one per heading (duplicates numbered), and ids."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    for _, line in _prose_lines(text):
        heading = HEADING.match(line)
        if heading:
            base = slug(heading.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
        found.update(HTML_ANCHOR.findall(line))
    return found


def broken_links(path: Path, root: Path = ROOT) -> list[str]:
    """Each relative link of one Markdown file that does not resolve, as 'file:line: why'."""
    text = path.read_text(encoding="utf-8")
    problems: list[str] = []
    where = path.relative_to(root)
    for number, target in links(text):
        if SCHEME.match(target) or target.startswith("//"):
            continue  # a web address, mailto: and the like: not a file of the repository
        file_part, _, fragment = target.partition("#")
        file_part = file_part.split("?", 1)[0]
        if file_part.startswith("/"):
            problems.append(f"{where}:{number}: {target} is an absolute path; "
                            "write it relative to the file")
            continue
        resolved = (path.parent / file_part).resolve() if file_part else path
        if not resolved.exists():
            shown = resolved.relative_to(root) if resolved.is_relative_to(root) else resolved
            problems.append(f"{where}:{number}: {target} -> no such file {shown}")
            continue
        if not resolved.is_relative_to(root):
            problems.append(f"{where}:{number}: {target} leaves the repository")
            continue
        if fragment and resolved.suffix == ".md":
            offered = anchors(resolved.read_text(encoding="utf-8"))
            if fragment.lower() not in {a.lower() for a in offered}:
                problems.append(f"{where}:{number}: {target} -> "
                                f"{resolved.relative_to(root)} has no heading #{fragment}")
    return problems


def test_there_are_documents_to_check() -> None:
    names = {p.relative_to(ROOT).as_posix() for p in markdown_files()}
    assert {"README.md", "hardware/README.md", "docs/architecture.md"} <= names
    assert not any(name.startswith((".venv/", "mutants/")) for name in names)


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_resolve(path: Path) -> None:
    problems = broken_links(path)
    assert not problems, "broken links:\n" + "\n".join(problems)


def test_a_missing_file_and_a_missing_heading_are_found(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "there.md").write_text("# A heading, with words\n\n## Twice\n## Twice\n")
    page = tmp_path / "README.md"
    page.write_text(
        "See [there](docs/there.md), [heading](docs/there.md#a-heading-with-words),\n"
        "[second](docs/there.md#twice-1) and [web](https://example.org/x.md).\n"
        "Broken: [gone](docs/gone.md) and ![pic](docs/none.png)\n"
        "and [no heading](docs/there.md#nothing-here) and [abs](/etc/passwd).\n"
        "`[in code](docs/code.md)` is not a link.\n"
        "```\n[in a fence](docs/fence.md)\n```\n"
        "\n[ref]: docs/missing-ref.md\n"
        "a paragraph\n[seed]: not a definition\n"
        '<img src="docs/missing.svg">\n')
    problems = broken_links(page, root=tmp_path)
    text = "\n".join(problems)
    assert "docs/gone.md" in text
    assert "docs/none.png" in text
    assert "#nothing-here" in text
    assert "/etc/passwd" in text
    assert "docs/missing-ref.md" in text
    assert "docs/missing.svg" in text
    assert "code.md" not in text and "fence.md" not in text
    assert "there.md#a-heading" not in text and "twice-1" not in text
    assert "example.org" not in text
    assert len(problems) == 6
