"""Docs: every relative link in README.md and docs/ resolves inside the repo, none leaves it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def links(page: Path) -> list[str]:
    return LINK.findall(page.read_text(encoding="utf-8"))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_relative_links_resolve_inside_the_repo(page: Path) -> None:
    for target in links(page):
        if re.match(r"[a-z]+:", target):  # external (https:, mailto:) links are allowed
            continue
        path = (page.parent / target.split("#")[0]).resolve()
        assert path.is_relative_to(REPO), f"{page.name}: {target} leaves the repository"
        assert path.exists(), f"{page.name}: {target} does not exist"


def test_readme_links_every_docs_page() -> None:
    linked = {(REPO / t).resolve() for t in links(REPO / "README.md")}
    assert {p.resolve() for p in PAGES[1:]} - linked == set()


def test_no_page_points_beside_the_repository() -> None:
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        assert "shared/specs" not in text and "../" not in text, page.name
