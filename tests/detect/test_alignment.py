"""faultlib.detect.data.alignment and its helpers (faultlib.remedies.keys/times/clocks) on real data written to real files."""

from __future__ import annotations

import json

import numpy as np
import pytest

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")
pytest.importorskip("sklearn")

from faultlib.remedies import key_strings, normalise_keys, parse_times, to_utc  # noqa: E402
from faultlib.remedies.times import dst_symptoms, local_time_zones, transitions  # noqa: E402
from faultlib.detect.data.alignment import KINDS, check_alignment, parse_tolerance  # noqa: E402
from faultlib.errors import InputError  # noqa: E402
from faultlib.findings import KIND_PATTERN  # noqa: E402
from faultlib.readers.tables import read_table  # noqa: E402


def wine_sources(n_windows: int = 2):
    """scikit-learn's wine (178 samples) as readings every 4 min around the 2024 EU DST transitions:
    a readings table (id, at UTC, features) and a labels table (id, at ISO Z, label)."""
    from sklearn.datasets import load_wine

    data = load_wine()
    n = len(data.target)
    starts = [pd.Timestamp("2024-03-30T22:30:00Z"), pd.Timestamp("2024-10-26T22:30:00Z")][:n_windows]
    per = -(-n // len(starts))
    at = pd.DatetimeIndex([starts[i // per] + pd.Timedelta(seconds=240 * (i % per)) for i in range(n)]).as_unit("ns")
    ids = np.arange(n) // 2 + 1                          # two readings per id
    readings = pd.DataFrame(data.data[:, :4], columns=["alcohol", "malic_acid", "ash", "alcalinity"])
    readings.insert(0, "at", at)
    readings.insert(0, "id", ids)
    labels = pd.DataFrame({"id": ids, "at": at.strftime("%Y-%m-%dT%H:%M:%S.%fZ"), "label": data.target})
    return readings, labels


def roundtrip(frame, path):
    """Write ``frame`` in the format of ``path``'s extension and read it back with faultlib's reader."""
    suffix = path.suffix
    if suffix == ".csv":
        frame.to_csv(path, index=False)
    elif suffix == ".parquet":
        frame.to_parquet(path, index=False)
    elif suffix == ".json":
        path.write_text(frame.to_json(orient="records", date_format="iso"))
    elif suffix == ".jsonl":
        path.write_text(frame.to_json(orient="records", lines=True, date_format="iso"))
    elif suffix == ".npy":   # a structured array; text columns as fixed-width unicode (no pickle)
        columns = [frame[c].to_numpy(dtype=str if frame[c].dtype == object or str(frame[c].dtype) in ("str", "string")
                                     else None) for c in frame.columns]
        np.save(path, np.rec.fromarrays(columns, names=list(frame.columns)))
    return read_table(path)


def kinds(report):
    return sorted({f.kind for f in report.findings})


def test_kinds_are_snake_case_and_documented():
    assert all(KIND_PATTERN.fullmatch(k) and v for k, v in KINDS.items())
    assert {"key_dtype_mismatch", "key_zero_padding", "key_whitespace", "key_case", "duplicate_keys",
            "unmatched_keys", "naive_vs_aware", "different_time_zones", "time_zone_offset", "dst_local_time",
            "clock_offset", "time_beyond_tolerance", "null_keys_match", "missing_timestamps"} == set(KINDS)


@pytest.mark.parametrize("suffix", [".csv", ".parquet", ".json", ".jsonl"])
def test_clean_sources_are_silent(tmp_path, suffix):
    readings, labels = wine_sources()
    left = roundtrip(readings, tmp_path / "readings.parquet")
    right = roundtrip(labels, tmp_path / f"labels{suffix}")
    report = check_alignment(left, right, on=["id"], time_col="at", tolerance="500ms")
    assert report.findings == []
    assert report.keys["matched_left_rows_raw"] == report.keys["matched_left_rows"] == len(readings)
    assert report.time["matched_within_tolerance"] == {"raw": len(readings), "of": len(readings),
                                                       "after_fix": len(readings)}
    assert report.join["row_multiplication"] == 1.0
    json.dumps(report.fields(), allow_nan=False)


def test_int_ids_against_zero_padded_text_with_whitespace_and_case(tmp_path):
    left = roundtrip(pd.DataFrame({"sku": [1, 2, 3, 4, 5, 6], "v": range(6)}), tmp_path / "l.parquet")
    right = roundtrip(pd.DataFrame({"sku": ["000001", " 2", "3 ", "0004", "5", "A6"], "w": range(6)}),
                      tmp_path / "r.csv")
    report = check_alignment(left, right, on=["sku"], left_name="l.parquet", right_name="r.csv", right_line_offset=2)
    found = {f.kind: f for f in report.findings}
    assert {"key_dtype_mismatch", "key_whitespace", "key_zero_padding", "unmatched_keys"} <= set(found)
    assert found["key_dtype_mismatch"].evidence["matched_before"] == 0           # pandas refuses int vs text
    assert "refuses" in found["key_dtype_mismatch"].message
    chain = [(s["step"], s["matched_left_rows"]) for s in report.keys["steps"]]
    assert chain == [("raw", 0), ("to_string", 1), ("strip_whitespace", 3), ("strip_leading_zeros", 5)]
    assert report.keys["normalisation"] == {"sku": ["to_string", "strip_whitespace", "strip_leading_zeros"]}
    assert found["key_zero_padding"].evidence["examples"][0]["right"] in ("000001", "0004")
    unmatched = [f for f in report.findings if f.kind == "unmatched_keys"]
    assert {f.location["file"] for f in unmatched} == {"l.parquet", "r.csv"}
    right_only = next(f for f in unmatched if f.location["file"] == "r.csv")
    assert right_only.evidence["examples"] == ["A6"] and right_only.location["line"] == 7


def test_case_and_composite_keys_from_npy_and_json(tmp_path):
    left = roundtrip(pd.DataFrame({"site": ["ab", "cd", "ef"], "n": [1, 2, 3], "x": [0.1, 0.2, 0.3]}),
                     tmp_path / "l.json")
    right = roundtrip(pd.DataFrame({"site": ["AB", "cd", "EF"], "n": [1.0, 2.0, 3.0]}), tmp_path / "r.npy")
    report = check_alignment(left, right, on=["site", "n"])
    assert kinds(report) == ["key_case"]              # int vs float ids are both numbers: pandas merges them
    assert report.keys["normalisation"] == {"site": ["casefold"], "n": []}
    assert report.keys["matched_left_rows_raw"] == 1 and report.keys["matched_left_rows"] == 3


def test_duplicates_fan_out_with_exact_row_multiplication(tmp_path):
    left = pd.DataFrame({"id": [1, 2, 3, 4]})
    right = pd.DataFrame({"id": [1, 1, 1, 2, 2, 3, 4], "v": range(7)})
    report = check_alignment(left, right, on=["id"], right_name="events.csv")
    [dup] = [f for f in report.findings if f.kind == "duplicate_keys"]
    assert dup.evidence["duplicated_values"] == 2 and dup.evidence["extra_rows"] == 3 and dup.evidence["max_count"] == 3
    assert report.join["rows_inner"] == len(left.merge(right, on="id")) == 7
    assert report.join["row_multiplication"] == pytest.approx(7 / 4)
    assert dup.evidence["worst"][0]["key"] == 1 and dup.evidence["worst"][0]["count"] == 3


def test_missing_columns_are_input_errors_but_missing_keys_are_data(tmp_path):
    right = roundtrip(pd.DataFrame({"id": ["1", None, "3"]}), tmp_path / "r.csv")
    report = check_alignment(pd.DataFrame({"id": [1, 2, 3]}), right, on=["id"], right_name="r.csv", right_line_offset=2)
    [gap] = [f for f in report.findings if f.kind == "unmatched_keys" and f.location["file"] == "r.csv"]
    assert gap.evidence["null_key_rows"] == 1 and gap.location["line"] == 3
    assert "null_keys_match" not in kinds(report)             # NaN on one side only matches nothing
    with pytest.raises(InputError, match="has no column 'key'; its columns are 'id'"):
        check_alignment(pd.DataFrame({"id": [1]}), pd.DataFrame({"id": [1]}), on=["key"])
    with pytest.raises(InputError, match="nothing to align"):
        check_alignment(pd.DataFrame({"id": [1]}), pd.DataFrame({"id": [1]}))
    with pytest.raises(InputError, match="how='cross'"):
        check_alignment(pd.DataFrame({"id": [1]}), pd.DataFrame({"id": [1]}), on="id", how="cross")


def test_nan_keys_on_both_sides_are_the_fault_with_pandas_fan_out(tmp_path):
    orders = roundtrip(pd.DataFrame({"customer": ["c1", None, "c3", None, None], "amount": [5, 6, 7, 8, 9]}),
                       tmp_path / "orders.csv")
    people = roundtrip(pd.DataFrame({"customer": ["c1", None, "c3", None], "vip": [0, 1, 0, 1]}),
                       tmp_path / "people.parquet")
    report = check_alignment(orders, people, on="customer", how="left", left_name="orders.csv", left_line_offset=2)
    [null] = [f for f in report.findings if f.kind == "null_keys_match"]
    merged = orders.merge(people, on="customer", how="left")
    assert len(merged) == 3 * 2 + 2 > len(orders)           # what pandas does: every NaN meets every NaN
    ev = null.evidence
    assert (ev["left_rows"], ev["right_rows"], ev["joined_rows"], ev["rows_added"]) == (3, 2, 6, 3)
    assert [r["index"] for r in ev["rows"]["left"]] == [1, 3, 4] and ev["rows"]["left"][0]["line"] == 3
    assert null.severity.value == "error" and null.location == {"file": "orders.csv", "index": 1, "line": 3,
                                                                "column_name": "customer"}
    assert "duplicate_keys" not in kinds(report)           # null rows are not a repeated key
    clean = check_alignment(orders.dropna(), people.dropna(), on="customer", how="left")
    assert clean.findings == []


def test_nan_in_one_column_of_a_composite_key_matches_like_pandas():
    left = pd.DataFrame({"site": ["a", "a", "b"], "n": [1.0, np.nan, np.nan]})
    right = pd.DataFrame({"site": ["a", "b", "b"], "n": [np.nan, np.nan, 2.0]})
    report = check_alignment(left, right, on=["site", "n"])
    [null] = [f for f in report.findings if f.kind == "null_keys_match"]
    assert null.evidence["joined_rows"] == len(left.merge(right, on=["site", "n"])) == 2


def test_valid_many_to_one_join_on_a_composite_key_is_quiet():
    rng = np.random.default_rng(3)
    stores = pd.DataFrame({"region": np.repeat(["north", "south"], 5), "store": np.tile(np.arange(5), 2),
                           "size": rng.integers(1, 9, 10)})
    sales = stores[["region", "store"]].sample(200, replace=True, random_state=1).reset_index(drop=True)
    sales["amount"] = rng.normal(size=200)
    report = check_alignment(sales, stores.iloc[:9], on=["region", "store"], how="left")
    assert report.join["validate"] == "many_to_one" and report.join["validate_inferred"]
    assert [f.severity.value for f in report.findings] in ([], ["info"])   # the store without sales: info
    assert all(f.kind == "unmatched_keys" for f in report.findings)
    # declared one_to_one: the repeated sales keys break it
    strict = check_alignment(sales, stores, on=["region", "store"], validate="one_to_one")
    [dup] = [f for f in strict.findings if f.kind == "duplicate_keys"]
    assert dup.location["file"] == "LEFT" and "MergeError" in dup.message
    # the lookup side repeating a key fans the kept table out
    twice = pd.concat([stores, stores.iloc[[0]]], ignore_index=True)
    fan = check_alignment(sales, twice, on=["region", "store"])
    [dup] = [f for f in fan.findings if f.kind == "duplicate_keys" and f.location["file"] == "RIGHT"]
    assert dup.evidence["join_rows_added"] == int((sales["store"].eq(0)
                                                                                     & sales["region"].eq("north")).sum())
    assert not [f for f in check_alignment(sales, twice, on=["region", "store"], validate="many_to_many").findings
                if f.kind == "duplicate_keys"]


@pytest.mark.parametrize("how,left_sev,right_sev", [("inner", "warning", "info"), ("left", "info", "info"),
                                                    ("right", "info", "info"), ("outer", "info", "info")])
def test_unmatched_keys_are_warnings_only_when_the_join_drops_records(how, left_sev, right_sev):
    left = pd.DataFrame({"id": [1, 2, 3, 3, 9]})
    right = pd.DataFrame({"id": [1, 2, 3, 7]})
    report = check_alignment(left, right, on="id", how=how)
    sev = {f.location["file"]: f.severity.value for f in report.findings if f.kind == "unmatched_keys"}
    assert sev == {"LEFT": left_sev, "RIGHT": right_sev}


def test_missing_timestamps_are_counted_and_left_out(tmp_path):
    readings, labels = wine_sources()
    holed = labels.astype({"at": object}).copy()
    holed.loc[[4, 9], "at"] = None
    holed.loc[12, "at"] = "NaT"                                  # how pandas writes a missing datetime as text
    right = roundtrip(holed, tmp_path / "labels.csv")
    report = check_alignment(readings, right, on=["id"], time_col="at", tolerance="500ms", right_line_offset=2)
    [gap] = [f for f in report.findings if f.kind == "missing_timestamps"]
    assert gap.evidence["rows"] == 3 and gap.location["line"] == 6 and gap.evidence["first_rows"] == [4, 9, 12]
    assert report.time["matched_within_tolerance"]["raw"] == len(readings) - 3


def _local(labels, zone, rows=None, offset="0s"):
    out = labels.copy()
    instants = pd.to_datetime(out["at"], utc=True)
    mask = np.ones(len(out), bool) if rows is None else rows
    local = (instants[mask] + pd.Timedelta(offset)).dt.tz_convert(zone).dt.tz_localize(None)
    values = out["at"].astype(object)
    values[mask] = local.dt.strftime("%Y-%m-%d %H:%M:%S.%f").to_numpy()
    out["at"] = values
    return out


def test_subset_written_in_local_dst_time_with_a_skewed_clock(tmp_path):
    readings, labels = wine_sources()
    site_b = (labels["id"] % 3 == 0).to_numpy()
    right = roundtrip(_local(labels, "Europe/Berlin", site_b, "1500ms"), tmp_path / "labels.csv")
    left = roundtrip(readings, tmp_path / "readings.parquet")
    report = check_alignment(left, right, on=["id"], time_col="at", tolerance="500ms", right_name="labels.csv",
                             right_line_offset=2)
    found = {f.kind: f for f in report.findings}
    assert set(found) == {"naive_vs_aware", "dst_local_time", "clock_offset"}
    dst = found["dst_local_time"].evidence
    assert dst["zone"] == "Europe/Berlin" and dst["rows"] == site_b.sum() and dst["offsets_h"] == [1.0, 2.0]
    assert {t["kind"] for t in dst["transitions"] if t["symptom"]} == {"missing_hour", "duplicated_hour"}
    assert found["clock_offset"].evidence["offset_ms"] == pytest.approx(1500) and \
        found["clock_offset"].evidence["scope"] == "naive rows"
    assert found["naive_vs_aware"].severity.value == "error"
    m = report.time["matched_within_tolerance"]
    assert m["raw"] == (~site_b).sum() and m["after_fix"] == len(readings)
    assert [s["step"] for s in report.time["fix"]] == ["localize", "shift"]


@pytest.mark.parametrize("zone,kind,offsets", [
    ("Europe/London", "dst_local_time", [0.0, 1.0]),       # no offset in winter: still London's rules
    ("Asia/Kolkata", "time_zone_offset", [5.5]),
    ("America/New_York", "time_zone_offset", [-4.0]),       # both windows are in US summer time
])
def test_whole_source_in_local_time(tmp_path, zone, kind, offsets):
    readings, labels = wine_sources()
    right = roundtrip(_local(labels, zone), tmp_path / "labels.csv")
    report = check_alignment(readings, right, on=["id"], time_col="at", tolerance="1s")
    found = {f.kind: f for f in report.findings}
    assert kind in found and found[kind].evidence["offsets_h"] == offsets
    assert found[kind].evidence["matched_after"] == len(readings)
    assert "clock_offset" not in found


def test_left_side_local_and_naive_both_sides(tmp_path):
    readings, labels = wine_sources()
    left = readings.assign(at=readings["at"].dt.tz_convert("America/Chicago").dt.tz_localize(None))
    right = labels.assign(at=pd.to_datetime(labels["at"], utc=True).dt.tz_localize(None))
    report = check_alignment(left, right, on=["id"], time_col="at")
    [finding] = report.findings
    assert finding.kind == "time_zone_offset" and report.time["zone"]["local_side"] == "left"
    assert "America/Chicago" in finding.evidence["equivalent"]


def test_only_a_clock_offset_and_scattered_outliers(tmp_path):
    readings, labels = wine_sources()
    shifted = pd.to_datetime(labels["at"], utc=True) + pd.Timedelta("2s")
    shifted.iloc[[3, 50]] += pd.Timedelta("40s")
    right = labels.assign(at=shifted.dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ"))
    report = check_alignment(roundtrip(readings, tmp_path / "r.parquet"), roundtrip(right, tmp_path / "l.jsonl"),
                             on=["id"], time_col="at", tolerance="500ms")
    found = {f.kind: f for f in report.findings}
    assert set(found) == {"clock_offset", "time_beyond_tolerance"}
    assert found["clock_offset"].evidence["offset_ms"] == pytest.approx(2000)
    assert found["clock_offset"].evidence["scope"] == "all rows"
    assert found["time_beyond_tolerance"].evidence["pairs"] == 2
    assert {w["right_row"] for w in found["time_beyond_tolerance"].evidence["worst_rows"][:2]} == {3, 50}


def test_unkeyed_dst_and_skew_are_found_from_the_series_alone():
    readings, labels = wine_sources()
    right = _local(labels, "Europe/Berlin", offset="3s")[["at"]].rename(columns={"at": "ts"})
    report = check_alignment(readings[["at"]], right, time_col="at=ts", tolerance="500ms")
    found = {f.kind: f for f in report.findings}
    assert {"dst_local_time", "clock_offset", "naive_vs_aware"} == set(found)
    assert found["dst_local_time"].evidence["zone"] == "Europe/Berlin"
    assert report.time["pairing"] == "nearest_time"
    assert report.time["matched_within_tolerance"]["after_fix"] == len(readings)


def test_different_zones_are_informational():
    readings, labels = wine_sources()
    right = labels.assign(at=pd.to_datetime(labels["at"], utc=True).dt.tz_convert("Asia/Tokyo").astype(str))
    report = check_alignment(readings, right, on=["id"], time_col="at")
    assert [(f.kind, f.severity.value) for f in report.findings] == [("different_time_zones", "info")]


def test_naive_utc_against_aware_is_a_warning():
    readings, labels = wine_sources(1)
    right = labels.assign(at=pd.to_datetime(labels["at"], utc=True).dt.tz_localize(None).astype(str))
    report = check_alignment(readings, right, on=["id"], time_col="at")
    [finding] = report.findings
    assert finding.kind == "naive_vs_aware" and finding.severity.value == "warning"
    assert "tz_localize('UTC')" in finding.message


# -- helpers -----------------------------------------------------------------------------------------

def test_parse_tolerance():
    assert parse_tolerance("500ms") == 500_000_000 and parse_tolerance("1.5s") == 1_500_000_000
    for bad in ("500", "fast", "-1s", 3):
        with pytest.raises(InputError, match="tolerance"):
            parse_tolerance(bad)
    for missing in ("nan", "NaT"):  # pandas reads both as NaT: not a duration (was 'must be >= 0')
        with pytest.raises(InputError, match=f"'{missing}' is not a duration"):
            parse_tolerance(missing)
    with pytest.raises(InputError, match="'-1s' must be >= 0"):
        parse_tolerance("-1s")
    assert parse_tolerance("0s") == 0


def test_key_strings_and_normalise_keys():
    assert key_strings(pd.Series([1.0, 2.5, 3.0])).tolist() == ["1", "2.5", "3"]
    assert key_strings(pd.Series([7, "007", 8.0], dtype=object)).tolist() == ["7", "007", "8"]
    assert normalise_keys(pd.Series([" 007 ", "-0042", "0", "AbC"]),
                          ["strip_whitespace", "casefold", "strip_leading_zeros"]).tolist() == ["7", "-0042", "0", "abc"]


def test_parse_times_kinds_epochs_and_errors():
    epoch = parse_times(pd.Series([1_711_846_800_000, 1_711_846_801_000]))
    assert epoch.kind == "epoch" and epoch.epoch_unit == "ms" and epoch.ns[0] == 1_711_846_800 * 10**9
    mixed = parse_times(pd.Series(["2024-03-31T01:00:00+02:00", "2024-03-31 01:00:00"]))
    assert mixed.kind == "mixed" and mixed.aware.tolist() == [True, False] and mixed.zones == ("+02:00",)
    with pytest.raises(InputError, match="row 1") as caught:
        parse_times(pd.Series(["2024-01-01", "soon"]), column="at", path="x.csv", line_offset=2)
    assert caught.value.line == 3


def test_to_utc_and_dst_symptoms():
    wall = pd.Series(["2024-10-27 02:30:00", "2024-10-27 02:10:00", "2024-10-27T00:00:00Z"])
    utc = to_utc(wall, naive_zone="Europe/Berlin")
    assert utc.dt.strftime("%H:%M").tolist() == ["00:30", "01:10", "00:00"]   # the clock went back: second pass
    berlin = pd.date_range("2024-03-30 20:00", "2024-03-31 06:00", freq="5min", tz="UTC").tz_convert("Europe/Berlin")
    wall_ns = berlin.tz_localize(None).as_unit("ns").asi8
    [missing] = dst_symptoms(wall_ns, "Europe/Berlin")
    assert missing["kind"] == "missing_hour" and missing["rows"] == 0 and missing["symptom"]
    assert "Europe/Berlin" in [z for z, _ in local_time_zones(wall_ns)]
    utc_ns = pd.date_range("2024-03-30 20:00", "2024-03-31 06:00", freq="5min").as_unit("ns").asi8
    assert local_time_zones(utc_ns) == []
    assert [t[1:] for t in transitions("Europe/Berlin", utc_ns[0], utc_ns[-1])] == [(3600 * 10**9, 7200 * 10**9)]


def _events(start: str, days: int, rng, n: int = 3000):
    """Irregular event instants (UTC) over ``days`` days from ``start``."""
    gaps = rng.exponential(days * 86_400 / n, n)
    return pd.Timestamp(start, tz="UTC") + pd.to_timedelta(np.cumsum(gaps), unit="s")


@pytest.mark.parametrize("zone,start,kind,transition", [
    ("America/New_York", "2024-10-20", "dst_local_time", "duplicated_hour"),    # north: fall back on Nov 3
    ("Australia/Sydney", "2024-03-25", "dst_local_time", "duplicated_hour"),    # south: fall back on Apr 7
    ("America/Santiago", "2024-08-25", "dst_local_time", "missing_hour"),       # south: spring forward on Sep 8
    ("Asia/Kolkata", "2024-03-25", "time_zone_offset", None),                   # fixed +05:30
])
def test_unkeyed_local_clock_zone_is_inferred_from_irregular_events(zone, start, kind, transition):
    rng = np.random.default_rng(len(zone) * 7 + int(start[-2:]))
    at = _events(start, 28, rng)
    left = pd.DataFrame({"at": at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")})
    local = (at + pd.to_timedelta(rng.uniform(-0.2, 0.2, len(at)), unit="s")).tz_convert(zone).tz_localize(None)
    right = pd.DataFrame({"at": local.strftime("%Y-%m-%d %H:%M:%S.%f")})
    report = check_alignment(left, right, time_col="at", tolerance="1s", right_name="local.csv")
    found = {f.kind: f for f in report.findings}
    assert kind in found, sorted(found)
    ev = found[kind].evidence
    counts = report.time["matched_within_tolerance"]
    assert ev["matched_after"] > ev["matched_before"] and counts["after_fix"] >= 0.98 * len(at) > 10 * counts["raw"]
    assert f"{ev['matched_before']} -> {ev['matched_after']}" in found[kind].message
    if kind == "dst_local_time":
        assert ev["zone"] == zone and "tz_localize" in ev["fix"] and "ambiguous=" in ev["fix"]
        assert "nonexistent=" in ev["fix"] and "tz_convert('UTC')" in ev["fix"]
        assert transition in {t["kind"] for t in ev["transitions"]}
    else:
        assert ev["zone"] == "UTC+05:30"


def test_two_sources_on_the_same_local_clock_are_not_given_a_zone_fix():
    rng = np.random.default_rng(5)
    at = _events("2024-10-20", 28, rng)
    wall = at.tz_convert("America/New_York").tz_localize(None)       # both write New York wall time
    left = pd.DataFrame({"at": wall.strftime("%Y-%m-%d %H:%M:%S.%f")})
    right = pd.DataFrame({"at": (wall + pd.Timedelta("100ms")).strftime("%Y-%m-%d %H:%M:%S.%f")})
    report = check_alignment(left, right, time_col="at", tolerance="1s")
    assert not {"dst_local_time", "time_zone_offset"} & {f.kind for f in report.findings}
    assert report.time["matched_within_tolerance"]["raw"] == len(at)
