"""A hostile or careless case.yaml is refused by `faultlib validate` (exit 2, file, line, field), before a run:
``requires`` names a distribution and a PEP 440 specifier, never a pip option or code."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from faultlib.cases import load_case
from faultlib.errors import CaseValidationError
from tests.conftest import cli, tiny_case_data, write_case


@pytest.mark.parametrize("packages, field, says", [
    ({"--index-url=http://example.invalid": ">=1"}, "requires.packages.--index-url=http://example.invalid",
     "is not a package (distribution) name"),
    ({"pyyaml": ">=5; __import__('os').system('id')"}, "requires.packages.pyyaml", "is not a PEP 440"),
    ({"pyyaml": "latest"}, "requires.packages.pyyaml", "is not a PEP 440"),
])
def test_requires_that_is_not_a_requirement_is_refused_with_its_field(tmp_path, packages, field, says):
    data = tiny_case_data()
    data["requires"]["packages"] = packages
    case_dir = write_case(tmp_path, data)
    with pytest.raises(CaseValidationError) as err:
        load_case(case_dir)
    [problem] = [p for p in err.value.problems if p.field == field]
    lines = (case_dir / "case.yaml").read_text().splitlines()
    assert says in problem.message and lines[problem.line - 2].strip() == "packages:"  # the entry's own line
    proc = cli("validate", str(case_dir), cwd=tmp_path)
    assert proc.returncode == 2 and field in proc.stderr and "Traceback" not in proc.stderr


def test_requires_python_must_be_a_specifier(tmp_path):
    data = tiny_case_data()
    data["requires"]["python"] = "three"
    with pytest.raises(CaseValidationError) as err:
        load_case(write_case(tmp_path, data))
    assert [p.field for p in err.value.problems] == ["requires.python"]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.text(min_size=1, max_size=12), spec=st.text(max_size=12))
def test_any_requires_entry_loads_only_when_packaging_reads_it(tmp_path_factory, name, spec):
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.utils import InvalidName, canonicalize_name

    try:
        canonicalize_name(name, validate=True)
        SpecifierSet(spec)
        valid = True
    except (InvalidName, InvalidSpecifier):
        valid = False
    data = tiny_case_data()
    data["requires"]["packages"] = {name: spec}
    try:
        case_dir = write_case(tmp_path_factory.mktemp("c"), data)
    except UnicodeEncodeError:  # a lone surrogate cannot be written as UTF-8 at all
        return
    try:
        load_case(case_dir)
        loaded = True
    except CaseValidationError as exc:
        loaded = False
        assert all(p.path and p.line for p in exc.problems)
    except Exception as exc:  # noqa: BLE001 - the YAML reader's own refusals (control characters) are InputErrors
        from faultlib.errors import InputError

        assert isinstance(exc, InputError), exc
        return
    assert loaded == valid
