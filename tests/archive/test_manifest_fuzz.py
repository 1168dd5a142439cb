"""Property-based tests of the manifest reader: valid manifests are accepted as they are; anything else
(random JSON, wrong types, hostile names, random bytes) is refused with faultlib's own ManifestError,
naming the run and where in the document, and within a time bound. run.json summaries never raise."""

from __future__ import annotations

import json
import re
import time

import pytest

hypothesis = pytest.importorskip("hypothesis", reason="property tests need hypothesis (the dev extra)")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from faultlib.archive.listing import summarize_record  # noqa: E402
from faultlib.archive.manifest import ManifestError, parse_manifest  # noqa: E402
from faultlib.readers import safe_relative  # noqa: E402

RUN, PATH = "case_a/20261130T000000Z-abcdef", "store/case_a/20261130T000000Z-abcdef/manifest.json"
SECONDS = 2.0  # per document, far above what a manifest of this size takes (a few ms)
FUZZ = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

segment = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x2FFF, blacklist_characters="/\\\x7f",
                                blacklist_categories=("Cs", "Cc")), min_size=1, max_size=12) \
    .filter(lambda s: s not in (".", "..") and len(s.encode()) <= 255)
name = st.lists(segment, min_size=1, max_size=4).map("/".join).filter(lambda n: n != "manifest.json")
sha = st.text("0123456789abcdef", min_size=64, max_size=64)
entry = st.fixed_dictionaries({"name": name, "bytes": st.integers(0, 2 ** 62), "sha256": sha})


def _no_overlap(entries: list[dict]) -> list[dict]:
    """Drop entries whose name repeats, or is a directory of another entry (a valid run cannot have both)."""
    names = {e["name"] for e in entries}
    out, seen = [], set()
    for e in entries:
        parents = {"/".join(e["name"].split("/")[:i]) for i in range(1, e["name"].count("/") + 1)}
        if e["name"] in seen or parents & names or any(n.startswith(e["name"] + "/") for n in names):
            continue
        seen.add(e["name"])
        out.append(e)
    return out


valid = st.builds(lambda files: {"manifest_version": 1, "case": "case_a", "run_id": "20261130T000000Z-abcdef",
                                 "files": files}, st.lists(entry, max_size=20).map(_no_overlap))
json_value = st.recursive(
    st.none() | st.booleans() | st.integers(-2 ** 70, 2 ** 70) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=30)
HOSTILE = ["../../etc/x", "/etc/passwd", "..", ".", "", "a//b", "a/./b", "a\\b", "a\x00b", "dumps/../../x",
           "manifest.json", "\udc80", "a\x1b[31m", "x" * 300, "a/" * 3000 + "b", " ", "run.json/", "~/.ssh/id_rsa"]


def _mutate(doc: dict, data) -> object:
    """One random change to a valid manifest: a wrong value anywhere, a key removed or added, a hostile
    name, a duplicate, or a whole random document."""
    kind = data.draw(st.sampled_from(["top_value", "entry_value", "drop", "add", "hostile", "duplicate", "random"]))
    if kind == "random":
        return data.draw(json_value)
    if kind == "top_value":
        doc[data.draw(st.sampled_from(sorted(doc)))] = data.draw(json_value)
    elif kind == "drop":
        del doc[data.draw(st.sampled_from(sorted(doc)))]
    elif kind == "add":
        doc[data.draw(st.text(min_size=1, max_size=10).filter(lambda k: k not in doc))] = data.draw(json_value)
    elif doc["files"]:
        index = data.draw(st.integers(0, len(doc["files"]) - 1))
        target = doc["files"][index]
        if kind == "entry_value":
            target[data.draw(st.sampled_from(["name", "bytes", "sha256", "extra"]))] = data.draw(json_value)
        elif kind == "hostile":
            target["name"] = data.draw(st.sampled_from(HOSTILE))
        else:
            doc["files"].append(dict(target))
    else:
        doc["files"] = [data.draw(json_value)]
    return doc


def _check(document: bytes):
    """Parse; on refusal the error is ours and says where. Returns the manifest or None."""
    started = time.monotonic()
    try:
        manifest = parse_manifest(document, run=RUN, path=PATH)
    except ManifestError as exc:
        assert time.monotonic() - started < SECONDS
        assert exc.path == PATH and exc.run == RUN and exc.exit_code == 2
        assert str(exc).startswith(f"{RUN}: manifest.json")
        # where: always the run and its manifest; the field for a schema problem; the line for a syntax error
        # (the JSON reader names no line for a duplicate key or an out-of-range number: it names the value)
        assert exc.field is not None or exc.message.startswith(("invalid JSON", "is ")), str(exc)
        assert exc.field is None or (exc.field.isprintable() and len(exc.field) < 100 and exc.field.strip()), exc.field
        return None
    assert time.monotonic() - started < SECONDS
    names = [e.name for e in manifest.files]
    assert len(set(names)) == len(names)
    for e in manifest.files:
        assert safe_relative(e.name) == e.name and e.name != "manifest.json"
        assert type(e.bytes) is int and e.bytes >= 0 and re.fullmatch("[0-9a-f]{64}", e.sha256)
    return manifest


@FUZZ
@given(valid)
def test_valid_manifests_are_accepted_as_written(doc):
    manifest = _check(json.dumps(doc, indent=2).encode())
    assert manifest is not None
    assert [(e.name, e.bytes, e.sha256) for e in manifest.files] == [
        (f["name"], f["bytes"], f["sha256"]) for f in doc["files"]]


@FUZZ
@given(valid, st.data())
def test_mutated_manifests_are_accepted_or_refused_with_a_location(doc, data):
    mutated = _mutate(doc, data)
    _check(json.dumps(mutated).encode("utf-8", "surrogatepass"))


@FUZZ
@given(st.binary(max_size=300) | json_value.map(lambda v: json.dumps(v).encode()))
def test_random_documents_never_escape_as_another_error(document):
    _check(document)


@FUZZ
@given(st.binary(max_size=200) | json_value.map(lambda v: json.dumps(v).encode())
       | st.builds(lambda v, s: json.dumps({"verdict": v, "started_at": s}).encode(), json_value, json_value))
def test_run_json_summaries_never_raise(document):
    started_at, verdict, note = summarize_record(document, "x/run.json")
    assert started_at is None or isinstance(started_at, str)
    assert verdict is None or isinstance(verdict, str)
    if verdict == "?":
        assert note, "an unknown verdict always says why"


def test_a_large_manifest_is_read_within_the_bound():
    files = [{"name": f"dumps/{i:06d}.bin", "bytes": i, "sha256": f"{i:064x}"} for i in range(20_000)]
    started = time.monotonic()
    manifest = parse_manifest(json.dumps({"manifest_version": 1, "case": "c", "run_id": "r", "files": files}),
                              run="c/r", path="m")
    assert len(manifest.files) == 20_000 and time.monotonic() - started < 10
