"""Trace files read as a stream (``faultlib new --from-trace`` on traces of 10^6 spans): memory does not follow the
file, one JSON document is read span by span with every bound the whole-file reader had, and both shapes give the
same spans. Peak RSS by size is in ``benchmarks/trace_memory.py``."""

from __future__ import annotations

import gzip
import json
import os
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from faultlib.errors import InputError
from faultlib.traces import iter_spans, load_spans
from faultlib.traces.scaffold import render


def _span(t: int, i: int, parent: int | None, name: str, ms: int, **extra) -> dict:
    span = {"traceId": f"{t:032x}", "spanId": f"{i:016x}", "name": name,
            "startTimeUnixNano": str(10**18 + t * 10**7), "endTimeUnixNano": str(10**18 + t * 10**7 + ms * 10**6)}
    if parent is not None:
        span["parentSpanId"] = f"{parent:016x}"
    span.update(extra)
    return span


def _resource(service: str, spans: list, resource_last: bool = False) -> dict:
    resource = {"attributes": [{"key": "service.name", "value": {"stringValue": service}}]}
    scopes = [{"scope": {"name": "t"}, "spans": spans}]
    return {"scopeSpans": scopes, "resource": resource} if resource_last else {"resource": resource,
                                                                                "scopeSpans": scopes}


def _document(traces: int, resource_last: bool = False) -> dict:
    shop = [_span(t, 2 * t + 1, None, "shop.checkout", 40) for t in range(traces)]
    stock = [_span(t, 2 * t + 2, 2 * t + 1, "stock.reserve", 300 if t % 40 == 0 else 9) for t in range(traces)]
    return {"resourceSpans": [_resource("shop", shop, resource_last), _resource("stock", stock, resource_last)]}


def test_a_large_document_is_read_in_memory_far_below_its_size(tmp_path):
    trace = tmp_path / "incident.json"
    trace.write_text(json.dumps(_document(15_000), indent=1))  # ~9 MB, pretty-printed as Jaeger exports
    size = trace.stat().st_size
    tracemalloc.start()
    try:
        scaffold = render("stock_slow", trace)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert scaffold.suspect.child == ("stock", "stock.reserve") and scaffold.graph.spans == 30_000
    # the whole-file reader held the text and the parsed document: several times the file
    # 35 MB (4.5x the file) before streaming, 5 MB (0.66x) after
    assert peak < size, f"peak {peak} of a {size}-byte file"


def test_spans_before_their_resource_and_a_document_as_one_line_or_gzip_read_the_same(tmp_path):
    want = sorted((s.service, s.name, s.span_id) for s in load_spans(_write(tmp_path / "a.json", _document(30))))
    for name, doc, pack in (("last.json", _document(30, resource_last=True), False),
                            ("packed.json", _document(30), True)):
        path = tmp_path / name
        text = json.dumps(doc, indent=2).encode()
        path.write_bytes(gzip.compress(text) if pack else text)
        assert sorted((s.service, s.name, s.span_id) for s in load_spans(path)) == want


def _write(path, doc, indent=2):
    path.write_text(json.dumps(doc, indent=indent))
    return path


@pytest.mark.parametrize("mangle, phrase", [
    (lambda text: text.replace('"name": "stock.reserve"', '"name": "stock.reserve", "name": "x"', 1), "duplicate key"),
    (lambda text: text.replace('"traceId"', '"deep": ' + "[" * 200 + "]" * 200 + ', "traceId"', 1), "levels deep"),
    (lambda text: text.replace('"name": "stock.reserve"', '"name": "stock.reserve", "w": NaN', 1), "invalid JSON"),
    (lambda text: text.replace('"name": "stock.reserve"', '"name": "stock.reserve", "w": 1e999', 1), "not finite"),
    (lambda text: text.replace('"name": "stock.reserve"', '"name": "stock.reserve", "w": 99999999999999999999', 1),
     "out of range"),
    (lambda text: text.replace('"name": "stock.reserve"', '"name": 7', 1), "span name is not a string"),
    (lambda text: text[: len(text) // 2], "invalid JSON"),
    (lambda text: text + "\n{}", "invalid JSON"),
])
def test_a_hostile_document_is_refused_with_the_file_and_a_line(tmp_path, mangle, phrase):
    path = tmp_path / "bad.json"
    path.write_text(mangle(json.dumps(_document(50), indent=2)))
    with pytest.raises(InputError, match=phrase) as info:
        list(iter_spans(path))
    assert info.value.path == str(path) and info.value.exit_code == 2 and info.value.line >= 1


def test_a_key_spelled_like_a_path_is_not_a_place_in_the_document(tmp_path):
    # ijson's prefixes join keys with dots: a top-level key "resourceSpans.item.resource" must not read as one
    doc = {"resourceSpans.item.scopeSpans.item.spans.item": {"name": "forged"}, **_document(3)}
    spans = load_spans(_write(tmp_path / "dots.json", doc))
    assert {s.name for s in spans} == {"shop.checkout", "stock.reserve"}
    with pytest.raises(InputError, match="'resourceSpans' list"):
        load_spans(_write(tmp_path / "only.json", {"resourceSpans.item": [1]}))


def test_a_symlink_and_a_list_are_refused(tmp_path):
    real = _write(tmp_path / "real.json", _document(2))
    os.symlink(real, tmp_path / "link.json")
    with pytest.raises(InputError, match="symbolic link"):
        list(iter_spans(tmp_path / "link.json"))
    with pytest.raises(InputError, match="got a list"):
        list(iter_spans(_write(tmp_path / "list.json", [_document(1)])))


_names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=12)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(services=st.lists(st.tuples(_names, st.lists(_names, min_size=1, max_size=4)), min_size=1, max_size=4),
       indent=st.sampled_from([None, 1, 4]), resource_last=st.booleans())
def test_one_document_streamed_reads_as_the_same_document_on_one_line(tmp_path, services, indent, resource_last):
    """Any names (control characters, markup, quotes): the streamed document and the line-by-line reader agree."""
    resources = [_resource(service, [_span(1, 10 * r + k, None, name, 5) for k, name in enumerate(names)],
                           resource_last) for r, (service, names) in enumerate(services)]
    doc = {"resourceSpans": resources}
    pretty = tmp_path / "pretty.json"
    pretty.write_text("\n" + json.dumps(doc, indent=indent or 2))  # a blank first line: never a whole document
    line = tmp_path / "line.jsonl"
    line.write_text(json.dumps(doc) + "\n")
    got = [(s.service, s.name, s.span_id) for s in iter_spans(pretty)]
    assert got == [(s.service, s.name, s.span_id) for s in iter_spans(line)]
    assert sorted(got) == sorted((service, name, f"{10 * r + k:016x}") for r, (service, names) in enumerate(services)
                                 for k, name in enumerate(names))
