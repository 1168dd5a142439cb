"""`faultlib check align` on real files (CSV, Parquet, JSON, JSON Lines, NPY): exit codes 0/1/2, JSON fields. The
human output is checked black-box (its own process); the rest calls the same entry in this process
(:func:`tests.conftest.cli_in_process`: a fresh interpreter per call imported pandas and pyarrow again)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.conftest import cli, cli_in_process

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")
pytest.importorskip("sklearn")


def sources():
    """breast_cancer as a feature table and a diagnoses table keyed by patient id and time (3 scans per patient,
    every 4 minutes around the 2024 EU DST transitions)."""
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    n = 240
    half = n // 2
    at = pd.DatetimeIndex([pd.Timestamp("2024-03-30T21:00:00Z") + pd.Timedelta(minutes=4 * i) for i in range(half)]
                          + [pd.Timestamp("2024-10-26T21:00:00Z") + pd.Timedelta(minutes=4 * i) for i in range(half)])
    ids = np.arange(n) // 3 + 1
    features = pd.DataFrame(data.data[:n, :5], columns=["radius", "texture", "perimeter", "area", "smoothness"])
    features.insert(0, "scanned_at", at.as_unit("ns"))
    features.insert(0, "patient_id", ids)
    diagnoses = pd.DataFrame({"patient_id": ids, "sampled_at": at.strftime("%Y-%m-%dT%H:%M:%SZ"),
                              "malignant": (data.target[:n] == 0).astype(int)})
    return features, diagnoses


def faulted(diagnoses):
    """Every third patient's lab writes zero-padded ids and naive Berlin time 2 s fast; 5 rows arrive twice."""
    out = diagnoses.copy()
    site_b = (out["patient_id"] % 3 == 0).to_numpy()
    ids = out["patient_id"].astype(object)
    ids[site_b] = out.loc[site_b, "patient_id"].map(lambda v: f"{v:06d}")
    out["patient_id"] = ids
    at = out["sampled_at"].astype(object)
    local = (pd.to_datetime(out.loc[site_b, "sampled_at"], utc=True) + pd.Timedelta("2s"))
    at[site_b] = local.dt.tz_convert("Europe/Berlin").dt.strftime("%Y-%m-%d %H:%M:%S").to_numpy()
    out["sampled_at"] = at
    return pd.concat([out, out.iloc[[1, 4, 7, 10, 13]]]).sort_index(kind="stable").reset_index(drop=True), int(site_b.sum())


def _json(proc):
    return json.loads(proc.stdout)


@pytest.fixture
def files(tmp_path):
    features, diagnoses = sources()
    features.to_parquet(tmp_path / "features.parquet", index=False)
    diagnoses.to_csv(tmp_path / "diagnoses_ok.csv", index=False)
    bad, site_b = faulted(diagnoses)
    bad.to_csv(tmp_path / "diagnoses.csv", index=False)
    (tmp_path / "diagnoses.json").write_text(bad.to_json(orient="records"))
    (tmp_path / "diagnoses.jsonl").write_text(bad.to_json(orient="records", lines=True))
    return tmp_path, site_b


def test_clean_sources_exit_0(files):
    path, _ = files
    proc = cli_in_process("check", "align", "features.parquet", "diagnoses_ok.csv", "--on", "patient_id",
               "--time-col", "scanned_at=sampled_at", "--tolerance", "500ms", "--json", cwd=path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = _json(proc)
    assert out["ok"] is True and out["findings"] == []
    assert set(out) == {"detector", "ok", "findings", "left", "right", "keys", "time", "join"}
    assert out["time"]["matched_within_tolerance"]["raw"] == out["left"]["rows"] == 240


@pytest.mark.parametrize("right", ["diagnoses.csv", "diagnoses.json", "diagnoses.jsonl"])
def test_every_fault_is_named_with_its_fix(files, right):
    path, site_b = files
    proc = cli_in_process("check", "align", "features.parquet", right, "--on", "patient_id", "--time-col",
               "scanned_at=sampled_at", "--tolerance", "500ms", "--json", cwd=path)
    assert proc.returncode == 1, proc.stderr
    out = _json(proc)
    found = {f["kind"]: f for f in out["findings"]}
    assert {"key_dtype_mismatch", "key_zero_padding", "naive_vs_aware", "dst_local_time", "clock_offset",
            "duplicate_keys"} <= set(found), sorted(found)
    assert out["keys"]["normalisation"]["patient_id"] == ["to_string", "strip_leading_zeros"]
    assert out["keys"]["matched_left_rows"] == 240 and found["key_zero_padding"]["evidence"]["matched_after"] == 240
    assert found["dst_local_time"]["evidence"]["zone"] == "Europe/Berlin"
    assert found["dst_local_time"]["evidence"]["rows"] == site_b
    assert found["clock_offset"]["evidence"]["offset_ms"] == pytest.approx(2000)
    assert out["time"]["matched_within_tolerance"]["after_fix"] == 240
    assert out["join"]["row_multiplication"] == pytest.approx(245 / 240)
    if right.endswith((".csv", ".jsonl")):
        assert found["duplicate_keys"]["location"]["line"] >= 1
    worst = found["clock_offset"]["evidence"]["worst_rows"][0]
    assert {"left_row", "right_row", "left_time", "right_time", "offset_ms", "key"} <= set(worst)


def test_human_output_and_fail_on(files):
    path, _ = files
    proc = cli("check", "align", "features.parquet", "diagnoses.csv", "--on", "patient_id", cwd=path)
    assert proc.returncode == 1 and "key_zero_padding" in proc.stdout and "key normalisation" in proc.stdout
    # keys only, after the fix every row matches; duplicates (3 scans a patient) are warnings
    proc = cli("check", "align", "features.parquet", "diagnoses_ok.csv", "--on", "patient_id", "--fail-on", "error",
               "--json", cwd=path)
    out = _json(proc)
    assert proc.returncode == 0 and {f["kind"] for f in out["findings"]} == {"duplicate_keys"}
    assert out["join"]["row_multiplication"] == pytest.approx(3.0)


def test_npy_tables(tmp_path):
    left = np.rec.fromarrays([np.arange(1, 6), np.linspace(0, 1, 5)], names=["id", "x"])
    right = np.rec.fromarrays([np.array(["001", "002", "003", "004", "005"]), np.arange(5)], names=["id", "y"])
    np.save(tmp_path / "left.npy", left)
    np.save(tmp_path / "right.npy", right)
    proc = cli_in_process("check", "align", "left.npy", "right.npy", "--on", "id", "--json", cwd=tmp_path)
    out = _json(proc)
    assert proc.returncode == 1 and {f["kind"] for f in out["findings"]} == {"key_dtype_mismatch", "key_zero_padding"}


@pytest.mark.parametrize("make,args,message", [
    (lambda p: (p / "empty.csv").write_text(""), ["empty.csv", "features.parquet", "--on", "patient_id"], "empty.csv"),
    (None, ["features.parquet", "diagnoses_ok.csv", "--on", "visit"], "has no column 'visit'"),
    (None, ["features.parquet", "diagnoses_ok.csv", "--on", "patient_id=pid"], "has no column 'pid'"),
    (None, ["features.parquet", "diagnoses_ok.csv"], "--on KEY"),
    (None, ["features.parquet", "diagnoses_ok.csv", "--time-col", "scanned_at=sampled_at", "--tolerance", "500"],
     "has no unit"),
    (None, ["features.parquet", "nothing.csv", "--on", "patient_id"], "nothing.csv"),
    (lambda p: (p / "notes.txt").write_text("a,b\n"), ["features.parquet", "notes.txt", "--on", "a"],
     "unknown table format"),
])
def test_bad_input_exits_2_naming_the_file(files, make, args, message):
    path, _ = files
    if make:
        make(path)
    proc = cli_in_process("check", "align", *args, cwd=path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert message in proc.stderr and "Traceback" not in proc.stderr


def test_nan_keys_are_findings_and_bad_timestamps_name_file_line_and_column(files):
    path, _ = files
    (path / "holes.csv").write_text("patient_id,sampled_at\n1,2024-03-30T21:00:00Z\n,2024-03-30T21:04:00Z\n")
    (path / "holes2.csv").write_text("patient_id,x\n,1\n,2\n1,3\n")
    proc = cli_in_process("check", "align", "holes2.csv", "holes.csv", "--on", "patient_id", "--how", "left", "--json",
                          cwd=path)
    out = _json(proc)
    [null] = [f for f in out["findings"] if f["kind"] == "null_keys_match"]
    assert proc.returncode == 1 and null["location"] == {"file": "holes2.csv", "index": 0, "line": 2,
                                                         "column_name": "patient_id"}
    assert null["evidence"]["joined_rows"] == 2 and null["evidence"]["rows"]["right"][0]["line"] == 3
    (path / "times.csv").write_text("patient_id,sampled_at\n1,2024-03-30T21:00:00Z\n2,yesterday\n")
    proc = cli_in_process("check", "align", "features.parquet", "times.csv", "--time-col", "scanned_at=sampled_at",
                          cwd=path)
    assert proc.returncode == 2 and "times.csv:3" in proc.stderr and "'yesterday' is not a timestamp" in proc.stderr
