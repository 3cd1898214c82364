"""The project is citable: CITATION.cff holds what Citation File Format 1.2.0 requires (checked
by hand against the schema's keys: `cffconvert --validate` is not a dependency) and cites the
technical report, with a BibTeX of it; one licence (MIT) in LICENSE, pyproject and CITATION.cff; the
eval listing's `arxiv` is an arxiv URL or absent."""

from __future__ import annotations

import re
import tomllib
from typing import Any

import pytest
import yaml

from tests.helpers import ROOT

CITATION = ROOT / "CITATION.cff"
LISTING = ROOT / "evals" / "listing.yaml"
REPORT = ROOT / "docs" / "paper" / "todo-bench.tex"
#: CFF 1.2.0's top-level keys (schema.json of citation-file-format 1.2.0) and the required ones
KEYS = {
    "abstract", "authors", "cff-version", "commit", "contact", "date-released", "doi",
    "identifiers", "keywords", "license", "license-url", "message", "preferred-citation",
    "references", "repository", "repository-artifact", "repository-code", "title", "type",
    "url", "version",
}  # fmt: skip
REQUIRED = {"cff-version", "message", "title", "authors"}
#: a person has family-names (and maybe given-names); an entity has a name
PERSON_OR_ENTITY = ({"family-names"}, {"name"})


def problems(cff: dict[str, Any]) -> list[str]:
    """What keeps a parsed CITATION.cff from being valid CFF 1.2.0, one line each."""
    found = [f"missing {key}" for key in sorted(REQUIRED - set(cff))]
    found += [f"unknown key {key}" for key in sorted(set(cff) - KEYS)]
    if cff.get("cff-version") != "1.2.0":
        found.append(f"cff-version {cff.get('cff-version')!r}, not '1.2.0'")
    if cff.get("type", "software") not in ("software", "dataset"):
        found.append(f"type {cff.get('type')!r}")
    references = [cff, *([cff["preferred-citation"]] if "preferred-citation" in cff else [])]
    for where, entry in zip(("", "preferred-citation: "), references, strict=False):
        authors = entry.get("authors")
        if not isinstance(authors, list) or not authors:
            found.append(f"{where}authors must be a non-empty list")
            continue
        for author in authors:
            if not any(keys <= set(author) for keys in PERSON_OR_ENTITY):
                found.append(f"{where}an author without family-names or name: {author}")
    if "preferred-citation" in cff:
        found += [
            f"preferred-citation: missing {key}"
            for key in ("type", "title", "authors")
            if key not in cff["preferred-citation"]
        ]
    return found


def citation() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(CITATION.read_text(encoding="utf-8"))
    return data


def test_the_citation_file_is_valid_cff() -> None:
    assert problems(citation()) == []


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"cff-version": "1.1.0"}, "cff-version '1.1.0', not '1.2.0'"),
        ({"paper": "x"}, "unknown key paper"),
        ({"authors": [{"given-names": "Ada"}]}, "an author without family-names or name"),
        ({"authors": []}, "authors must be a non-empty list"),
    ],
)
def test_an_invalid_citation_is_caught(change: dict[str, Any], expected: str) -> None:
    assert any(expected in line for line in problems({**citation(), **change}))


def test_a_citation_without_a_required_key_is_caught() -> None:
    incomplete = {k: v for k, v in citation().items() if k != "message"}
    assert problems(incomplete) == ["missing message"]


def test_the_citation_names_this_version_and_the_report() -> None:
    cff = citation()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert str(cff["version"]) == project["version"]
    title = re.search(r"\\title\{([^\\}]*)", REPORT.read_text(encoding="utf-8"))
    assert title is not None
    assert cff["preferred-citation"]["type"] == "report"
    assert cff["preferred-citation"]["title"] == title.group(1).strip()


def listing_problems(entry: dict[str, Any]) -> list[str]:
    """What in an eval listing entry inspect_evals would not read as meant: its `arxiv` is an
    arxiv URL or absent."""
    paper = entry.get("arxiv")
    if paper is not None and not re.fullmatch(
        r"https://arxiv\.org/abs/\d{4}\.\d{4,5}(v\d+)?", paper
    ):
        return [f"arxiv {paper!r} is not an arxiv URL"]
    return []


def test_the_listing_names_no_paper_but_an_arxiv_one() -> None:
    (entry,) = yaml.safe_load(LISTING.read_text(encoding="utf-8"))
    assert listing_problems(entry) == []
    assert listing_problems({"arxiv": "docs/paper/todo-bench.pdf"}) != []
    assert listing_problems({"arxiv": "https://arxiv.org/abs/2401.01234"}) == []


def test_the_licence_is_the_same_everywhere() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == citation()["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")


def test_the_bibtex_cites_the_preferred_citation() -> None:
    text = CITATION.read_text(encoding="utf-8")
    bibtex = "\n".join(
        line.removeprefix("# ") for line in text.splitlines() if line.startswith("# ")
    )
    entry = re.search(r"@techreport\{(\w+),(.*?)\n\}", bibtex, re.S)
    assert entry is not None and entry.group(1) != "YourReferenceHere"
    fields = dict(re.findall(r"(\w+)\s*=\s*\{(.*)\},?", entry.group(2)))
    preferred = citation()["preferred-citation"]
    assert fields["title"] == preferred["title"]
    assert fields["year"] == str(preferred["year"])
    assert fields["institution"] == preferred["institution"]["name"]
