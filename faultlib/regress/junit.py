"""JUnit XML for a regression, as GitHub (test-reporter actions), GitLab and Jenkins read it.

Shape (the subset of Jenkins' ``junit-10.xsd`` that all three read)::

    <testsuites name="faultlib regress" tests= failures= errors= time=>
      <testsuite name=CASE_ID tests= failures= errors= skipped= time= timestamp= hostname= id=>
        <properties><property name="verdict" value=.../> (run_id, archive_uri, fault_class)</properties>
        <testcase classname=CASE_ID name="CASE_ID::ASSERTION_ID" time=>
          <failure|error|skipped message=ONE_LINE type=...>DETAIL</failure|error|skipped>
        </testcase>
      </testsuite>
    </testsuites>

One testcase per assertion of a case; a case that does not load is one testcase ``CASE_ID::case``
(a failure), and a run whose verdict is not explained by any assertion (unreadable evidence) gets
a ``CASE_ID::run`` error, so the file never looks greener than the exit code.

``python -m faultlib.regress.junit merge --out ALL.xml [--summary FILE] SHARD.xml...`` merges the
shards' files into one (totals recomputed) and writes a Markdown summary (to ``--summary``, default
``$GITHUB_STEP_SUMMARY`` when set). Exit code: 0, or 2 when an input is missing or is not JUnit XML.
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from faultlib.errors import InputError
from faultlib.outputs import OutputFile, output_file
from faultlib.regress.results import AssertionStatus, CaseResult, RegressResult
from faultlib.text import printable

SUITES_NAME = "faultlib regress"
_ILLEGAL_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
MERGE_LIMIT_BYTES = 256 << 20


def xml_text(text: str | None) -> str:
    """``text`` without the characters XML 1.0 cannot hold (control characters other than tab and
    newline, lone surrogates), which a repro's message may contain."""
    text = (text or "").encode("utf-8", errors="replace").decode("utf-8")
    return _ILLEGAL_XML.sub("\ufffd", text)


def _one_line(text: str, limit: int = 500) -> str:
    line = " ".join(xml_text(text).split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def case_suite(case: CaseResult, index: int, *, hostname: str = "") -> ET.Element:
    """The ``<testsuite>`` of one case (see the module docstring)."""
    counts = {"failures": 0, "errors": 0, "skipped": 0}
    suite = ET.Element("testsuite", name=xml_text(case.id))
    props = ET.SubElement(suite, "properties")
    for key, value in (("verdict", case.verdict.value), ("fault_class", case.fault_class), ("run_id", case.run_id),
                       ("archive_uri", case.archive_uri)):
        if value:
            ET.SubElement(props, "property", name=key, value=xml_text(value))
    total = 0.0
    for a in case.assertions:
        name = f"{case.id}::{a.id}"
        tc = ET.SubElement(suite, "testcase", classname=xml_text(case.id), name=xml_text(name), time=f"{a.time_s:.3f}")
        total += a.time_s
        if a.status is AssertionStatus.PASSED:
            continue
        tag = {AssertionStatus.FAILED: "failure", AssertionStatus.ERROR: "error",
               AssertionStatus.SKIPPED: "skipped"}[a.status]
        counts[{"failure": "failures", "error": "errors", "skipped": "skipped"}[tag]] += 1
        child = ET.SubElement(tc, tag, message=_one_line(a.message or a.status.value))
        if tag != "skipped":
            child.set("type", "AssertionError" if tag == "failure" else case.verdict.value)
        detail = xml_text(a.detail or a.message)
        if detail:
            child.text = detail
    suite.set("tests", str(len(case.assertions)))
    for key, value in counts.items():
        suite.set(key, str(value))
    suite.set("time", f"{max(total, case.duration_s):.3f}")
    if case.record is not None:
        suite.set("timestamp", case.record.started_at)
    if hostname:
        suite.set("hostname", hostname)
    suite.set("id", str(index))
    return suite


def _suites(suites: list[ET.Element], name: str = SUITES_NAME) -> ET.Element:
    root = ET.Element("testsuites", name=name)
    totals = {"tests": 0, "failures": 0, "errors": 0}
    seconds = 0.0
    for suite in suites:
        root.append(suite)
        for key in totals:
            totals[key] += int(suite.get(key) or 0)
        seconds += float(suite.get("time") or 0.0)
    for key, value in totals.items():
        root.set(key, str(value))
    root.set("time", f"{seconds:.3f}")
    return root


def build(result: RegressResult) -> ET.Element:
    """The ``<testsuites>`` element of a regression: one ``<testsuite>`` per case, in plan order."""
    host = socket.gethostname()
    return _suites([case_suite(c, i, hostname=host) for i, c in enumerate(result.cases)],
                   name=f"{SUITES_NAME} {result.shard}")


def _write(root: ET.Element, target: OutputFile) -> Path:
    ET.indent(root)
    target.write_bytes(ET.tostring(root, encoding="utf-8", xml_declaration=True))
    return target.path


def write(path: str | Path | OutputFile, result: RegressResult) -> Path:
    """Write the regression's JUnit XML to ``path`` (an :class:`~faultlib.outputs.OutputFile` checked when the
    command started, or a path checked now; parents created; a regular file replaced atomically, a FIFO or
    device written as a stream).

    Raises:
        InputError: the target cannot be written (a symbolic link, a directory, a read-only file...).
    """
    target = path if isinstance(path, OutputFile) else output_file(path, "--junit", parents=True)
    return _write(build(result), target)


class MergeError(ValueError):
    """An input of :func:`merge` is missing or is not JUnit XML (the message names it)."""


def merge(paths: list[Path]) -> ET.Element:
    """One ``<testsuites>`` holding every ``<testsuite>`` of ``paths``, totals recomputed.

    Args:
        paths: JUnit XML files whose root is ``<testsuites>`` or a single ``<testsuite>``.

    Raises:
        MergeError: a file is missing, too large, not XML, or has another root element.
    """
    suites = []
    for path in paths:
        try:
            if path.stat().st_size > MERGE_LIMIT_BYTES:
                raise MergeError(f"{path}: larger than {MERGE_LIMIT_BYTES >> 20} MiB")
            root = ET.fromstring(path.read_bytes())  # expat refuses entity-expansion bombs
        except OSError as exc:
            raise MergeError(f"{path}: cannot be read ({exc.strerror or exc})") from None
        except ET.ParseError as exc:
            raise MergeError(f"{path}: not XML ({exc})") from None
        if root.tag == "testsuite":
            suites.append(root)
        elif root.tag == "testsuites":
            suites.extend(s for s in root if s.tag == "testsuite")
        else:
            raise MergeError(f"{path}: the root element is <{root.tag}>, not <testsuites> or <testsuite>")
    for index, suite in enumerate(suites):
        suite.set("id", str(index))
    return _suites(suites)


def summary_markdown(root: ET.Element) -> str:
    """A Markdown summary of a ``<testsuites>`` element: totals, then every case that did not pass
    with its failing assertions (for ``$GITHUB_STEP_SUMMARY``)."""
    tests, failures, errors = (int(root.get(k) or 0) for k in ("tests", "failures", "errors"))
    skipped = sum(int(s.get("skipped") or 0) for s in root.iter("testsuite"))
    cases = list(root.iter("testsuite"))

    def verdict(suite: ET.Element) -> str:
        for prop in suite.iter("property"):
            if prop.get("name") == "verdict":
                return prop.get("value") or "?"
        return "failed" if int(suite.get("failures") or 0) + int(suite.get("errors") or 0) else "passed"

    bad = [s for s in cases if verdict(s) not in ("passed", "skipped")]
    lines = ["## faultlib regress", "",
             f"**{len(cases) - len(bad)} of {len(cases)} cases passed**; assertions: {tests} run, "
             f"{failures} failed, {errors} errors, {skipped} skipped.", ""]
    if bad:
        lines += ["| case | verdict | assertion | message |", "|---|---|---|---|"]
        for suite in bad:
            rows = [(tc.get("name", ""), child.get("message", "")) for tc in suite.iter("testcase")
                    for child in tc if child.tag in ("failure", "error")]
            for name, message in rows or [("", "")]:
                code = _cell(name).replace("\\`", "'")  # a code span: no backtick may end it early
                lines.append(f"| {_cell(suite.get('name', ''))} | {_cell(verdict(suite))} | `{code}` | "
                             f"{_cell(message)[:300]} |")
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    """``text`` as one Markdown table cell: one line, terminal controls escaped, ``|`` and backticks escaped."""
    return printable(" ".join(str(text).split()).replace("\\", "\\\\")).replace("|", "\\|").replace("`", "\\`")


def main(argv: list[str] | None = None) -> int:
    """``python -m faultlib.regress.junit merge --out FILE [--summary FILE] INPUT...``."""
    parser = argparse.ArgumentParser(prog="python -m faultlib.regress.junit",
                                     description="Merge the JUnit XML of regress shards into one file.")
    sub = parser.add_subparsers(dest="command", required=True)
    cmd = sub.add_parser("merge", help="merge shard files; write a Markdown summary")
    cmd.add_argument("inputs", nargs="+", type=Path, help="JUnit XML files of the shards")
    cmd.add_argument("--out", type=Path, required=True, help="the merged JUnit XML file")
    cmd.add_argument("--summary", type=Path, default=None,
                     help="append a Markdown summary here (default: $GITHUB_STEP_SUMMARY when set)")
    args = parser.parse_args(argv)
    summary = args.summary or (Path(os.environ["GITHUB_STEP_SUMMARY"]) if os.environ.get("GITHUB_STEP_SUMMARY")
                               else None)
    try:
        out = output_file(args.out, "--out", parents=True)  # before the work: a bad --out costs nothing
        target = output_file(summary, "--summary") if summary is not None else None
        root = merge(sorted(args.inputs))
        _write(root, out)
        text = summary_markdown(root)
        if target is not None:
            target.append_text(text)
    except (MergeError, InputError) as exc:
        print(f"error: {printable(str(exc))}", file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
