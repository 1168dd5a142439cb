"""Which cases a fingerprint diff selects, on real catalog cases and the real current fingerprint."""

from __future__ import annotations

import re

import pytest

from faultlib.fingerprint import collect, diff
from faultlib.regen.select import Reason, required_packages, select
from faultlib.regress.plan import plan
from tests.regen.conftest import FAST_CASES, older


@pytest.fixture
def fast_catalog(catalog):
    return plan(catalog(*FAST_CASES))


def _changed(**edits) -> tuple[dict, dict]:
    new = collect()
    old = collect()
    for name, value in edits.items():
        if name == "python":
            old["python"] = value
        else:
            old["packages"][name] = value
    return old, new


def test_one_changed_package_selects_exactly_the_cases_requiring_it(fast_catalog):
    old, new = _changed(pyyaml=older(collect()["packages"]["pyyaml"]))
    selection = select(fast_catalog, diff(old, new))
    assert [s.id for s in selection.cases] == ["feature_config_diff", "label_mapping_drift"]
    for selected in selection.cases:
        assert selected.reasons == (Reason("package", "pyyaml", old["packages"]["pyyaml"], new["packages"]["pyyaml"]),)
    assert selection.catalog_size == 3
    narrowed = selection.plan(fast_catalog)
    assert [p.id for p in narrowed.cases] == ["feature_config_diff", "label_mapping_drift"] and narrowed.selected == 2


def test_names_are_compared_canonicalised(catalog):
    """A case may spell a requirement `PyYAML` or `scikit_learn`; fingerprints hold canonical names."""
    root = catalog("label_mapping_drift", "scaler_leakage")
    path = root / "label_mapping_drift" / "case.yaml"
    path.write_text(path.read_text().replace("    pyyaml: \">=6\"", "    PyYAML: \">=6\""))
    loaded = plan(root)
    assert "PyYAML" in loaded.cases[0].case.requires["packages"]
    old, new = _changed(pyyaml=older(collect()["packages"]["pyyaml"]))
    found = select(loaded, diff(old, new))
    assert [s.id for s in found.cases] == ["label_mapping_drift"]
    assert found.cases[0].reasons[0].name == "pyyaml"


def test_a_removed_or_added_package_counts_as_changed(fast_catalog):
    old, new = _changed()
    del old["packages"]["numpy"]
    selection = select(fast_catalog, diff(old, new))
    assert [s.id for s in selection.cases] == ["feature_config_diff", "label_mapping_drift", "scaler_leakage"]
    reason = selection.cases[0].reasons[0]
    assert reason.old is None and str(reason).startswith("numpy absent ->")


def test_python_or_torch_select_every_case(fast_catalog):
    old, new = _changed(python="3.10.14")
    selection = select(fast_catalog, diff(old, new))
    assert [s.id for s in selection.cases] == sorted(FAST_CASES)
    assert all(s.reasons == (Reason("python", "python", "3.10.14", new["python"]),) for s in selection.cases)
    assert "(selects every case)" in str(selection.cases[0].reasons[0])
    if new.get("torch"):
        old, new = _changed(torch="2.5.1")
        old["torch"]["version"] = "2.5.1"
        selection = select(fast_catalog, diff(old, new))
        assert len(selection.cases) == 3 and selection.cases[0].reasons[0].kind == "torch"


def test_an_unchanged_environment_selects_nothing(fast_catalog):
    fp = collect()
    assert select(fast_catalog, diff(fp, collect())).cases == ()


def test_an_invalid_case_is_selected_when_its_raw_requires_name_a_changed_package(catalog):
    root = catalog("label_mapping_drift", "scaler_leakage")
    path = root / "label_mapping_drift" / "case.yaml"
    path.write_text(re.sub(r"(?m)^severity: \w+$", "severity: dire", path.read_text(), count=1))
    loaded = plan(root)
    assert loaded.cases[0].case is None and required_packages(loaded.cases[0]) == ["scikit-learn", "numpy", "pyyaml"]
    old, new = _changed(pyyaml=older(collect()["packages"]["pyyaml"]))
    assert [s.id for s in select(loaded, diff(old, new)).cases] == ["label_mapping_drift"]
