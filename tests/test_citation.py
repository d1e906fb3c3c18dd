"""CITATION.cff is valid Citation File Format 1.2.0 and says what the repository says.

cffconvert, the format's own validator, cannot be installed beside the book's tools (it
requires jsonschema < 4; nbformat and otter need 4.18 or later), so the file is validated
with jsonschema against ``CFF_SCHEMA``: the part of the format's 1.2.0 schema this file can
touch, written down here from the format's specification (top-level keys, with unknown ones
refused, people and entities, references, identifiers).  Then its version and licence are
those of pyproject.toml, its title the book's, and its ``repository-code`` the repository
setting of _config.yml (absent when the setting is empty).
"""
from __future__ import annotations

import copy
import tomllib
from pathlib import Path

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
CFF = yaml.safe_load((ROOT / "CITATION.cff").read_text())

_TEXT = {"type": "string", "minLength": 1}
_PERSON = {"type": "object", "additionalProperties": False, "anyOf": [
    {"required": ["family-names"]}, {"required": ["given-names"]}],
    "properties": {k: _TEXT for k in (
        "family-names", "given-names", "name-particle", "name-suffix", "affiliation", "email",
        "orcid", "website", "alias", "address", "city", "country", "post-code", "region",
        "tel", "fax")}}
_ENTITY = {"type": "object", "additionalProperties": False, "required": ["name"],
           "properties": {k: _TEXT for k in (
               "name", "address", "city", "country", "email", "orcid", "website", "alias",
               "date-start", "date-end", "location", "post-code", "region", "tel", "fax")}}
_AUTHORS = {"type": "array", "minItems": 1, "items": {"oneOf": [_PERSON, _ENTITY]}}
_IDENTIFIERS = {"type": "array", "minItems": 1, "items": {
    "type": "object", "additionalProperties": False, "required": ["type", "value"],
    "properties": {"type": {"enum": ["doi", "url", "swh", "other"]}, "value": _TEXT,
                   "description": _TEXT}}}
_REFERENCE = {"type": "object", "required": ["authors", "title", "type"], "properties": {
    "authors": _AUTHORS, "title": _TEXT, "identifiers": _IDENTIFIERS,
    "year": {"type": "integer"}, "type": {"enum": [
        "art", "article", "audiovisual", "bill", "blog", "book", "catalogue", "conference",
        "conference-paper", "data", "database", "dictionary", "edited-work", "encyclopedia",
        "film-broadcast", "generic", "government-document", "grant", "hearing",
        "historical-work", "legal-case", "legal-rule", "magazine-article", "manual", "map",
        "multimedia", "music", "newspaper-article", "pamphlet", "patent",
        "personal-communication", "proceedings", "report", "serial", "slides", "software",
        "software-code", "software-container", "software-executable",
        "software-virtual-machine", "sound-recording", "standard", "statute", "thesis",
        "unpublished", "video", "website"]}}}
#: The part of the Citation File Format 1.2.0 schema this repository's file can touch.
CFF_SCHEMA = {
    "type": "object", "additionalProperties": False,
    "required": ["authors", "cff-version", "message", "title"],
    "properties": {
        "cff-version": {"const": "1.2.0"}, "message": _TEXT, "title": _TEXT,
        "abstract": _TEXT, "authors": _AUTHORS, "type": {"enum": ["software", "dataset"]},
        "version": _TEXT, "license": {"enum": ["MIT", "CC-BY-4.0", "Apache-2.0"]},
        "keywords": {"type": "array", "items": _TEXT}, "references": {
            "type": "array", "items": _REFERENCE}, "preferred-citation": _REFERENCE,
        "identifiers": _IDENTIFIERS, "date-released": {"type": "string",
                                                      "pattern": r"^\d{4}-\d{2}-\d{2}$"},
        "repository-code": {"type": "string", "pattern": r"^https://\S+$"},
        "repository": _TEXT, "repository-artifact": _TEXT, "url": _TEXT, "doi": _TEXT,
        "commit": _TEXT, "contact": _AUTHORS, "license-url": _TEXT,
    },
}


def test_citation_file_is_valid_cff():
    jsonschema.validate(CFF, CFF_SCHEMA)


@pytest.mark.parametrize("broken", [
    {"drop": "authors"}, {"drop": "message"}, {"set": ("cff-version", "1.1.0")},
    {"set": ("licence", "MIT")}, {"set": ("authors", [{"names": "x"}])},
    {"set": ("references", [{"type": "paper", "title": "t", "authors": [{"name": "a"}]}])},
])
def test_the_schema_refuses_a_broken_file(broken):
    """Fixtures the check must fail: a missing required key, a wrong version, a misspelt
    key, an author with neither name form, a reference type the format does not know."""
    cff = copy.deepcopy(CFF)
    if "drop" in broken:
        del cff[broken["drop"]]
    else:
        key, value = broken["set"]
        cff[key] = value
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(cff, CFF_SCHEMA)


def test_citation_says_what_the_repository_says():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert CFF["version"] == project["version"] and CFF["license"] == project["license"]
    assert CFF["title"] == config["title"]
    url = (config.get("repository") or {}).get("url") or ""
    assert CFF.get("repository-code", "") == url, "repository-code must be repository.url"
    paper = next(r for r in CFF["references"] if r["type"] == "article")
    assert [a["family-names"] for a in paper["authors"]][:2] == ["Benvenuti", "Fallin"]
    assert {"type": "other", "value": "arXiv:2602.22443"}.items() <= paper["identifiers"][0].items()
