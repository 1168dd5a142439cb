"""``faultlib check collectives DUMP_DIR``: where the ranks of a torch.distributed job stopped agreeing.

DUMP_DIR holds one ``rank<R>.json`` per rank (and ``rank<R>.fatal``, faulthandler's trace, for a rank that died on
a fatal signal: gloo's abort on a size or dtype mismatch), written by
:class:`faultlib.detect.distributed.FlightRecorder` (at exit, on ``SIGUSR1``, on ``SIGTERM``/``SIGINT``, or by
its watchdog when a collective waited past its deadline). The ranks' collectives are aligned by sequence number per process
group (see :mod:`faultlib.detect.distributed.collectives`).

JSON fields (besides ``detector``, ``ok``, ``findings``):

- ``first_divergence``: ``{seq, group, op, kind, ranks, call_sites}`` or ``null``: the lowest sequence number
  where the ranks disagree, ``ranks`` the rank(s) at fault (the one that skipped, added or changed the
  collective), ``call_sites`` ``{rank: {file, line, function} | null}`` for every rank of the group, and for a
  rank that never reached ``seq`` and exited, ``ended`` ``{rank: {cause, reason, last_seq, last_step,
  exit_error}}`` (``cause``: ``uneven_inputs`` | ``rank_raised`` | ``rank_exited``);
- ``waiting_ranks``: ``[{rank, seq, group, op, state, call_site, error}]``: collectives started and never
  completed (``state`` ``started``: still waiting at the dump; ``failed``: the backend raised);
- ``ranks``: the ranks dumped; ``groups``: ``{name: {ranks, last_seq}}``.

Kinds: ``collective_missing``, ``collective_extra``, ``collective_mismatch`` (errors), ``collective_pending`` and
``dump_missing`` (warnings: a rank of a recorded group, or any rank below the dumps' ``world_size``, left no dump).

Exit codes: 0 when the ranks agree and nothing is pending, 1 when a finding reaches ``--fail-on``, 2 when
DUMP_DIR is missing, holds no dump, or a dump is not a flight-recorder dump, or the dumps disagree on
``world_size`` (two jobs, or two generations of an elastic job, in one directory) or a rank is outside its
``world_size`` (file and field named).
"""

from __future__ import annotations

from pathlib import Path

import click

from faultlib.check.base import CheckResult, check_command, lazy_kinds

__getattr__ = lazy_kinds("faultlib.detect.distributed.collectives")
__all__ = ["KINDS", "command"]


def _summary(result: CheckResult) -> list[tuple[str, str]]:
    f = result.fields
    lines = [("ranks", ", ".join(str(r) for r in f["ranks"]))]
    first = f["first_divergence"]
    if first:
        sites = "; ".join(f"rank {r}: {s['file']}:{s['line']}" if s else f"rank {r}: (never reached)"
                          for r, s in first["call_sites"].items())
        lines.append(("first divergence", f"group {first['group']} seq {first['seq']} ({first['op']}): "
                                          f"{first['kind']} on rank(s) {first['ranks']}"))
        lines.append(("call sites", sites))
        for r, e in (first.get("ended") or {}).items():
            lines.append((f"rank {r} ended", f"{e['cause']} after its seq {e['last_seq']}"
                                             + (f": {e['exit_error']}" if e.get("exit_error") else "")))
    else:
        lines.append(("first divergence", "none: every rank issued the same collectives"))
    waiting = f["waiting_ranks"]
    lines.append(("waiting", ", ".join(f"rank {w['rank']} in {w['op']} seq {w['seq']} ({w['state']})"
                                       for w in waiting) if waiting else "no rank"))
    return lines


@check_command("collectives", summary=_summary,
               help="Compare the flight recorder's per-rank dumps (DUMP_DIR/rank<R>.json): the first sequence "
                    "number where the ranks' collectives disagree (a missing, extra or mismatched op, shape, "
                    "dtype or call site), the rank(s) at fault with their call sites, and the ranks still "
                    "waiting in a collective.")
@click.argument("dump_dir", metavar="DUMP_DIR", type=click.Path(path_type=Path, file_okay=False))
def command(dump_dir: Path) -> CheckResult:
    """Check DUMP_DIR (see the module docstring).

    Raises:
        InputError: DUMP_DIR missing or without dumps, or a malformed dump (exit 2).
    """
    from faultlib.detect.distributed.collectives import analyse, load_dumps, load_fatal

    report = analyse(load_dumps(dump_dir), load_fatal(dump_dir))
    return CheckResult("collectives", report.findings, report.fields())
