"""`faultlib check drift`: real tables in every supported format in a temp directory, exit codes 0/1/2, the
JSON fields, thresholds from a case.yaml-like file. The human output is checked black-box (its own process); the
rest calls the same entry in this process (:func:`tests.conftest.cli_in_process`: a fresh interpreter per call
imported pandas and scipy again, most of each call's cost)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from faultlib.check.drift import KINDS
from tests.conftest import cli, cli_in_process

FIELDS = {"detector", "ok", "findings", "columns", "drifted", "response", "multivariate", "method", "correction",
          "thresholds", "n_reference", "n_current", "reference", "current", "complete", "untested",
          "skipped"}
COLUMN_FIELDS = {"method", "statistic", "p_value", "drifted", "p_adjusted", "psi", "psi_noise", "kl", "response",
                 "type"}


def check(tmp_path, *args, black_box: bool = False):
    proc = (cli("check", "drift", *args, cwd=tmp_path, timeout=120) if black_box
            else cli_in_process("check", "drift", *args, cwd=tmp_path))
    return proc, (json.loads(proc.stdout) if proc.stdout.strip().startswith("{") else None)


def frame(seed: int, n: int = 300, shift: float = 0.0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": rng.normal(40 + shift * 12, 12, n), "income": rng.lognormal(10, 1, n),
                         "visits": rng.poisson(3, n), "plan": rng.choice(["basic", "plus", "pro"], n, p=[.6, .3, .1])})


def write(df: pd.DataFrame, path):
    """``df`` in the format of ``path``'s extension (NPY/NPZ hold the numeric columns only)."""
    suffix = path.suffix
    if suffix == ".csv":
        df.to_csv(path, index=False)
    elif suffix == ".tsv":
        df.to_csv(path, index=False, sep="\t")
    elif suffix == ".json":
        path.write_text(json.dumps(df.to_dict(orient="records")))
    elif suffix == ".jsonl":
        df.to_json(path, orient="records", lines=True)
    elif suffix == ".parquet":
        df.to_parquet(path)
    elif suffix == ".npy":
        np.save(path, df.select_dtypes("number").to_numpy(dtype=float))
    elif suffix == ".npz":
        np.savez(path, **{c: df[c].to_numpy(dtype=float) for c in df.select_dtypes("number")})
    return path.name


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".json", ".jsonl", ".parquet", ".npy", ".npz"])
def test_every_format_exit_0_on_a_resample_and_1_on_a_shift(tmp_path, suffix):
    ref = write(frame(0), tmp_path / f"ref{suffix}")
    same = write(frame(1), tmp_path / f"same{suffix}")
    shifted = write(frame(2, shift=1.0), tmp_path / f"shifted{suffix}")
    proc, out = check(tmp_path, ref, same, "--json", "--permutations", "99")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert set(out) == FIELDS and out["ok"] is True and out["findings"] == [] and out["drifted"] == []
    assert all(set(c) >= COLUMN_FIELDS for c in out["columns"].values())
    assert out["response"] == "none" and out["n_reference"] == 300 and out["correction"] == "benjamini_hochberg+bonferroni2"
    proc, out = check(tmp_path, ref, shifted, "--json", "--permutations", "99")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    age = "0" if suffix == ".npy" else "age"          # a 2-D .npy names its columns 0, 1, ...
    assert out["drifted"] == [age] and out["response"] == "freeze" and out["ok"] is False
    assert out["columns"][age]["method"] == "ks" and out["columns"][age]["p_adjusted"] <= 0.05
    assert out["multivariate"]["drifted"] is True
    finding = out["findings"][0]
    assert (finding["kind"], finding["severity"], finding["location"]) == ("column_drift", "error", {"column_name": age})
    assert {f["kind"] for f in out["findings"]} <= set(KINDS)


def test_human_output_and_fail_on(tmp_path):
    ref, cur = write(frame(0), tmp_path / "ref.csv"), write(frame(2, shift=1.0), tmp_path / "cur.parquet")
    proc, _ = check(tmp_path, ref, cur, "--method", "psi", black_box=True)
    assert proc.returncode == 1 and "column_drift" in proc.stdout and "response: freeze" in proc.stdout
    assert "age: psi" in proc.stdout
    proc, _ = check(tmp_path, ref, cur, "--method", "psi", "--fail-on", "critical")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_columns_subset_and_categorical_codes(tmp_path):
    ref = write(frame(0).assign(extra=1.0), tmp_path / "ref.csv")
    cur = write(frame(1), tmp_path / "cur.csv")
    proc, out = check(tmp_path, ref, cur, "--columns", "age,plan", "--columns", "visits", "--categorical", "visits",
                      "--method", "chi2", "--json")
    assert proc.returncode == 0, proc.stderr
    assert list(out["columns"]) == ["age", "plan", "visits"] and out["columns"]["visits"]["type"] == "categorical"
    assert out["multivariate"] is None and out["correction"] == "benjamini_hochberg"


def test_mismatched_columns_and_empty_files_exit_2_but_nan_is_data(tmp_path):
    ref = write(frame(0), tmp_path / "ref.csv")
    write(frame(1).drop(columns="plan"), tmp_path / "narrow.csv")
    proc, _ = check(tmp_path, ref, "narrow.csv")
    assert proc.returncode == 2 and "narrow.csv" in proc.stderr and "'plan'" in proc.stderr
    assert "Traceback" not in proc.stderr
    holed = frame(1)
    holed.loc[3, "income"] = np.nan
    write(holed, tmp_path / "holed.csv")
    proc, out = check(tmp_path, ref, "holed.csv", "--json")
    assert proc.returncode == 0 and out["columns"]["income"]["missing"]["current"]["null"] == 1   # one gap: chance
    (tmp_path / "empty.csv").write_text("")
    proc, _ = check(tmp_path, ref, "empty.csv")
    assert proc.returncode == 2 and "empty.csv" in proc.stderr and "empty" in proc.stderr
    write(frame(1).assign(age="old"), tmp_path / "typed.csv")
    proc, _ = check(tmp_path, ref, "typed.csv")
    assert proc.returncode == 2 and "typed.csv" in proc.stderr and "'age' is categorical here but numeric" in proc.stderr
    proc, _ = check(tmp_path, ref, "missing.csv")
    assert proc.returncode == 2 and "missing.csv" in proc.stderr


def test_thresholds_from_a_case_file_and_flags(tmp_path):
    ref, cur = write(frame(0), tmp_path / "ref.csv"), write(frame(2, shift=1.0), tmp_path / "cur.csv")
    (tmp_path / "case.yaml").write_text("repro:\n  params:\n    drift:\n      alpha: 0.01\n      freeze_psi: 5.0\n")
    proc, out = check(tmp_path, ref, cur, "--thresholds", "case.yaml#repro.params.drift", "--method", "ks", "--json")
    assert proc.returncode == 1 and out["thresholds"]["alpha"] == 0.01 and out["response"] == "alert"
    proc, out = check(tmp_path, ref, cur, "--thresholds", "case.yaml#repro.params.drift", "--freeze-psi", "0.2",
                      "--method", "ks", "--json")
    assert out["response"] == "freeze" and out["thresholds"]["freeze_psi"] == 0.2
    (tmp_path / "bad.yaml").write_text("drift:\n  alpha: 0.05\n  frezee_psi: 0.3\n")
    proc, _ = check(tmp_path, ref, cur, "--thresholds", "bad.yaml#drift")
    assert proc.returncode == 2 and "bad.yaml:3: drift.frezee_psi: unknown drift setting" in proc.stderr
    proc, _ = check(tmp_path, ref, cur, "--thresholds", "bad.yaml#drift.nothing")
    assert proc.returncode == 2 and "has no key 'drift.nothing'" in proc.stderr
    proc, _ = check(tmp_path, ref, cur, "--alpha", "2")
    assert proc.returncode == 2 and "--alpha" in proc.stderr


def test_kinds_are_documented():
    assert set(KINDS) == {"column_drift", "multivariate_drift", "new_category", "missing_share_drift",
                          "analysis_incomplete", "key_column_skipped"}
    assert all(k.islower() and " " not in k for k in KINDS)
