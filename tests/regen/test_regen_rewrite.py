"""The case.yaml update of a re-verified case: only ``version`` and ``verified_with`` change, byte for byte."""

from __future__ import annotations

import difflib
import os
import platform
from importlib import metadata

import pytest

from faultlib.cases import load_case
from faultlib.errors import CaseError
from faultlib.readers import load_yaml
from faultlib.regen.rewrite import bump_patch, render_update, update_case, verified_versions
from tests.conftest import cli


def _current(fp_names):
    """The installed versions, as the current fingerprint holds them (straight from importlib.metadata)."""
    return {"python": platform.python_version(), "packages": {n: metadata.version(n) for n in fp_names}}


def _changed_lines(before: str, after: str) -> tuple[list[str], list[str]]:
    removed, added = [], []
    for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0):
        if line.startswith(("---", "+++", "@@")):
            continue
        (removed if line.startswith("-") else added).append(line[1:])
    return removed, added


@pytest.mark.parametrize(("version", "bumped"), [("1.0.0", "1.0.1"), ("0.1.9", "0.1.10"), ("2.3.4-rc.1", "2.3.4"),
                                                 ("1.2.3+build.7", "1.2.4"), ("10.20.30", "10.20.31")])
def test_bump_patch_follows_semver(version, bumped):
    assert bump_patch(version) == bumped


@pytest.mark.parametrize("bad", ["1.0", "01.0.0", "v1.0.0", "1.0.0.0", ""])
def test_bump_patch_refuses_what_is_not_semver(bad):
    with pytest.raises(ValueError, match="MAJOR.MINOR.PATCH"):
        bump_patch(bad)


def test_verified_versions_takes_python_and_each_required_package_by_canonical_name():
    fp = {"python": "3.12.1", "packages": {"scikit-learn": "1.5.0", "pyyaml": "6.0.2"}}
    assert verified_versions(["scikit_learn", "PyYAML", "not-installed"], fp) == {
        "python": "3.12.1", "scikit_learn": "1.5.0", "PyYAML": "6.0.2"}


def test_a_real_case_with_comments_keeps_every_other_byte(catalog):
    """downstream_timeout: a comment on a shim parameter, folded scalars, flow sequences and mappings."""
    case_dir = catalog("downstream_timeout") / "downstream_timeout"
    path = case_dir / "case.yaml"
    before = path.read_text()
    assert "# the feature service's responses" in before
    fp = _current(["scikit-learn", "aiohttp"])
    edit = update_case(case_dir, verified_versions(["scikit-learn", "aiohttp"], fp))
    after = path.read_text()
    assert after == edit.after
    removed, added = _changed_lines(before, after)
    old_version = load_yaml(before, path).data["version"]
    old_verified = load_yaml(before, path).data["verified_with"]
    assert removed[0] == f"version: {old_version}" and added[0] == f"version: {bump_patch(old_version)}"
    expected = {"python": fp["python"], "scikit-learn": fp["packages"]["scikit-learn"],
                "aiohttp": fp["packages"]["aiohttp"]}
    assert removed[1:] == [f'  {k}: "{old_verified[k]}"' for k in expected if old_verified[k] != expected[k]]
    assert added[1:] == [f'  {k}: "{v}"' for k, v in expected.items() if old_verified[k] != v]
    assert [line for line in before.splitlines() if "#" in line] == [line for line in after.splitlines() if "#" in line]
    assert cli("validate", str(case_dir), cwd=case_dir.parent).returncode == 0


def test_a_hand_wrapped_flow_mapping_and_null_stay_as_written(catalog):
    """id_time_misalignment wraps a long flow mapping by hand and spells `twin: null`: a ruamel re-dump would
    reflow both; the splice leaves them alone and appends the missing packages in the file's quoting."""
    case_dir = catalog("id_time_misalignment") / "id_time_misalignment"
    before = (case_dir / "case.yaml").read_text()
    required = list(load_case(case_dir).requires["packages"])
    edit = update_case(case_dir, verified_versions(required, _current(["pandas", "pyarrow", "scikit-learn", "numpy"])))
    after = edit.after
    assert "      params: {source: diagnoses, column: sampled_at, local_zone: Europe/Berlin, offset_ms: 1500,\n" \
           "               where: {column: site, equals: B}}\n" in after
    assert "    twin: null\n" in after
    removed, added = _changed_lines(before, after)
    assert removed[0].split(":")[0] == "version"
    assert all(a.startswith("  ") and a.endswith('"') for a in added[1:])
    assert load_yaml(after, "x").data["verified_with"] == {**load_yaml(before, "x").data["verified_with"],
                                                           **{k: v for k, v in edit.verified_with.items()}}


def test_missing_verified_with_is_appended_in_block_style(catalog):
    case_dir = catalog("gpu_memory_fragmentation") / "gpu_memory_fragmentation"
    text = (case_dir / "case.yaml").read_text()  # a real case.yaml; its verified_with (the last block) taken off
    before = text[:text.index("\nverified_with:") + 1] if "\nverified_with:" in text else text
    assert "\nverified_with:" not in before and before.endswith("\n")
    (case_dir / "case.yaml").write_text(before)
    edit = render_update(case_dir / "case.yaml", before, {"python": "3.11.7", "torch": "2.13.0"})
    version = load_yaml(before, "case.yaml").data["version"]
    assert edit.after == before.replace(f"version: {version}\n", f"version: {bump_patch(version)}\n") + \
        'verified_with:\n  python: "3.11.7"\n  torch: "2.13.0"\n'


def test_flow_style_and_quoting_of_verified_with_are_kept(tmp_path):
    text = ("id: x  # the id\nversion: '1.4.2'   # keep me\n"
            "verified_with: {python: 3.11.7, 'torch': '2.5.1'}  # flow\nother: [a, b]\n")
    edit = render_update(tmp_path / "case.yaml", text, {"python": "3.12.0", "torch": "2.6.0", "numpy": "2.0"})
    assert edit.after == ("id: x  # the id\nversion: '1.4.3'   # keep me\n"
                          "verified_with: {python: 3.12.0, 'torch': '2.6.0', numpy: \"2.0\"}  # flow\nother: [a, b]\n")


def test_single_quoted_block_entries_and_comments_inside_verified_with(tmp_path):
    text = ("version: 1.0.0\nverified_with:\n  # last passed on\n  python: '3.11.7'  # interpreter\n"
            "  scikit_learn: '1.3.0'\n# trailing comment\n")
    edit = render_update(tmp_path / "case.yaml", text, {"python": "3.11.7", "scikit-learn": "1.5.0",
                                                        "numpy": "1.26.4"})
    assert edit.after == ("version: 1.0.1\nverified_with:\n  # last passed on\n  python: '3.11.7'  # interpreter\n"
                          "  scikit_learn: '1.5.0'\n  numpy: '1.26.4'\n# trailing comment\n")


def test_the_update_must_still_be_a_valid_case(tmp_path):
    with pytest.raises(CaseError, match="MAJOR.MINOR.PATCH"):
        render_update(tmp_path / "case.yaml", "version: '1.0'\n", {"python": "3.11.7"})
    with pytest.raises(CaseError, match="verified_with is not a mapping"):
        render_update(tmp_path / "case.yaml", "version: 1.0.0\nverified_with: [a]\n", {"python": "3.11.7"})


def test_a_case_yaml_edited_while_the_case_ran_is_not_overwritten(catalog):
    case_dir = catalog("scaler_leakage") / "scaler_leakage"
    path = case_dir / "case.yaml"
    selected_text = path.read_text()
    edited = selected_text.replace("title:", "title: (edited)", 1)
    path.write_text(edited)
    with pytest.raises(CaseError, match="changed while the case ran"):
        update_case(case_dir, {"python": "3.11.7"}, expected_text=selected_text)
    assert path.read_text() == edited


def test_the_write_is_atomic_and_keeps_the_mode(catalog):
    case_dir = catalog("scaler_leakage") / "scaler_leakage"
    path = case_dir / "case.yaml"
    os.chmod(path, 0o640)
    version = load_case(case_dir).version
    update_case(case_dir, {"python": "3.11.7"})
    assert os.stat(path).st_mode & 0o777 == 0o640
    assert [p.name for p in case_dir.iterdir() if p.name.startswith(".")] == []
    assert load_case(case_dir).version == bump_patch(version)
