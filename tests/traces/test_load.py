"""Reading OTLP/JSON traces: real ones from the two-service app in every accepted shape, hostile
ones that must still load, and broken ones that must fail with InputError naming the file and line."""

from __future__ import annotations

import gzip
import json

import pytest

from faultlib.errors import InputError
from faultlib.traces import build_graph, load_spans
from faultlib.traces import load as load_module


def lines(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def as_document(path):
    """One ExportTraceServiceRequest with every line's resourceSpans, as Jaeger/Tempo export it."""
    return {"resourceSpans": [rs for doc in lines(path) for rs in doc["resourceSpans"]]}


def test_our_traces_jsonl_from_a_real_two_service_app(real_traces):
    spans = load_spans(real_traces["normal"])
    assert len(spans) == 90
    assert {s.service for s in spans} == {"frontend", "inventory"}
    assert {s.name for s in spans} == {"frontend.order", "inventory.get", "inventory.lookup"}
    assert all(s.resource["deployment.environment"] == "test" for s in spans)


def test_a_single_pretty_printed_document_and_tempo_batches_load_the_same(real_traces, tmp_path):
    expected = sorted((s.span_id, s.name, s.service) for s in load_spans(real_traces["slow"]))
    doc = tmp_path / "jaeger.json"
    doc.write_text(json.dumps(as_document(real_traces["slow"]), indent=2))
    tempo = tmp_path / "tempo.json"
    tempo.write_text(json.dumps({"batches": as_document(real_traces["slow"])["resourceSpans"]}))
    for path in (doc, tempo):
        assert sorted((s.span_id, s.name, s.service) for s in load_spans(path)) == expected


def test_gzip_content_is_detected_by_magic_bytes_not_name(real_traces, tmp_path):
    packed = tmp_path / "incident.json"   # no .gz suffix on purpose
    packed.write_bytes(gzip.compress(real_traces["broken"].read_bytes()))
    spans = load_spans(packed)
    assert len(spans) == 90 and sum(s.failed for s in spans) == 6   # 3 server spans + 3 client spans


def test_gzip_bomb_is_refused_by_the_size_bound(tmp_path, monkeypatch):
    monkeypatch.setattr(load_module, "MAX_DECOMPRESSED", 1 << 16)
    bomb = tmp_path / "bomb.json"
    bomb.write_bytes(gzip.compress(b" " * (1 << 20)))
    with pytest.raises(InputError, match="expands beyond") as info:
        load_spans(bomb)
    assert info.value.path == str(bomb)


def test_unknown_attributes_fields_and_string_status_codes_are_accepted(real_traces, tmp_path):
    doc = as_document(real_traces["broken"])
    doc["extraTopLevel"] = {"anything": [1, 2]}
    for rs in doc["resourceSpans"]:
        rs["schemaUrl"] = "https://example.com/schema"
        for ss in rs["scopeSpans"]:
            for s in ss["spans"]:
                s["flags"] = 257
                s.setdefault("attributes", []).append({"key": "weird", "value": {"bytesValue": "AAE="}})
                if s.get("status", {}).get("code") == 2:
                    s["status"]["code"] = "STATUS_CODE_ERROR"
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(doc))
    spans = load_spans(path)
    assert sum(s.status == 2 for s in spans) == 6
    assert all("weird" in s.attributes for s in spans)


@pytest.mark.parametrize("content, phrase, line", [
    (b"", "is empty", None),
    (b"\n  \n", "is empty", None),
    (b"this is not json\n", "invalid JSON", 1),
    (b'{"resourceSpans": []}\n{"resourceSpans": [\n', "invalid JSON", 2),
    (b'{"foo": 1}\n', "not OTLP/JSON traces", 1),
    (b'[1, 2, 3]', "not OTLP/JSON traces", 1),
    (b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"spanId": "ab"}]}]}]}', "missing field 'name'", 1),
    (b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "x", "status": {"code": "BOGUS"}}]}]}]}',
     "not an OTLP status code", 1),
    (b'{"resourceSpans": []}', "holds no spans", None),
    (b"\x1f\x8b\x08\x00garbage", "gzip content", None),
])
def test_broken_files_raise_input_error_with_file_and_line(tmp_path, content, phrase, line):
    path = tmp_path / "trace.json"
    path.write_bytes(content)
    with pytest.raises(InputError, match=phrase) as info:
        load_spans(path)
    assert info.value.path == str(path) and info.value.exit_code == 2
    assert info.value.line == line


def test_a_real_file_cut_off_mid_line_names_the_last_line(real_traces, tmp_path):
    data = real_traces["normal"].read_bytes()
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(data[: len(data) - 40])
    with pytest.raises(InputError, match="truncated last line") as info:
        load_spans(cut)
    assert info.value.line == data.count(b"\n")


def test_a_truncated_gzip_stream_and_a_truncated_document(real_traces, tmp_path):
    packed = gzip.compress(real_traces["normal"].read_bytes())
    short = tmp_path / "short.gz"
    short.write_bytes(packed[: len(packed) // 2])
    with pytest.raises(InputError, match="truncated"):
        load_spans(short)
    text = json.dumps(as_document(real_traces["normal"]), indent=2)
    doc = tmp_path / "doc.json"
    doc.write_text(text[: len(text) // 2])
    with pytest.raises(InputError, match="invalid JSON") as info:
        load_spans(doc)
    assert info.value.line > 1


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(InputError, match="not found"):
        load_spans(tmp_path / "nope.json")
    with pytest.raises(InputError, match="directory"):
        load_spans(tmp_path)


def test_graph_of_a_trace_without_any_parent_in_the_file(real_traces, tmp_path):
    """Only inventory's spans exported: every one names a parent the file lacks."""
    inventory_only = [doc for doc in lines(real_traces["normal"])
                      if any(a["value"].get("stringValue") == "inventory"
                             for rs in doc["resourceSpans"] for a in rs["resource"]["attributes"])]
    path = tmp_path / "partial.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in inventory_only))
    graph = build_graph(load_spans(path))
    assert graph.edges == {} and graph.orphans == 30 and graph.roots == {("inventory", "inventory.lookup")}
