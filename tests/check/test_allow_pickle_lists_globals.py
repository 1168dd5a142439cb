"""`check leakage --fitted X.pkl --allow-pickle` says what the pickle imports before unpickling it (the flag still
loads it): before, a pickle calling ``builtins.eval`` (or ``posix.system``) ran with nothing printed first. The
command runs in this process (:func:`tests.conftest.cli_in_process`: what it prints, not the process boundary)."""

from __future__ import annotations

import builtins
import json
import pickle

import pytest

from tests.conftest import cli_in_process

pytest.importorskip("sklearn")


class _Evaluates:
    """Unpickles as ``eval("6 * 7")``: code run on load, harmless here, what a hostile pickle does."""

    def __reduce__(self):
        return builtins.eval, ("6 * 7",)


@pytest.fixture
def wine(tmp_path):
    from sklearn.datasets import load_wine
    from sklearn.preprocessing import MinMaxScaler

    frame = load_wine(as_frame=True).data.iloc[:, :4]
    frame.columns = ["alcohol", "malic", "ash", "alcalinity"]
    train, test = frame.iloc[:120], frame.iloc[120:]
    train.to_csv(tmp_path / "train.csv", index=False)
    test.to_csv(tmp_path / "test.csv", index=False)
    (tmp_path / "minmax.pkl").write_bytes(pickle.dumps(MinMaxScaler().fit(train.to_numpy())))
    return tmp_path


def test_the_globals_of_a_scaler_pickle_are_listed_and_it_still_loads(wine):
    proc = cli_in_process("check", "leakage", "--fitted", "minmax.pkl", "--train", "train.csv", "--test", "test.csv",
                          "--allow-pickle", "--json", cwd=wine)
    assert proc.returncode == 0, proc.stderr
    assert "--allow-pickle: unpickling minmax.pkl, which imports and may call: " in proc.stderr
    assert "sklearn.preprocessing._data.MinMaxScaler" in proc.stderr and "warning" not in proc.stderr
    out = json.loads(proc.stdout)
    assert out["fitted_on"] == "train" and "sklearn.preprocessing._data.MinMaxScaler" in out["pickle_globals"]


def test_a_global_that_runs_code_is_named_first_and_warned_about(wine):
    (wine / "payload.pkl").write_bytes(pickle.dumps(_Evaluates(), protocol=4))
    proc = cli_in_process("check", "leakage", "--fitted", "payload.pkl", "--train", "train.csv", "--test", "test.csv",
                          "--allow-pickle", cwd=wine)
    assert proc.returncode == 2, proc.stderr  # it loaded (eval ran: 42) and holds no scaler
    listed = proc.stderr.index("which imports and may call: builtins.eval")
    assert "warning: builtins.eval: a command or code run on unpickling" in proc.stderr
    assert listed < proc.stderr.index("holds a int with no scaler statistics"), proc.stderr
