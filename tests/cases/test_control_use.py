"""The assertion suite notes each test's use of the control (faultlib.cases.fixture), and the suite's
`--no-control` re-check (tests.conftest.assert_passes_without_control) runs again only the tests whose path
depends on whether the control ran, on a tiny torch-free case."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from faultlib.archive import FileArchive
from faultlib.cases import load_case
from faultlib.runner import Runner
from tests.conftest import TINY_TEST, assert_passes_without_control, control_uses, tiny_case_data, write_case

# steps_recorded reads the control; always_fails_when_asked uses neither; the two below ask whether it ran (the
# first fails without the control when the case's params say it needs it: what the re-check must catch)
ASKING = TINY_TEST + '''
def test_reference_is_the_control_or_the_steps_before(evidence, case_params):
    assert evidence.has_control or not case_params.get("needs_control"), "this test cannot do without the control"
    reference = evidence.control if evidence.has_control else evidence.faulted
    assert len(reference.steps()) == 5

def test_every_phase_ran_its_steps(evidence):
    assert all(len(phase.steps()) == 5 for phase in evidence.phases)
'''
EXTRA = [{"id": "reference", "when": "after", "test": "test_reference_is_the_control_or_the_steps_before",
          "description": "d"},
         {"id": "every_phase", "when": "after", "test": "test_every_phase_ran_its_steps", "description": "d"}]


def test_uses_of_the_control_are_noted_and_only_tests_that_asked_whether_it_ran_are_checked_again(tmp_path):
    data = tiny_case_data()
    data["assertions"] += EXTRA
    case_dir = write_case(tmp_path / "cases", data, test=ASKING)
    archive = FileArchive(tmp_path / "archive")
    run = Runner(archive).run(load_case(case_dir))
    run_dir = archive.root / run.case["id"] / run.run_id
    record = {**json.loads((run_dir / "run.json").read_text()), "archive_uri": f"file://{run_dir}"}
    assert record["verdict"] == "passed", f'{record["assertions"]}'
    assert control_uses(run_dir) == {
        "test_steps_recorded": {"read"}, "test_control_silent": {"read"}, "test_always_fails_when_asked": set(),
        "test_reference_is_the_control_or_the_steps_before": {"asked", "read"},
        "test_every_phase_ran_its_steps": {"asked"}}

    assert_passes_without_control(case_dir, record, tmp_path)
    ran = [tc.get("name") for tc in ET.parse(tmp_path / "no-control-junit.xml").getroot().iter("testcase")]
    assert sorted(ran) == ["test_every_phase_ran_its_steps", "test_reference_is_the_control_or_the_steps_before"]

    # the same evidence, with a test that cannot do without the control: the re-check fails
    data["repro"]["params"]["needs_control"] = True
    write_case(tmp_path / "cases", data, test=ASKING)
    with pytest.raises(AssertionError, match="cannot do without the control"):
        assert_passes_without_control(case_dir, record, tmp_path)
