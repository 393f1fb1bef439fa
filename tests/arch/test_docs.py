"""The README and the docs read as a tool's documentation: every relative link resolves inside
the repository, and none speaks of the project's own development (issue numbers, sessions) or
points outside the repository (``../shared``)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)
#: what development notes look like (the hook that keeps them out uses the same patterns)
DIARY = re.compile(
    r"\(issue [0-9]+\)|\bissue [0-9]+\b|this session|earlier session|\.\./shared/", re.I
)


def _ids(paths):
    return [str(p.relative_to(ROOT)) for p in paths]


def links(text: str) -> list[str]:
    """The targets of the markdown links in ``text``, code spans and blocks left out.

    Examples
    --------
    >>> links("see [a](docs/a.md#x), `[b](no.md)` and [c](https://example.org)")
    ['docs/a.md#x', 'https://example.org']
    """
    return LINK.findall(CODE.sub("", text))


@pytest.mark.parametrize("doc", DOCS, ids=_ids(DOCS))
def test_every_relative_link_resolves_inside_the_repository(doc):
    bad = []
    for target in links(doc.read_text(encoding="utf-8")):
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # a URL (https:, mailto:) or an anchor in the same page
        path = (doc.parent / target.split("#", 1)[0]).resolve()
        if not path.exists() or ROOT not in (path, *path.parents):
            bad.append(target)
    assert not bad, f"{doc.relative_to(ROOT)}: links that do not resolve in the repository: {bad}"


@pytest.mark.parametrize("doc", DOCS, ids=_ids(DOCS))
def test_no_development_diary(doc):
    hits = [
        f"{i}: {line.strip()[:100]}"
        for i, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1)
        if DIARY.search(line)
    ]
    assert not hits, f"{doc.relative_to(ROOT)} speaks of the project's development:\n" + "\n".join(
        hits
    )


def test_the_checks_see_the_docs():
    assert len(DOCS) > 10 and ROOT / "docs" / "errata.md" in DOCS
    assert "errata.md" in links((ROOT / "docs" / "properties.md").read_text(encoding="utf-8"))
    assert DIARY.search("as measured (issue 12)") and DIARY.search("see ../shared/notes/x.md")
    assert not DIARY.search("the issue's tolerances are met")
