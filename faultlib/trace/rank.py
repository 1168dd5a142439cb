"""One rank of a world under ``faultlib trace -- torchrun ...``: ``python -m faultlib.trace.rank SCRIPT ARGS...``,
started by torchrun in every worker (``--module``), with torchrun's ``RANK`` in its environment.

Environment (set by :mod:`faultlib.trace.world`): ``FAULTLIB_TRACE_RESULT_DIR`` (this rank writes
``rank<RANK>.json`` there, the result file of :mod:`faultlib.trace.boot`), ``FAULTLIB_TRACE_PLAN`` (JSON, the
replay: ``{"<rank>": {"arm_at", "trip_step", "dump"}}`` for the rank to arm; the other ranks watch).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    rank = os.environ.get("RANK", "0")
    os.environ["FAULTLIB_TRACE_RESULT"] = str(Path(os.environ["FAULTLIB_TRACE_RESULT_DIR"]) / f"rank{rank}.json")
    os.environ["FAULTLIB_TRACE_WORLD"] = "1"
    plan = json.loads(os.environ.get("FAULTLIB_TRACE_PLAN") or "{}").get(rank) or {}
    for key in ("FAULTLIB_TRACE_ARM_AT", "FAULTLIB_TRACE_TRIP_STEP", "FAULTLIB_TRACE_DUMP"):
        os.environ.pop(key, None)  # only the planned rank is armed
    if plan:
        os.environ.update(FAULTLIB_TRACE_ARM_AT=str(plan["arm_at"] or 0), FAULTLIB_TRACE_TRIP_STEP=str(plan["trip_step"]),
                          FAULTLIB_TRACE_DUMP=plan["dump"])
    from faultlib.trace.launch import main as boot

    return boot(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
