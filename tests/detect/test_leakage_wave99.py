"""Kinds of issue 17's held-out wave 99 (Kaggle competition pipelines split over scripts and helper modules), both
directions. Every example is a small project written for this test (no public code)."""

from __future__ import annotations

from pathlib import Path

from tests.detect.test_leakage_crossmodule import _alarms, _write


def _dead(path: Path) -> frozenset[tuple[str, int]]:
    from faultlib.detect.data.leakage.deadhelpers import dead_functions

    return dead_functions(path)


# --- F1: a helper module's functions that no script calls -----------------------------------------------------

CROPS = """\
import pandas as pd
from sklearn.decomposition import PCA
from sklearn.preprocessing import MinMaxScaler


def soil_components(train, test):
    both = pd.concat([train, test])
    pca = PCA(n_components=2).fit(both[["ph", "clay"]])
    train[["c1", "c2"]] = pca.transform(train[["ph", "clay"]])
    test[["c1", "c2"]] = pca.transform(test[["ph", "clay"]])
    return train, test


def rain_scaled(train, test):
    both = pd.concat([train, test])
    scaler = MinMaxScaler().fit(both[["rain"]])
    train["rain_s"] = scaler.transform(train[["rain"]])
    test["rain_s"] = scaler.transform(test[["rain"]])
    return train, test


def sun_hours(train, test):
    both = pd.concat([train, test])
    middle = both["sun"].median()
    train["sunny"] = train["sun"] > middle
    test["sunny"] = test["sun"] > middle
    return train, test
"""

YIELD_SCRIPT = """\
import pandas as pd
from sklearn.linear_model import Ridge
from tools.crops import soil_components, rain_scaled, sun_hours


def main():
    fields = pd.read_csv("fields.csv")
    plots = pd.read_csv("plots.csv")
    fields, plots = rain_scaled(fields, plots)
    # fields, plots = soil_components(fields, plots)
    model = Ridge().fit(fields[["rain_s"]], fields["tonnes"])
    pd.DataFrame({"tonnes": model.predict(plots[["rain_s"]])}).to_csv("out.csv")


if __name__ == "__main__":
    main()
"""


def _crops(tmp_path: Path, script: str = YIELD_SCRIPT) -> Path:
    _write(tmp_path, {"README.md": "crops\n", "tools/__init__.py": "", "tools/crops.py": CROPS,
                      "yield_model.py": script})
    return tmp_path


def test_uncalled_helper_functions_of_an_imported_module_report_nothing(tmp_path):
    root = _crops(tmp_path)
    for entry in ("tools/crops.py", "yield_model.py"):
        lines = {line for kind, name, line in _alarms(root, entry) if name == "crops.py"}
        assert 8 not in lines and 33 not in lines, entry  # soil_components, sun_hours: imported, never called


def test_called_helper_function_still_reports_its_stacked_fit(tmp_path):
    root = _crops(tmp_path)
    for entry in ("tools/crops.py", "yield_model.py"):
        assert ("fit_on_test", "crops.py", 16) in _alarms(root, entry), entry  # rain_scaled is called


def test_dead_functions_names_only_what_nothing_calls(tmp_path):
    root = _crops(tmp_path)
    assert _dead(root / "tools/crops.py") == frozenset({("soil_components", 6), ("sun_hours", 22)})


def test_helper_module_nobody_imports_keeps_every_function(tmp_path):
    script = YIELD_SCRIPT.replace("from tools.crops import soil_components, rain_scaled, sun_hours\n", "")
    root = _crops(tmp_path, script)
    assert _dead(root / "tools/crops.py") == frozenset()
    assert ("fit_on_test", "crops.py", 8) in _alarms(root, "tools/crops.py")  # callers out of sight


def test_function_named_in_a_string_or_looked_up_is_kept(tmp_path):
    registry = YIELD_SCRIPT.replace("    fields, plots = rain_scaled(fields, plots)\n",
                                    "    steps = {'soil': 'soil_components'}\n"
                                    "    fields, plots = rain_scaled(fields, plots)\n")
    root = _crops(tmp_path, registry)
    assert ("soil_components", 6) not in _dead(root / "tools/crops.py")
    dynamic = YIELD_SCRIPT.replace("import pandas as pd\n", "import pandas as pd\nimport tools.crops as crops\n",
                                   1).replace("    fields, plots = rain_scaled(fields, plots)\n",
                                              "    for step in open('steps.txt').read().split():\n"
                                              "        fields, plots = getattr(crops, step)(fields, plots)\n")
    root2 = tmp_path / "two"
    _crops(root2, dynamic)
    assert _dead(root2 / "tools/crops.py") == frozenset()


def test_function_called_only_by_a_called_function_is_kept(tmp_path):
    chained = CROPS.replace("    return train, test\n\n\ndef rain_scaled",
                            "    return train, test\n\n\ndef rain_scaled_all(train, test):\n"
                            "    return soil_components(*rain_scaled(train, test))\n\n\ndef rain_scaled", 1)
    script = YIELD_SCRIPT.replace("rain_scaled(fields, plots)\n", "rain_scaled_all(fields, plots)\n").replace(
        "import soil_components, rain_scaled, sun_hours", "import rain_scaled_all")
    _write(tmp_path, {"README.md": "x\n", "tools/__init__.py": "", "tools/crops.py": chained, "yield_model.py": script})
    dead = {name for name, _ in _dead(tmp_path / "tools/crops.py")}
    assert dead == {"sun_hours"}
