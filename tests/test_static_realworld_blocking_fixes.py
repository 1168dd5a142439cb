"""benchmarks/static_realworld_blocking.py's credit of a documented fix: the ``async def`` line of every handler a
finding names as an entry counts (a fix that turns several handlers into plain ``def``), and no other ``async def``.

The benchmark itself reads public checkouts and runs by hand; here a small service written for the test stands in."""

from __future__ import annotations

import importlib.util
import sys
import textwrap

from tests.conftest import REPO

_spec = importlib.util.spec_from_file_location("static_realworld_blocking",
                                               REPO / "benchmarks" / "static_realworld_blocking.py")
static_realworld_blocking = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("static_realworld_blocking", static_realworld_blocking)
_spec.loader.exec_module(static_realworld_blocking)

_SERVICE = """\
import time


def pause():
    time.sleep(1)


async def first():
    pause()


async def second():
    pause()


async def third():
    return 3
"""


def test_every_entry_a_finding_names_has_its_async_def_line_credited(tmp_path):
    root = tmp_path / "svc"
    root.mkdir()
    (root / "app.py").write_text(textwrap.dedent(_SERVICE))
    found, meta = static_realworld_blocking.run_tool(root, ".")
    assert ("app.py", 5) in found
    via = meta["via"]
    assert ("app.py", 8) in via and ("app.py", 12) in via  # async def first, async def second
    assert ("app.py", 16) not in via  # async def third reaches no blocker
