"""GPU memory fragmentation without a GPU: MemoryMonitor on recorded torch.cuda.memory_stats() dicts, the safe
snapshot reader, the backward replay on hand-built snapshots (exact numbers) and on snapshots of the caching
allocator model in cases/gpu_memory_fragmentation/examples, the heatmap, and the allocation_churn shim."""

from __future__ import annotations

import importlib.util
import math
import pickle
import re
import struct

import pytest

from faultlib.detect.serving.memory.monitor import KINDS as MONITOR_KINDS
from faultlib.detect.serving.memory.monitor import MemoryMonitor, pearson, sample_from_stats
from faultlib.detect.serving.memory.analysis import analyse_snapshot, check_png_path, render_png
from faultlib.detect.serving.memory.snapshot import KINDS, load_snapshot, unpickle
from faultlib.errors import DetectorError, InjectionError, InputError
from faultlib.findings import KIND_PATTERN, Severity
from faultlib.inject.memory import AllocationChurn
from faultlib.readers.files import Limits
from tests.conftest import REPO

MiB = 1 << 20
GiB = 1 << 30
EXAMPLES = REPO / "cases" / "gpu_memory_fragmentation" / "examples"


def stats(reserved, allocated, split, retries=0, ooms=0):
    """A torch.cuda.memory_stats() dict (the keys the monitor reads, plus a few it ignores)."""
    return {"reserved_bytes.all.current": reserved, "allocated_bytes.all.current": allocated,
            "active_bytes.all.current": allocated, "inactive_split_bytes.all.current": split,
            "reserved_bytes.large_pool.current": reserved - 2 * MiB, "num_alloc_retries": retries, "num_ooms": ooms,
            "num_device_alloc": 40 + retries, "num_device_free": retries, "max_split_size": -1,
            "segment.all.current": 66, "requested_bytes.all.current": allocated - 1024}


def replay(series):
    """A stats_source returning each dict of ``series`` in turn."""
    it = iter(series)
    return lambda: next(it)


# -- MemoryMonitor ----------------------------------------------------------------------------------

def test_a_healthy_service_stays_silent():
    series = [stats(int(1.6 * GiB), int(1.55 * GiB), 20 * MiB) for _ in range(40)]
    monitor = MemoryMonitor(stats_source=replay(series), nvml=False)
    for step in range(40):
        sample = monitor.sample(step=step, items=4096, duration_s=0.010 + 0.0004 * (step % 3))
        assert monitor.check() == []
    assert sample.fragmentation == pytest.approx(20 / (1.6 * 1024))
    summary = monitor.summary()
    assert summary["samples"] == 40 and summary["alloc_retries"] == 0 and summary["ooms"] == 0
    assert summary["baseline_throughput"] == pytest.approx(4096 / 0.0104, rel=0.05)


def test_fragmentation_retries_ooms_and_the_throughput_drop_are_reported_once_per_episode():
    series, durations = [], []
    for step in range(40):
        if step < 10:  # healthy
            series.append(stats(int(1.6 * GiB), int(1.5 * GiB), 10 * MiB))
            durations.append(0.010)
        elif step < 30:  # fragmented: split grows, the allocator retries, throughput halves, two OOMs
            split = min(600 * MiB, (step - 9) * 60 * MiB)
            series.append(stats(2 * GiB, 2 * GiB - split - 50 * MiB, split, retries=step - 12 if step > 12 else 0,
                                ooms=2 if step >= 25 else 0))
            durations.append(0.010 + split / (600 * MiB) * 0.015)
        else:  # mitigated
            series.append(stats(int(1.7 * GiB), int(1.6 * GiB), 15 * MiB, retries=17, ooms=2))
            durations.append(0.010)
    monitor = MemoryMonitor(stats_source=replay(series), nvml=False)
    found = []
    for step in range(40):
        monitor.sample(step=step, items=4096, duration_s=durations[step])
        found += monitor.check()
    by_kind = {}
    for f in found:
        by_kind.setdefault(f.kind, []).append(f)
    assert set(by_kind) == set(MONITOR_KINDS)
    assert [len(v) for v in by_kind.values()] == [1, 1, 1, 1], \
        f"{ {k: [f.location for f in v] for k, v in by_kind.items()} }"
    frag = by_kind["allocator_fragmentation"][0]
    assert frag.location == {"step": 17} and frag.evidence["fragmentation"] >= 0.15  # 3rd sample at >= 15 %
    assert by_kind["alloc_retries"][0].location == {"step": 13}
    assert by_kind["cuda_oom"][0].severity == Severity.ERROR and by_kind["cuda_oom"][0].location == {"step": 25}
    drop = by_kind["throughput_drop"][0]
    assert drop.evidence["drop"] >= 0.25 and drop.evidence["correlation"] < -0.8
    assert monitor.correlation() < -0.8


def test_a_second_episode_is_reported_again():
    high, low = stats(GiB, int(0.6 * GiB), int(0.3 * GiB)), stats(GiB, int(0.9 * GiB), 10 * MiB)
    series = [high] * 3 + [low] * 2 + [high] * 3
    monitor = MemoryMonitor(stats_source=replay(series), nvml=False)
    steps = []
    for step in range(len(series)):
        monitor.sample(step=step)
        steps += [f.location["step"] for f in monitor.check()]
    assert steps == [2, 7]


def test_small_caches_are_not_reported():
    monitor = MemoryMonitor(stats_source=replay([stats(32 * MiB, 8 * MiB, 20 * MiB)] * 5), nvml=False)
    for step in range(5):
        monitor.sample(step=step)
    assert monitor.check() == []


def test_wrong_order_and_bad_configuration_say_what_to_do():
    monitor = MemoryMonitor(stats_source=lambda: stats(GiB, GiB, 0), nvml=False)
    with pytest.raises(DetectorError, match="call sample\\(\\) after each step, then check\\(\\)"):
        monitor.check()
    with pytest.raises(DetectorError, match="fragmentation_threshold"):
        MemoryMonitor(stats_source=dict, fragmentation_threshold=0)
    with pytest.raises(DetectorError, match="torch.cuda.memory_stats"):
        sample_from_stats([1, 2])


def test_without_cuda_the_monitor_says_how_to_analyse_offline():
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("a CUDA device is present")
    with pytest.raises(DetectorError, match="needs a CUDA device.*stats_source=.*faultlib check memory"):
        MemoryMonitor()


def test_nvml_when_present_and_its_absence_explained():
    monitor = MemoryMonitor(stats_source=lambda: stats(GiB, GiB, 0), nvml_source=lambda: (3 * GiB, 141 * GiB))
    sample = monitor.sample(step=0)
    assert (sample.nvml_used_bytes, sample.nvml_total_bytes) == (3 * GiB, 141 * GiB)
    auto = MemoryMonitor(stats_source=lambda: stats(GiB, GiB, 0))  # this machine: no driver (or no package)
    assert auto.sample().nvml_used_bytes is None or auto.nvml_status.startswith("device")
    assert auto.nvml_status != "disabled"
    if not auto.nvml_status.startswith("device"):
        with pytest.raises(Exception, match="NVML|nvidia-ml-py"):
            MemoryMonitor(stats_source=dict, nvml=True)


def test_pearson():
    assert pearson([1, 2, 3, 4], [8, 6, 4, 2]) == pytest.approx(-1)
    assert pearson([1, 1, 1], [1, 2, 3]) is None and pearson([1, 2], [1, 2]) is None


def test_kinds_are_snake_case():
    assert all(KIND_PATTERN.fullmatch(k) for k in {**KINDS, **MONITOR_KINDS})


# -- reading snapshots safely -------------------------------------------------------------------------

def write(tmp_path, obj, name="snap.pickle", protocol=pickle.DEFAULT_PROTOCOL):
    path = tmp_path / name
    path.write_bytes(pickle.dumps(obj, protocol=protocol))
    return path


class _Evil:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (open, (self.marker, "w"))


@pytest.mark.parametrize("payload, name", [
    (lambda m: {"segments": [_Evil(m)]}, f"{open.__module__}.open"),  # io.open; _io.open from Python 3.12
    (lambda m: {"segments": [], "settings": __import__("collections").OrderedDict(a=1)}, "collections.OrderedDict"),
])
def test_a_pickle_that_needs_a_global_is_refused_before_anything_runs(tmp_path, payload, name):
    marker = tmp_path / "ran"
    path = write(tmp_path, payload(str(marker)))
    with pytest.raises(InputError, match=re.escape(f"unsafe pickle: it needs the global {name} ")):
        load_snapshot(path)
    assert not marker.exists()


def test_sets_in_old_protocols_and_persistent_ids_are_refused(tmp_path):
    with pytest.raises(InputError, match="__builtin__.set"):
        load_snapshot(write(tmp_path, {"segments": [], "x": {1, 2}}, protocol=2))
    with pytest.raises(InputError, match="persistent id"):
        unpickle(b"\x80\x02X\x01\x00\x00\x00aQ.", "p.pickle")  # PROTO 2, BINUNICODE 'a', BINPERSID


def test_truncated_trailing_and_empty_pickles(tmp_path):
    data = pickle.dumps({"segments": [{"address": 0, "total_size": 2 * MiB, "blocks": []}] * 50})
    (tmp_path / "cut.pickle").write_bytes(data[: len(data) // 2])
    (tmp_path / "tail.pickle").write_bytes(data + b"\n")
    (tmp_path / "empty.pickle").write_bytes(b"")
    with pytest.raises(InputError, match="truncated"):
        load_snapshot(tmp_path / "cut.pickle")
    with pytest.raises(InputError, match="1 bytes after the end of the pickle"):
        load_snapshot(tmp_path / "tail.pickle")
    with pytest.raises(InputError, match="not a readable pickle"):
        load_snapshot(tmp_path / "empty.pickle")


@pytest.mark.parametrize("doc, field", [
    ([1, 2], "segments"),
    ({"device_traces": []}, "segments"),
    ({"segments": [3]}, "segments[0]"),
    ({"segments": [{"address": 0, "total_size": -1, "blocks": []}]}, "segments[0].total_size"),
    ({"segments": [{"address": True, "total_size": 1, "blocks": []}]}, "segments[0].address"),
    ({"segments": [{"address": 0, "total_size": 4, "blocks": [{"size": 8, "state": "inactive"}]}]},
     "segments[0].blocks[0]"),
    ({"segments": [{"address": 0, "total_size": 4, "blocks": [{"size": 4, "state": 1}]}]},
     "segments[0].blocks[0].state"),
    ({"segments": [], "device_traces": [[{"action": "alloc", "size": 4}]]}, "device_traces[0][0].addr"),
    ({"segments": [], "device_traces": [["alloc"]]}, "device_traces[0][0]"),
])
def test_documents_without_the_snapshot_shape_name_the_field(tmp_path, doc, field):
    with pytest.raises(InputError) as info:
        load_snapshot(write(tmp_path, doc))
    assert info.value.field == field


def test_shared_references_cannot_blow_up_the_work(tmp_path):
    block = {"size": 512, "state": "inactive", "address": 0}
    segment = {"address": 0, "total_size": 512, "blocks": [block] * 2000}
    path = write(tmp_path, {"segments": [segment] * 2000})  # 4 M blocks from a few KB
    assert path.stat().st_size < 20_000
    with pytest.raises(InputError, match="more than 100000 blocks and trace entries"):
        load_snapshot(path, limits=Limits(max_bytes=MiB, max_nodes=100_000))


# -- the replay, on hand-built snapshots --------------------------------------------------------------

A, B = 0x7F0000000000, 0x7F0040000000


def seg(address, size, blocks, **extra):
    return {"device": 0, "address": address, "total_size": size, "stream": 0, "segment_type": "large",
            "segment_pool_id": (0, 0), "allocated_size": sum(b["size"] for b in blocks if b["state"] != "inactive"),
            "blocks": blocks, **extra}


def block(address, size, state="active_allocated"):
    return {"address": address, "size": size, "requested_size": size, "state": state, "frames": []}


def event(action, addr, size, t=0):
    entry = {"action": action, "size": size, "stream": 0, "frames": [], "time_us": 1_000 + t}
    if addr is not None:
        entry["addr"] = addr
    return entry


def fragmented_snapshot():
    """Two 40 MiB segments each holding a 10 MiB block at both ends (20 MiB free in the middle of each); then a
    24 MiB segment reserved while those 40 MiB were free in 20 MiB pieces, and flushed (segment_free); a 48 MiB
    segment for a 48 MiB block; an OOM for 32 MiB."""
    segments = [seg(A, 40 * MiB, [block(A, 10 * MiB), block(A + 10 * MiB, 20 * MiB, "inactive"),
                                  block(A + 30 * MiB, 10 * MiB)]),
                seg(B, 40 * MiB, [block(B, 10 * MiB), block(B + 10 * MiB, 20 * MiB, "inactive"),
                                  block(B + 30 * MiB, 10 * MiB)]),
                seg(B + GiB, 48 * MiB, [block(B + GiB, 48 * MiB)])]
    trace = [event("segment_alloc", A, 40 * MiB, 0), event("alloc", A, 10 * MiB, 1),
             event("alloc", A + 10 * MiB, 20 * MiB, 2), event("alloc", A + 30 * MiB, 10 * MiB, 3),
             event("segment_alloc", B, 40 * MiB, 4), event("alloc", B, 10 * MiB, 5),
             event("alloc", B + 10 * MiB, 20 * MiB, 6), event("alloc", B + 30 * MiB, 10 * MiB, 7),
             event("free_requested", A + 10 * MiB, 20 * MiB, 8), event("free_completed", A + 10 * MiB, 20 * MiB, 9),
             event("free_requested", B + 10 * MiB, 20 * MiB, 10), event("free_completed", B + 10 * MiB, 20 * MiB, 11),
             event("segment_alloc", B + 2 * GiB, 24 * MiB, 12), event("segment_free", B + 2 * GiB, 24 * MiB, 13),
             event("segment_alloc", B + GiB, 48 * MiB, 14), event("alloc", B + GiB, 48 * MiB, 15),
             event("oom", None, 32 * MiB, 16)]
    return {"segments": segments, "device_traces": [trace]}


def test_the_state_at_the_snapshot_is_exact(tmp_path):
    report = analyse_snapshot(load_snapshot(write(tmp_path, fragmented_snapshot())))
    s = report.state
    assert (s["reserved_bytes"], s["allocated_bytes"], s["split_free_bytes"]) == (128 * MiB, 88 * MiB, 40 * MiB)
    assert s["fragmentation"] == pytest.approx(40 / 128) and s["largest_free_piece_bytes"] == 20 * MiB
    assert (s["free_pieces"], s["segments"], s["split_segments"], s["releasable_bytes"]) == (2, 3, 2, 0)


def test_the_backward_replay_gives_every_earlier_state(tmp_path):
    report = analyse_snapshot(load_snapshot(write(tmp_path, fragmented_snapshot())), points=18)
    by_index = {p["index"]: p for p in report.timeline}
    assert len(report.timeline) == 18 and report.events["unknown_references"] == 0
    assert by_index[0]["reserved_bytes"] == 0
    assert (by_index[8]["reserved_bytes"], by_index[8]["allocated_bytes"], by_index[8]["split_free_bytes"]) == (
        80 * MiB, 80 * MiB, 0)
    assert by_index[12]["split_free_bytes"] == 40 * MiB and by_index[12]["fragmentation"] == 0.5
    assert by_index[13]["reserved_bytes"] == 104 * MiB and by_index[14]["reserved_bytes"] == 80 * MiB
    assert by_index[17]["reserved_bytes"] == 128 * MiB
    assert by_index[17]["time_us"] == 1_016


def test_the_fragmentation_findings(tmp_path):
    report = analyse_snapshot(load_snapshot(write(tmp_path, fragmented_snapshot())))
    kinds = {f.kind: f for f in report.findings}
    assert set(kinds) == {"fragmented_memory", "unusable_free_memory", "cuda_oom", "cache_flush"}
    unusable = kinds["unusable_free_memory"]  # the 24 MiB segment at 12; the 48 MiB one at 14 exceeds the 40 free
    assert unusable.evidence["count"] == 1 and unusable.location["index"] == 12
    assert unusable.evidence["examples"][0] == {"index": 12, "time_us": 1_012, "pool": "large",
                                                "request_bytes": 24 * MiB, "free_split_bytes": 40 * MiB,
                                                "largest_free_piece_bytes": 20 * MiB}
    oom = kinds["cuda_oom"]
    assert oom.severity == Severity.CRITICAL and oom.evidence["examples"][0]["largest_free_piece_bytes"] == 20 * MiB
    assert report.flush == {"segment_frees": 1, "bursts": 1, "freed_bytes": 24 * MiB, "segment_allocs_after": 1}
    assert kinds["fragmented_memory"].location == {"file": report.snapshot.path, "key": "segments"}


def _flushes(n):
    """A model's 20 MiB working segment freed by empty_cache() then a 24 MiB request buffer reserved, ``n`` times."""
    trace, segments = [], []
    for i in range(n):
        work, buf = A + 2 * i * GiB, B + 2 * i * GiB
        trace += [event("segment_alloc", work, 20 * MiB, 10 * i), event("alloc", work, 20 * MiB, 10 * i + 1),
                  event("free_requested", work, 20 * MiB, 10 * i + 2),
                  event("free_completed", work, 20 * MiB, 10 * i + 3),
                  event("segment_free", work, 20 * MiB, 10 * i + 4), event("segment_alloc", buf, 24 * MiB, 10 * i + 5),
                  event("alloc", buf, 24 * MiB, 10 * i + 6)]
        segments.append(seg(buf, 24 * MiB, [block(buf, 24 * MiB)]))
    return {"segments": segments, "device_traces": [trace]}


@pytest.mark.parametrize("bursts, severity", [(1, Severity.INFO), (2, Severity.WARNING), (3, Severity.WARNING)])
def test_one_flush_then_warm_up_is_info_and_a_recurring_flush_is_churn(tmp_path, bursts, severity):
    report = analyse_snapshot(load_snapshot(write(tmp_path, _flushes(bursts))))
    [flush] = [f for f in report.findings if f.kind == "cache_flush"]
    assert flush.severity == severity and flush.evidence["bursts"] == bursts
    assert ("churn (" in flush.message) == (severity == Severity.WARNING)


def test_a_request_that_fits_no_piece_but_the_total_is_unusable_free_memory(tmp_path):
    doc = fragmented_snapshot()
    doc["device_traces"][0][14] = event("segment_alloc", B + GiB, 48 * MiB, 14)
    doc["device_traces"][0][15] = event("alloc", B + GiB, 36 * MiB, 15)  # 36 MiB asked, 40 MiB free in 20 MiB pieces
    doc["segments"][2]["blocks"] = [block(B + GiB, 36 * MiB), block(B + GiB + 36 * MiB, 12 * MiB, "inactive")]
    report = analyse_snapshot(load_snapshot(write(tmp_path, doc)))
    assert report.unusable["count"] == 2
    assert report.unusable["examples"][1]["index"] == 14
    assert report.unusable["examples"][1]["request_bytes"] == 36 * MiB
    assert report.unusable["examples"][1]["free_split_bytes"] == 40 * MiB


def test_a_wrapped_ring_buffer_is_reported_and_still_replayed(tmp_path):
    doc = fragmented_snapshot()
    doc["device_traces"][0] = doc["device_traces"][0][9:]  # the first 9 entries were overwritten
    report = analyse_snapshot(load_snapshot(write(tmp_path, doc)))
    assert report.events["unknown_references"] == 0  # every remaining entry is consistent with the final state
    doc["device_traces"][0].insert(0, event("free_completed", 0x1000, 512))  # a block in no known segment
    report = analyse_snapshot(load_snapshot(write(tmp_path, doc)))
    assert [f.kind for f in report.findings if f.kind == "incomplete_trace"] == ["incomplete_trace"]


def test_expandable_segments_are_tracked_per_mapped_range(tmp_path):
    doc = {"segments": [seg(A, 8 * MiB, [block(A, 2 * MiB), block(A + 2 * MiB, 6 * MiB, "inactive")],
                            is_expandable=True)],
           "device_traces": [[event("segment_map", A, 4 * MiB, 0), event("alloc", A, 2 * MiB, 1),
                              event("segment_map", A + 4 * MiB, 4 * MiB, 2)]]}
    report = analyse_snapshot(load_snapshot(write(tmp_path, doc)), points=4, min_reserved_bytes=0)
    assert [p["reserved_bytes"] for p in report.timeline] == [0, 4 * MiB, 4 * MiB, 8 * MiB]
    assert report.events["unknown_references"] == 0


def test_blocks_without_addresses_follow_each_other_and_devices_are_chosen(tmp_path):
    doc = {"segments": [{"address": A, "total_size": 4 * MiB, "device": 1,
                         "blocks": [{"size": MiB, "state": "active_allocated"},
                                    {"size": 3 * MiB, "state": "inactive"}]},
                        {"address": B, "total_size": 2 * MiB, "device": 0, "blocks": []}],
           "device_traces": [[], []]}
    snap = load_snapshot(write(tmp_path, doc))
    assert snap.segments[0]["blocks"] == [(A, MiB, "active_allocated"), (A + MiB, 3 * MiB, "inactive")]
    assert snap.devices == [0, 1]
    assert analyse_snapshot(snap, device=1).state["split_free_bytes"] == 3 * MiB
    with pytest.raises(InputError, match="no segments or trace entries for device 5"):
        analyse_snapshot(snap, device=5)


# -- the caching allocator model's snapshots ----------------------------------------------------------

def _example():
    spec = importlib.util.spec_from_file_location("make_snapshot", EXAMPLES / "make_snapshot.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    make = _example()
    root = tmp_path_factory.mktemp("snapshots")
    out = {}
    for name, healthy in (("fragmented", False), ("healthy", True)):
        path = root / f"{name}.pickle"
        make.main([str(path)] + (["--healthy"] if healthy else []))
        out[name] = load_snapshot(path)
    return out


def test_the_healthy_serving_loop_is_silent(simulated):
    report = analyse_snapshot(simulated["healthy"], heatmap=True)
    assert report.findings == []
    assert report.state["fragmentation"] < 0.05 and report.peak["fragmentation"] < 0.05
    assert report.flush["segment_frees"] == 0 and report.unusable["count"] == 0


def test_the_fragmenting_serving_loop_is_caught(simulated):
    report = analyse_snapshot(simulated["fragmented"])
    kinds = {f.kind for f in report.findings}
    assert {"fragmented_memory", "unusable_free_memory", "cuda_oom", "cache_flush"} <= kinds
    assert report.state["fragmentation"] >= 0.15
    example = report.unusable["examples"][0]
    assert example["free_split_bytes"] >= example["request_bytes"] > example["largest_free_piece_bytes"]
    assert len(report.timeline) == 240 and report.timeline[-1]["index"] == report.fields()["snapshot"]["trace_entries"]


# -- the heatmap ------------------------------------------------------------------------------------

def test_heatmap_values_are_the_allocated_share_of_each_address_bucket(tmp_path):
    np = pytest.importorskip("numpy")
    doc = {"segments": [seg(A, 8 * MiB, [block(A, 4 * MiB), block(A + 4 * MiB, 4 * MiB, "inactive")])],
           "device_traces": [[event("segment_alloc", A, 8 * MiB), event("alloc", A, 4 * MiB)]]}
    report = analyse_snapshot(load_snapshot(write(tmp_path, doc)), points=3, rows=4, heatmap=True, min_reserved_bytes=0)
    assert report.heatmap.shape == (4, 3) and report.address_bytes == 8 * MiB
    assert np.isnan(report.heatmap[:, 0]).all()  # nothing reserved before the first entry
    assert report.heatmap[:, 1].tolist() == [0, 0, 0, 0]
    assert report.heatmap[:, 2].tolist() == [1, 1, 0, 0]


def _png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_render_png_writes_a_whole_png_and_nothing_else(simulated, tmp_path):
    pytest.importorskip("matplotlib")
    report = analyse_snapshot(simulated["fragmented"], heatmap=True)
    assert report.heatmap.shape == (256, 240)
    values = report.heatmap[~__import__("numpy").isnan(report.heatmap)]
    assert values.min() >= 0 and values.max() <= 1
    out = render_png(report, tmp_path / "heat.png")
    width, height = _png_size(out)
    assert width > 800 and height > 600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["heat.png"]
    with pytest.raises(DetectorError, match="heatmap=True"):
        render_png(analyse_snapshot(simulated["healthy"]), tmp_path / "x.png")


def test_png_paths_are_checked_first(tmp_path):
    assert check_png_path(tmp_path / "ok.png") == tmp_path / "ok.png"
    for bad, phrase in ((tmp_path / "heat.jpg", "ending in .png"), (tmp_path / "missing" / "h.png", "does not exist")):
        with pytest.raises(InputError, match=phrase):
            check_png_path(bad)
    (tmp_path / "d.png").mkdir()
    with pytest.raises(InputError, match="is a directory"):
        check_png_path(tmp_path / "d.png")


# -- the allocation_churn shim ----------------------------------------------------------------------

class _Target:
    def __init__(self, model):
        self.model, self.step, self.attempt, self.callbacks, self.faults = model, None, 1, [], []

    def subscribe(self, point, callback):
        assert point == "step"
        self.callbacks.append(callback)

    def record_fault(self, injector, **attributes):
        self.faults.append(attributes)


def test_allocation_churn_varies_sizes_inside_its_window_and_reverts():
    class Service:
        traffic = {"size_mib": [24, 24], "out_of_order": False}

    service, target = Service(), None
    shim = AllocationChurn(size_mib=[4, 44], start_step=2, steps=2)
    target = _Target(service)
    shim.apply(target)
    seen = []
    for step in range(5):
        target.callbacks[0]("step", {"step": step})
        seen.append(tuple(service.traffic["size_mib"]))
    assert seen == [(24, 24), (24, 24), (4, 44), (4, 44), (24, 24)]
    assert target.faults == [{"step": 2, "size_mib": [4, 44], "out_of_order": True}]
    target.callbacks[0]("step", {"step": 3})
    shim.revert()
    assert service.traffic == {"size_mib": [24, 24], "out_of_order": False}
    with pytest.raises(InjectionError, match="traffic dict"):
        AllocationChurn(size_mib=[1, 2], start_step=0).apply(_Target(object()))
    with pytest.raises(InjectionError, match="smallest, largest"):
        AllocationChurn(size_mib=[8, 2], start_step=0)


def test_the_sim_is_deterministic():
    make = _example()
    a, b = make.serve(False, seed=3, steps=20), make.serve(False, seed=3, steps=20)
    assert a.snapshot() == b.snapshot() and not math.isnan(a.reserved())
