"""The structure Jenkins' JUnit schema (xunit-plugin ``junit-10.xsd``) allows, as checks, plus what GitHub and
GitLab readers rely on: every count an integer that adds up, every time a non-negative decimal.

The rules, from the schema: ``testsuites`` holds only ``testsuite`` elements and takes the attributes name,
time, tests, failures, disabled, errors; ``testsuite`` requires ``tests`` and holds testsuite, properties,
testcase, system-out, system-err; ``testcase`` requires ``name`` and holds skipped, error, failure,
system-out, system-err; failure/error/skipped take only message and type; property requires name and value.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

ATTRIBUTES = {
    "testsuites": {"name", "time", "tests", "failures", "disabled", "errors"},
    "testsuite": {"name", "tests", "failures", "errors", "time", "disabled", "skipped", "skips", "timestamp",
                  "hostname", "id", "package", "assertions", "file", "skip", "log", "url"},
    "testcase": {"name", "assertions", "time", "timestamp", "classname", "status", "class", "file", "line", "log",
                 "group", "url"},
    "failure": {"type", "message"}, "error": {"type", "message"}, "skipped": {"type", "message"},
    "properties": set(), "property": {"name", "value"}, "system-out": set(), "system-err": set(),
}
REQUIRED = {"testsuite": {"tests"}, "testcase": {"name"}, "property": {"name", "value"}}
CHILDREN = {
    "testsuites": {"testsuite"},
    "testsuite": {"testsuite", "properties", "testcase", "system-out", "system-err"},
    "testcase": {"skipped", "error", "failure", "system-out", "system-err"},
    "properties": {"property"}, "property": set(), "failure": set(), "error": set(), "skipped": set(),
    "system-out": set(), "system-err": set(),
}
DECIMAL = re.compile(r"^\d+(\.\d+)?$")
COUNT = re.compile(r"^\d+$")


def check_jenkins_shape(root: ET.Element) -> dict[str, int]:
    """Assert ``root`` (a ``<testsuites>``) has the shape above and its counts add up; return the totals."""
    assert root.tag == "testsuites", root.tag
    for element in root.iter():
        assert element.tag in ATTRIBUTES, f"unknown element <{element.tag}>"
        extra = set(element.attrib) - ATTRIBUTES[element.tag]
        assert not extra, f"<{element.tag}> has attributes the schema does not allow: {extra}"
        missing = REQUIRED.get(element.tag, set()) - set(element.attrib)
        assert not missing, f"<{element.tag}> lacks required attributes {missing}"
        for child in element:
            assert child.tag in CHILDREN[element.tag], f"<{child.tag}> inside <{element.tag}>"
        for key in ("tests", "failures", "errors", "skipped", "disabled"):
            if key in element.attrib:
                assert COUNT.match(element.get(key)), f"<{element.tag} {key}={element.get(key)!r}> is not a count"
        if "time" in element.attrib:
            assert DECIMAL.match(element.get("time")), f"<{element.tag} time={element.get('time')!r}>"
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for suite in root.findall("testsuite"):
        cases = suite.findall("testcase")
        counted = {"tests": len(cases),
                   "failures": sum(1 for c in cases if c.find("failure") is not None),
                   "errors": sum(1 for c in cases if c.find("error") is not None),
                   "skipped": sum(1 for c in cases if c.find("skipped") is not None)}
        for key, value in counted.items():
            assert int(suite.get(key, 0)) == value, f"suite {suite.get('name')}: {key}={suite.get(key)} but {value}"
            totals[key] += value
        for case in cases:
            assert len([c for c in case if c.tag in ("failure", "error", "skipped")]) <= 1, \
                f"{case.get('name')} has more than one outcome"
    for key in ("tests", "failures", "errors"):
        assert int(root.get(key)) == totals[key], f"testsuites {key}={root.get(key)} but the suites hold {totals[key]}"
    return totals
