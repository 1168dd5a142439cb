"""faultlib.fingerprint.diff and known_changes on real fingerprints (collect()) changed the way environments change."""

from __future__ import annotations

import copy

import pytest

from faultlib.errors import InputError
from faultlib.fingerprint import KNOWN_CHANGES, collect, crosses, diff, findings, known_changes


@pytest.fixture
def now() -> dict:
    fp = collect()
    fp["packages"].setdefault("torch", "2.13.0")  # the diff logic does not need torch to be installed
    return fp


def changed(fp: dict, **packages) -> dict:
    out = copy.deepcopy(fp)
    for name, version in packages.items():
        if version is None:
            out["packages"].pop(name, None)
        else:
            out["packages"][name] = version
    return out


def test_identical_environments_differ_in_nothing(now):
    same = diff(now, copy.deepcopy(now))
    assert not same and same.packages == {} and not same.selects_all() and known_changes(same) == []
    assert same.to_json() == {"python": None, "torch_build": {}, "devices_changed": False, "packages": {},
                              "selects_all": False}


def test_one_changed_package_is_named_with_both_versions(now):
    old = changed(now, **{"scikit-learn": "1.3.2"})
    d = diff(old, now)
    assert d and d.packages == {"scikit-learn": ("1.3.2", now["packages"]["scikit-learn"])}
    assert not d.selects_all() and d.python is None and d.torch_build == {} and not d.devices_changed
    assert d.changed_among(["scikit_learn", "torch", "numpy"]) == {"scikit-learn": d.packages["scikit-learn"]}
    assert d.changed_among(["Scikit.Learn"]) == d.changed_among(["scikit-learn"])
    assert d.to_json()["packages"] == {"scikit-learn": ["1.3.2", now["packages"]["scikit-learn"]]}


def test_installed_and_removed_packages_show_as_none(now):
    old = changed(now, **{"brand-new-pkg": None, "gone-pkg": "1.0"})
    new = changed(now, **{"brand-new-pkg": "0.1"})
    d = diff(old, new)
    assert d.packages == {"brand-new-pkg": (None, "0.1"), "gone-pkg": ("1.0", None)}


def test_a_python_change_selects_every_case(now):
    old = copy.deepcopy(now)
    old["python"] = "3.10.14"
    d = diff(old, now)
    assert d.python == ("3.10.14", now["python"]) and d.selects_all() and d.packages == {}


def test_a_cuda_or_torch_build_change_selects_every_case(now):
    old = copy.deepcopy(now)
    old["torch"] = {"version": "2.13.0+cu126", "cuda": "12.6", "cudnn": "91002", "debug": False,
                    "config": "x", "parallel": "y"}
    new = copy.deepcopy(old)
    new["torch"]["cuda"], new["torch"]["cudnn"] = "12.8", "91100"
    d = diff(old, new)
    assert d.torch_build == {"cuda": ("12.6", "12.8"), "cudnn": ("91002", "91100")} and d.selects_all()
    new = copy.deepcopy(old)
    new["torch"]["config"] = "another build text"  # config texts are recorded, not compared
    assert not diff(old, new)
    new["devices"] = [*old["devices"], {"type": "cuda", "index": 0, "name": "H100", "capability": "9.0",
                                        "memory_bytes": 85 << 30}]
    d = diff(old, new)
    assert d.devices_changed and not d.selects_all() and bool(d)


def test_crossing_torch_2_6_names_the_weights_only_change(now):
    d = diff(changed(now, torch="2.5.1+cpu"), changed(now, torch="2.13.0+cpu"))
    assert d.selects_all()
    crossed = known_changes(d)
    assert [(c.package, c.version) for c in crossed] == [("torch", "2.6.0")]
    assert "weights_only" in crossed[0].summary and crossed[0].reference.startswith("https://")
    [finding] = findings(d)
    assert (finding.detector, finding.kind, finding.severity.value) == ("fingerprint", "known_change_crossed", "warning")
    assert finding.evidence["old"] == "2.5.1+cpu" and finding.evidence["direction"] == "upgrade"
    # a downgrade crosses it too; staying on either side does not; an install crosses nothing
    assert known_changes(diff(changed(now, torch="2.6.0"), changed(now, torch="2.5.1"))) == crossed
    assert known_changes(diff(changed(now, torch="2.6.0"), changed(now, torch="2.13.0"))) == []
    assert known_changes(diff(changed(now, torch="2.4.0"), changed(now, torch="2.5.1"))) == []
    assert known_changes(diff(changed(now, torch=None), changed(now, torch="2.13.0"))) == []
    assert known_changes(diff(changed(now, torch="not-a-version"), changed(now, torch="2.13.0"))) == []


def test_several_changes_in_catalog_order_and_filtered_by_package(now):
    old = changed(now, torch="2.4.1", numpy="1.23.5", pandas="1.5.3", **{"scikit-learn": "1.2.2"})
    new = changed(now, torch="2.7.0", numpy="2.1.0", pandas="2.2.3", **{"scikit-learn": "1.5.0"})
    crossed = known_changes(diff(old, new))
    assert [(c.package, c.version) for c in crossed] == [
        ("torch", "2.6.0"), ("numpy", "1.24.0"), ("numpy", "2.0.0"), ("scikit-learn", "1.4.0"), ("pandas", "2.0.0")]
    assert [f.evidence["version"] for f in findings(diff(old, new), packages=["NumPy"])] == ["1.24.0", "2.0.0"]
    assert all(c.reference.startswith("https://") and c.summary for c in KNOWN_CHANGES)


def test_crosses_compares_versions_not_strings():
    change = KNOWN_CHANGES[0]
    assert crosses(change, "2.5.1", "2.10.0") and not crosses(change, "2.10.0", "2.11.0")
    assert crosses(change, "2.6.0", "2.5.1") and not crosses(change, "2.6.0rc1", "2.5.1")


def test_legacy_records_compare_packages_only(now):
    legacy = {"python": now["python"], "implementation": "cpython", "platform": now["platform"],
              "machine": now["machine"], "packages": {"torch": "2.5.1", "Scikit_Learn": "1.3.0", "onnx": None}}
    d = diff(legacy, now)
    assert d.torch_build == {} and not d.devices_changed  # never recorded: unknown, not changed
    assert d.packages["torch"] == ("2.5.1", now["packages"]["torch"]) and d.selects_all()
    assert d.packages["scikit-learn"][0] == "1.3.0"
    assert "onnx" not in d.packages or d.packages["onnx"][0] is None


def test_diff_refuses_what_is_not_a_fingerprint(now):
    with pytest.raises(InputError, match="version must be a non-empty string") as info:
        diff(changed(now, torch=2.6), now)
    assert info.value.field == "old.packages.torch"
    with pytest.raises(InputError, match="not a fingerprint") as info:
        diff(now, ["python", "packages"])
    assert info.value.field == "new"
