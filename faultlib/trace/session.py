"""Parent side of ``faultlib trace``: run the watch pass, then the locate pass, build the report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from faultlib.errors import FaultlibError


class ScriptError(FaultlibError):
    """The traced script is missing or not a Python file (exit 2)."""


@dataclass
class TraceReport:
    """What ``faultlib trace --json`` prints (DESIGN.md).

    Attributes:
        ok: no non-finite value was seen.
        first_nonfinite: ``{step, phase, module, op, file, line, tensor: {shape, dtype, nan, inf, ...}}`` or None.
        dump: path of the replay dump (``torch.load(path, weights_only=True)``) or None.
        script_exit: the script's own exit code (when it ended by itself).
        tripped_steps: steps with a non-finite value seen by the watch pass (>1 only with ``--continue``).
        replayed: the locate pass saw the value again and named the op.
    """

    ok: bool
    first_nonfinite: dict[str, Any] | None = None
    dump: str | None = None
    script_exit: int = 0
    tripped_steps: int = 0
    replayed: bool = False
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "first_nonfinite": self.first_nonfinite, "dump": self.dump,
                "script_exit": self.script_exit, "tripped_steps": self.tripped_steps, "replayed": self.replayed,
                "notes": self.notes}


def _run_pass(python: str, script: Path, args: list[str], *, env_extra: dict[str, str], stdout, stderr) -> dict:
    with tempfile.TemporaryDirectory(prefix="faultlib-trace-") as tmp:
        result = Path(tmp) / "result.json"
        env = {**os.environ, **env_extra, "FAULTLIB_TRACE_RESULT": str(result)}
        proc = subprocess.run([python, "-m", "faultlib.trace.boot", str(script), *args], env=env,
                              stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL)
        if not result.is_file():
            return {"event": None, "trip": None, "dump": None, "script_exit": proc.returncode or 1,
                    "tripped_steps": 0, "crashed": True}
        return json.loads(result.read_text())


def proc_code(result: dict) -> int:
    return int(result.get("script_exit") or 0)


def trace_script(command: list[str], *, keep_going: bool = False, dump_dir: Path | None = None,
                 stdout=None, stderr=None) -> TraceReport:
    """Trace ``command`` (``["python", "SCRIPT.py", ARGS...]``).

    Args:
        command: the interpreter, the script, its arguments. The interpreter must have faultlib
            and torch importable (normally the same virtual environment).
        keep_going: count every step with a non-finite value instead of stopping at the first.
        dump_dir: where to write ``dump.pt`` (default ``.faultlib/trace/<time>/``).
        stdout, stderr: where the script's output goes (default: inherited).

    Raises:
        ScriptError: the command is not ``python SCRIPT.py ...`` or the script does not exist.
    """
    if len(command) < 2 or not Path(command[0]).name.startswith("python"):
        raise ScriptError(f"expected `-- python SCRIPT.py ARGS...`, got {' '.join(command) or 'nothing'}")
    python, script, args = command[0], Path(command[1]), command[2:]
    if script.suffix != ".py":
        raise ScriptError(f"{script}: not a Python script (expected SCRIPT.py)")
    if not script.is_file():
        raise ScriptError(f"{script}: no such script")
    if Path(python).name == Path(sys.executable).name or python in ("python", "python3"):
        python = sys.executable  # the interpreter faultlib runs in: torch and faultlib are importable there
    keep = {"FAULTLIB_TRACE_CONTINUE": "1"} if keep_going else {}
    watch = _run_pass(python, script, args, env_extra=keep, stdout=stdout, stderr=stderr)
    report = TraceReport(ok=watch["trip"] is None, script_exit=int(watch.get("script_exit") or 0),
                         tripped_steps=int(watch.get("tripped_steps") or 0))
    if watch.get("crashed"):
        report.notes.append(f"the script's interpreter died (exit code {proc_code(watch)}) before the tracer could "
                            "record a result: see its stderr")
    if report.ok:
        return report
    trip = watch["trip"]
    dump_dir = Path(dump_dir or Path(".faultlib/trace") / time.strftime("%Y%m%dT%H%M%S"))
    env = {"FAULTLIB_TRACE_ARM_AT": str(trip["arm_at"] if trip["arm_at"] is not None else 0),
           "FAULTLIB_TRACE_DUMP": str((dump_dir / "dump.pt").resolve())}
    located = _run_pass(python, script, args, env_extra=env, stdout=stdout, stderr=stderr)
    if located.get("event"):
        report.first_nonfinite = {k: located["event"][k] for k in
                                  ("step", "phase", "module", "op", "file", "line", "tensor")}
        report.first_nonfinite["aten_op"] = located["event"]["aten_op"]
        report.dump = located.get("dump")
        report.replayed = True
    else:
        report.first_nonfinite = {"step": trip["step"], "phase": trip["phase"], "module": trip["module"], "op": None,
                                  "file": None, "line": None, "tensor": None}
        report.notes.append(f"seen in {trip['where']} at step {trip['step']}, but the replay did not reproduce it "
                            "(is the script seeded?): op and source line unknown")
    return report
