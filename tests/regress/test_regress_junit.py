"""JUnit XML of a regression: one testcase per assertion named CASE::ASSERTION, the shape Jenkins' schema
allows with counts that add up, messages from the evidence, and the shard merge entry point."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from faultlib.regress import junit
from faultlib.regress.results import AssertionResult, AssertionStatus, CaseResult, CaseVerdict, RegressResult
from tests.regress.junit_shape import check_jenkins_shape

PASS, FAIL, ERR, SKIP = (AssertionStatus.PASSED, AssertionStatus.FAILED, AssertionStatus.ERROR,
                         AssertionStatus.SKIPPED)


def _result() -> RegressResult:
    return RegressResult(shard="1/3", selected=9, cases=[
        CaseResult("fine_case", CaseVerdict.PASSED, fault_class="infra.tiny", run_id="r1",
                   archive_uri="file:///runs/fine_case/r1", duration_s=2.5,
                   assertions=[AssertionResult("a", PASS, "before", time_s=0.5), AssertionResult("b", PASS, "after")]),
        CaseResult("bad_case", CaseVerdict.FAILED, assertions=[
            AssertionResult("a", PASS), AssertionResult("b", FAIL, message="AssertionError: 3 != 4\x1b[31m\x00",
                                                        detail="Traceback ...\n  assert 3 == 4")]),
        CaseResult("crash_case", CaseVerdict.ERROR, error="faulted phase exited with code 1", assertions=[
            AssertionResult(i, ERR, message="faulted phase exited with code 1", detail="RuntimeError: boom")
            for i in ("a", "b", "c")]),
        CaseResult("broken_case", CaseVerdict.INVALID, assertions=[
            AssertionResult("case", FAIL, message="invalid case: case.yaml:3: bogus: unknown key")]),
        CaseResult("gpu_case", CaseVerdict.SKIPPED, assertions=[AssertionResult("a", SKIP, message="needs CUDA")]),
        CaseResult("later_case", CaseVerdict.NOT_RUN, assertions=[AssertionResult("a", ERR, message="not run")]),
    ])


def test_one_testcase_per_assertion_in_the_jenkins_shape():
    root = junit.build(_result())
    totals = check_jenkins_shape(root)
    assert totals == {"tests": 10, "failures": 2, "errors": 4, "skipped": 1}
    names = [(tc.get("classname"), tc.get("name")) for tc in root.iter("testcase")]
    assert names[:3] == [("fine_case", "fine_case::a"), ("fine_case", "fine_case::b"), ("bad_case", "bad_case::a")]
    assert ("broken_case", "broken_case::case") in names
    assert [s.get("name") for s in root] == ["fine_case", "bad_case", "crash_case", "broken_case", "gpu_case",
                                             "later_case"]
    assert [s.get("id") for s in root] == [str(i) for i in range(6)]


def test_messages_and_details_reach_the_xml_without_illegal_characters(tmp_path):
    path = junit.write(tmp_path / "out" / "junit.xml", _result())
    root = ET.parse(path).getroot()  # parses: control characters were replaced
    failure = root.find("testsuite[@name='bad_case']/testcase[@name='bad_case::b']/failure")
    assert failure.get("message").startswith("AssertionError: 3 != 4") and "\x1b" not in failure.get("message")
    assert "assert 3 == 4" in failure.text and failure.get("type") == "AssertionError"
    errors = root.findall("testsuite[@name='crash_case']/testcase/error")
    assert len(errors) == 3 and all(e.get("message") == "faulted phase exited with code 1" for e in errors)
    assert all("RuntimeError: boom" in e.text for e in errors)
    assert root.find("testsuite[@name='gpu_case']/testcase/skipped").get("message") == "needs CUDA"
    props = {p.get("name"): p.get("value") for p in root.find("testsuite[@name='fine_case']/properties")}
    assert props == {"verdict": "passed", "fault_class": "infra.tiny", "run_id": "r1",
                     "archive_uri": "file:///runs/fine_case/r1"}


def test_merge_recomputes_totals_and_summarises(tmp_path):
    first = RegressResult(cases=_result().cases[:2], shard="0/2")
    second = RegressResult(cases=_result().cases[2:], shard="1/2")
    junit.write(tmp_path / "junit-0.xml", first)
    junit.write(tmp_path / "junit-1.xml", second)
    merged = junit.merge([tmp_path / "junit-0.xml", tmp_path / "junit-1.xml"])
    assert check_jenkins_shape(merged) == check_jenkins_shape(junit.build(_result()))
    assert [s.get("id") for s in merged] == [str(i) for i in range(6)]
    text = junit.summary_markdown(merged)
    assert "**2 of 6 cases passed**" in text and "| bad_case | failed | `bad_case::b` | AssertionError: 3 != 4" in text
    assert "| broken_case | invalid | `broken_case::case` |" in text and "fine_case" not in text


def test_merge_command_writes_the_file_and_the_step_summary(tmp_path):
    junit.write(tmp_path / "junit-0.xml", _result())
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    proc = subprocess.run([sys.executable, "-m", "faultlib.regress.junit", "merge", "--out", str(tmp_path / "all.xml"),
                           str(tmp_path / "junit-0.xml")], env={"GITHUB_STEP_SUMMARY": str(summary), "PATH": ""},
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert check_jenkins_shape(ET.parse(tmp_path / "all.xml").getroot())["tests"] == 10
    assert summary.read_text().startswith("earlier step\n## faultlib regress"), "appended, as GitHub expects"
    (tmp_path / "bad.xml").write_text("<html/>")
    proc = subprocess.run([sys.executable, "-m", "faultlib.regress.junit", "merge", "--out", str(tmp_path / "x.xml"),
                           str(tmp_path / "bad.xml"), str(tmp_path / "missing.xml")], capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 2 and "error:" in proc.stderr and not (tmp_path / "x.xml").exists()


@pytest.mark.parametrize("content, phrase", [("<testsuites><testsuite", "not XML"), ("<html/>", "root element")])
def test_merge_refuses_what_is_not_junit(tmp_path, content, phrase):
    (tmp_path / "in.xml").write_text(content)
    with pytest.raises(junit.MergeError, match=phrase):
        junit.merge([tmp_path / "in.xml"])
