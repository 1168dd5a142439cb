"""Selecting a regression's cases: shards split the catalog with no overlap and no gap (a property,
checked over random id sets), the fault-class filter, invalid cases kept and sharded like the others."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from faultlib.errors import CaseError
from faultlib.regress.plan import Shard, plan
from tests.conftest import tiny_case_data, write_case

IDS = st.sets(st.from_regex(r"[a-z][a-z0-9_]{0,15}", fullmatch=True), max_size=80)


@given(ids=IDS, count=st.integers(min_value=1, max_value=16), seed=st.integers(0, 2**16))
@settings(max_examples=300, deadline=None)
def test_shards_partition_any_catalog(ids, count, seed):
    shuffled = list(ids)
    random.Random(seed).shuffle(shuffled)
    shards = [Shard(i, count).select(shuffled) for i in range(count)]
    union = [case_id for shard in shards for case_id in shard]
    assert sorted(union) == sorted(ids), "the shards' union is the catalog"
    assert len(union) == len(set(union)), "no case is in two shards"
    sizes = [len(s) for s in shards]
    assert max(sizes) - min(sizes) <= 1, "shard sizes differ by at most one"
    assert shards == [Shard(i, count).select(sorted(ids)) for i in range(count)], "independent of input order"


@given(ids=IDS, count=st.integers(min_value=1, max_value=8))
@settings(max_examples=100, deadline=None)
def test_duplicate_ids_count_once(ids, count):
    doubled = list(ids) * 2
    assert sorted(c for i in range(count) for c in Shard(i, count).select(doubled)) == sorted(ids)


@pytest.mark.parametrize("text, expected", [("0/1", Shard(0, 1)), ("3/4", Shard(3, 4)), (" 1 / 2 ", Shard(1, 2))])
def test_shard_parses(text, expected):
    assert Shard.parse(text) == expected and str(expected) == f"{expected.index}/{expected.count}"


@pytest.mark.parametrize("text, phrase", [("4/4", "numbered 0 to 3"), ("1/0", "at least 1"), ("x", "is not I/N"),
                                          ("1", "is not I/N"), ("-1/4", "is not I/N"), ("1/2/3", "is not I/N"),
                                          ("", "is not I/N")])
def test_bad_shards_say_what_to_write(text, phrase):
    with pytest.raises(ValueError, match=phrase):
        Shard.parse(text)


def _catalog(root, ids, *, fault_class="infra.tiny"):
    for case_id in ids:
        data = tiny_case_data(case_id)
        data["fault_class"] = fault_class
        write_case(root, data)
    return root


def test_plan_shards_a_real_catalog_with_an_invalid_case_in_exactly_one_shard(tmp_path):
    root = _catalog(tmp_path / "cases", [f"case_{i}" for i in range(7)])
    broken = tiny_case_data("broken_case")
    broken["unknown_key"] = 1
    write_case(root, broken)
    plans = [plan(root, shard=Shard(i, 3)) for i in range(3)]
    ids = [c.id for p in plans for c in p.cases]
    assert sorted(ids) == sorted([f"case_{i}" for i in range(7)] + ["broken_case"]) and len(set(ids)) == 8
    assert all(p.selected == 8 for p in plans)
    invalid = [c for p in plans for c in p.cases if c.case is None]
    assert [c.id for c in invalid] == ["broken_case"] and "unknown key 'unknown_key'" in str(invalid[0].error)


def test_fault_class_filter(tmp_path):
    root = _catalog(tmp_path / "cases", ["a_case", "b_case"], fault_class="numerics.fp16_overflow")
    _catalog(root, ["c_case"], fault_class="data.label_mapping")
    unreadable = root / "zz_unreadable"
    unreadable.mkdir()
    (unreadable / "case.yaml").write_text("id: [unclosed\n")
    selected = plan(root, fault_class="numerics.")
    assert [c.id for c in selected.cases] == ["a_case", "b_case", "zz_unreadable"], \
        "an invalid case whose fault class cannot be read is reported, not filtered away"
    other = tiny_case_data("d_case")
    other["fault_class"] = "data.other"
    other["bogus"] = True
    write_case(root, other)  # invalid, but its fault class is readable: filtered like a valid one
    assert "d_case" not in [c.id for c in plan(root, fault_class="numerics.").cases]
    with pytest.raises(CaseError, match=r"no case has a fault class starting with 'serving\.'.*data\.label_mapping"):
        plan(root, fault_class="serving.")


def test_missing_or_empty_catalog_is_bad_usage(tmp_path):
    with pytest.raises(CaseError, match="catalog directory not found"):
        plan(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(CaseError, match="no case directories"):
        plan(tmp_path / "empty")


def test_more_shards_than_cases_gives_empty_shards(tmp_path):
    root = _catalog(tmp_path / "cases", ["only_case"])
    assert [len(plan(root, shard=Shard(i, 3)).cases) for i in range(3)] == [1, 0, 0]
