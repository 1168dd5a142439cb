"""`faultlib check collectives DUMP_DIR` black-box on dumps written here: alignment by sequence number,
majority vs. tie, the ring window, missing dumps, and bad dumps (exit 2 naming file and field).

The dumps recorded from a real 2-rank gloo world are checked in tests/detect/test_flight_recorder.py.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.check.test_fuzz_checks import JSONISH, SETTINGS, run_check
from tests.conftest import cli

G = "train.py"


def entry(seq, op="all_reduce", shape=(8,), line=10, state="completed", ranks=(0, 1, 2), dtype="torch.float32"):
    return {"seq": seq, "op": op, "group": {"name": "0", "size": len(ranks), "ranks": list(ranks)},
            "tensors": [{"shape": list(shape), "dtype": dtype}],
            "call_site": {"file": G, "line": line, "function": "step"}, "start_ns": seq * 10,
            "end_ns": None if state == "started" else seq * 10 + 5, "state": state, "async_op": False, "error": None}


def write(dir_, rank, entries, /, **extra):
    dir_.mkdir(exist_ok=True)
    doc = {"format": "faultlib.flight_recorder", "version": 1, "rank": rank, "world_size": 3, "pid": 1,
           "host": "h", "reason": "exit", "dumped_at_ns": 0, "capacity": 2048, "dropped": 0, "entries": entries,
           **extra}
    (dir_ / f"rank{rank}.json").write_text(json.dumps(doc))


def loop(steps, *, skip_at=None, extra_at=None, start=0):
    """all_reduce (line 10) then broadcast (line 12) per step; ``skip_at`` drops step's broadcast, ``extra_at``
    adds an all_gather (line 11) before it."""
    out = []
    for step in range(steps):
        out.append(("all_reduce", (8,), 10))
        if step == extra_at:
            out.append(("all_gather", (8,), 11))
        if step != skip_at:
            out.append(("broadcast", (3,), 12))
    return [entry(start + i, op, shape, line) for i, (op, shape, line) in enumerate(out)]


def check(dir_, *more):
    """The command black-box: exit code and JSON."""
    proc = cli("check", "collectives", str(dir_), "--json", *more, cwd=dir_.parent, timeout=120)
    return proc, (json.loads(proc.stdout) if proc.stdout.strip() else None)


class _Done:
    returncode = None


def analyse(dir_):
    """The same analysis in-process (cheap): ``(None, json)`` shaped like :func:`check`'s answer."""
    from faultlib.check.base import CheckResult
    from faultlib.detect.distributed.collectives import analyse, load_dumps

    report = analyse(load_dumps(dir_))
    out = CheckResult("collectives", report.findings, report.fields()).to_json()
    done = _Done()
    done.returncode = 0 if out["ok"] else 1
    return done, out


def test_agreeing_ranks_exit_0_with_the_contract_fields(tmp_path):
    for r in range(3):
        write(tmp_path / "d", r, loop(4))
    proc, out = check(tmp_path / "d")
    assert proc.returncode == 0, proc.stderr
    assert set(out) == {"detector", "ok", "findings", "first_divergence", "waiting_ranks", "ranks", "groups"}
    assert out["detector"] == "collectives" and out["ok"] is True and out["first_divergence"] is None
    assert out["groups"]["0"] == {"ranks": [0, 1, 2], "last_seq": {"0": 7, "1": 7, "2": 7}}


def test_with_a_majority_the_rank_that_skipped_is_named_with_both_call_sites(tmp_path):
    write(tmp_path / "d", 0, loop(4))
    write(tmp_path / "d", 1, loop(4, skip_at=1))
    write(tmp_path / "d", 2, loop(4))
    proc, out = analyse(tmp_path / "d")
    assert proc.returncode == 1
    first = out["first_divergence"]
    assert (first["seq"], first["op"], first["ranks"], first["kind"]) == (3, "broadcast", [1], "collective_missing")
    assert {r: s["line"] for r, s in first["call_sites"].items()} == {"0": 12, "1": 10, "2": 12}


def test_with_a_majority_an_extra_collective_is_named(tmp_path):
    write(tmp_path / "d", 0, loop(3))
    write(tmp_path / "d", 1, loop(3))
    write(tmp_path / "d", 2, loop(3, extra_at=1))
    out = analyse(tmp_path / "d")[1]
    assert {k: out["first_divergence"][k] for k in ("seq", "ranks", "kind")} == {"seq": 3, "ranks": [2],
                                                                                 "kind": "collective_extra"}


def test_a_rank_that_stopped_early_is_missing_and_the_others_wait(tmp_path):
    write(tmp_path / "d", 0, loop(2) + [entry(4, state="started")])
    write(tmp_path / "d", 1, loop(2) + [entry(4, state="started")])
    write(tmp_path / "d", 2, loop(2))
    proc, out = analyse(tmp_path / "d")
    assert proc.returncode == 1
    assert {k: out["first_divergence"][k] for k in ("seq", "ranks", "kind")} == {"seq": 4, "ranks": [2],
                                                                                 "kind": "collective_missing"}
    assert out["first_divergence"]["call_sites"]["2"] is None
    assert [(w["rank"], w["seq"], w["state"]) for w in out["waiting_ranks"]] == [(0, 4, "started"), (1, 4, "started")]


def test_a_dtype_mismatch_is_named_and_rings_that_dropped_old_entries_align(tmp_path):
    a = loop(6)
    b = loop(6)
    b[9] = entry(9, "broadcast", (3,), 12, dtype="torch.float16")
    write(tmp_path / "d", 0, a[5:], dropped=5)  # a ring keeps the newest entries only
    write(tmp_path / "d", 1, b[2:], dropped=2)
    write(tmp_path / "d", 2, a)
    out = analyse(tmp_path / "d")[1]
    first = out["first_divergence"]
    assert (first["seq"], first["ranks"], first["kind"]) == (9, [1], "collective_mismatch")
    assert "dtype differs" in out["findings"][0]["message"]


def test_a_rank_without_a_dump_is_reported(tmp_path):
    write(tmp_path / "d", 0, loop(2))
    write(tmp_path / "d", 2, loop(2))
    proc, out = analyse(tmp_path / "d")
    assert proc.returncode == 1
    assert [(f["kind"], f["evidence"]["rank"]) for f in out["findings"]] == [("dump_missing", 1)]


def test_a_rank_below_world_size_that_no_group_lists_and_that_left_no_dump_is_reported(tmp_path):
    pair = [entry(s, ranks=(0, 1)) for s in range(3)]  # the job has 3 ranks; the recorded group holds two
    write(tmp_path / "d", 0, pair)
    write(tmp_path / "d", 1, pair)
    proc, out = check(tmp_path / "d")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert [(f["kind"], f["evidence"]["rank"]) for f in out["findings"]] == [("dump_missing", 2)]
    assert "one of the job's 3 ranks (world_size 3)" in out["findings"][0]["message"]
    write(tmp_path / "e", 0, pair, world_size=2)  # the same dumps from a 2-rank job: nothing is missing
    write(tmp_path / "e", 1, pair, world_size=2)
    assert check(tmp_path / "e")[0].returncode == 0
    write(tmp_path / "f", 0, pair, world_size=None)  # a recorder that did not know the world size
    write(tmp_path / "f", 1, pair, world_size=None)
    assert analyse(tmp_path / "f")[1]["findings"] == []


def test_a_huge_world_size_names_the_first_missing_ranks_and_counts_the_rest(tmp_path):
    from faultlib.detect.distributed.collectives import MAX_MISSING_NAMED

    write(tmp_path / "d", 0, loop(1), world_size=10**9)
    write(tmp_path / "d", 5, loop(1), world_size=10**9)
    findings = analyse(tmp_path / "d")[1]["findings"]
    named = [f["evidence"]["rank"] for f in findings if "rank" in f["evidence"]]
    assert named == [r for r in range(MAX_MISSING_NAMED + 2) if r not in (0, 5)]
    assert findings[-1]["evidence"] == {"count": 10**9 - 2 - MAX_MISSING_NAMED, "first": MAX_MISSING_NAMED + 2,
                                        "last": 10**9 - 1}


def test_dumps_of_different_world_sizes_or_a_rank_outside_its_world_exit_2_naming_the_field(tmp_path):
    write(tmp_path / "d", 0, loop(1))
    write(tmp_path / "d", 1, loop(1), world_size=4)  # an elastic restart at another size, or another job
    proc, error = check(tmp_path / "d")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert error["field"] == "world_size" and "rank0.json says 3" in error["message"]
    write(tmp_path / "e", 0, loop(1))
    write(tmp_path / "e", 3, loop(1))  # world_size 3: ranks 0..2
    proc, error = check(tmp_path / "e")
    assert proc.returncode == 2 and error["field"] == "world_size" and error["file"].endswith("rank3.json")


@pytest.mark.parametrize("doc, field", [
    ({"format": "other"}, "format"),
    ({"entries": "x"}, "entries"),
    ({"entries": [entry(0) | {"seq": "0"}]}, "entries[0].seq"),
    ({"entries": [entry(0) | {"state": "done"}]}, "entries[0].state"),
    ({"entries": [entry(0) | {"tensors": [{"shape": 8, "dtype": "f"}]}]}, "entries[0].tensors[0].shape"),
    ({"entries": [entry(0) | {"group": {"name": 0}}]}, "entries[0].group.name"),
    ({"rank": True}, "rank"),
    ({"rank": 0}, "rank"),  # two dumps claim rank 0
    ({"entries": [entry(0) | {"root": "0"}]}, "entries[0].root"),
    ({"exit_error": 3}, "exit_error"),
])
def test_a_bad_dump_is_refused_naming_file_and_field(tmp_path, doc, field):
    from faultlib.errors import InputError

    write(tmp_path / "d", 0, loop(1))
    write(tmp_path / "d", 1, loop(1), **doc)
    with pytest.raises(InputError) as err:
        analyse(tmp_path / "d")
    assert err.value.path.endswith("rank1.json") and err.value.field == field


def test_a_bad_dump_exits_2_with_file_and_field(tmp_path):
    write(tmp_path / "d", 0, loop(1))
    write(tmp_path / "d", 1, [entry(0) | {"seq": "0"}])
    proc, _ = check(tmp_path / "d")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "rank1.json" in proc.stdout + proc.stderr and "entries[0].seq" in proc.stdout + proc.stderr


def test_not_json_and_an_empty_or_missing_directory_exit_2(tmp_path):
    (tmp_path / "d").mkdir()
    proc, _ = check(tmp_path / "d")
    assert proc.returncode == 2 and "no rank<R>.json" in proc.stdout + proc.stderr
    (tmp_path / "d" / "rank0.json").write_text('{"rank": NaN}')
    proc, _ = check(tmp_path / "d")
    assert proc.returncode == 2 and "rank0.json" in proc.stdout + proc.stderr
    proc, _ = check(tmp_path / "nope")
    assert proc.returncode == 2


FIELDS = st.sampled_from(["seq", "op", "group", "tensors", "call_site", "state", "error", "async_op"])


@SETTINGS
@given(field=FIELDS, value=JSONISH, at=st.integers(0, 3))
def test_no_dump_makes_the_check_print_a_traceback(tmp_path_factory, field, value, at):
    dir_ = tmp_path_factory.mktemp("fuzz")
    write(dir_, 0, loop(2, skip_at=1))
    entries = loop(2)
    entries[at] = entries[at] | {field: value}
    write(dir_, 1, entries)
    run_check("collectives", str(dir_))


def test_dumps_too_large_together_are_refused_before_any_is_read(tmp_path):
    dumps = tmp_path / "dumps"
    write(dumps, 0, loop(2))
    with open(dumps / "rank1.json", "wb") as f:  # sparse: 4.5 GiB claimed, nothing on disk
        f.truncate(4608 * 1024 * 1024)
    proc, error = check(dumps)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "dumps hold 4,608 MiB together" in error["message"] and "into a directory of their own" in error["message"]
    assert error["file"] == str(dumps) and "Traceback" not in proc.stderr
