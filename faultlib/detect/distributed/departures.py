"""Why a rank stopped issuing collectives: it ran out of batches, raised, exited early, or vanished.

``check collectives`` (:mod:`faultlib.detect.distributed.collectives`) finds the first collective a rank never
issued; this module reads that rank's own dump to say why, as users report these faults:

- ``uneven_inputs``: the rank exited cleanly (its exit dump, nothing pending) after issuing the same collective
  (op and call site) before, while the others issued one more: it had fewer batches and left its loop
  (pytorch/pytorch#33148, Lightning-AI/pytorch-lightning#20404: the others hang in DDP's next all-reduce);
- ``rank_raised``: the rank's exit dump carries the uncaught exception that ended it (``exit_error``);
- ``rank_exited``: a clean exit before a call site it never issued (an early return, a rank-conditional exit);
- a rank that left no dump at all (:func:`absent_ranks` lists them, :func:`why_expected` says why each
  should have one; SIGKILL, or gloo's ``std::terminate`` on a size or dtype mismatch between the
  ranks of one collective, NVIDIA/nccl#1394): :func:`vanished` names the collective the others were in when it
  went.

The functions take validated dump entries (``seq``, ``op``, ``tensors``, ``call_site``, ``state``, ``step``).
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
from typing import Any

CAUSES = ("uneven_inputs", "rank_raised", "rank_exited")


def _key(e: dict[str, Any]) -> tuple:
    cs = e["call_site"]
    return e["op"], cs.get("file"), cs.get("line")


def describe(e: dict[str, Any]) -> str:
    """``op(dtype[shape], ...) at file:line``: one collective as the reports print it."""
    shapes = ", ".join(f"{t['dtype'].replace('torch.', '')}{t['shape']}" for t in e["tensors"]) or "no tensor"
    cs = e["call_site"]
    root = f", {'dst' if e['op'] in ('reduce', 'gather') else 'src'}={e['root']}" if e.get("root") is not None else ""
    return f"{e['op']}({shapes}{root}) at {cs.get('file')}:{cs.get('line')}"


def why_absent(rank: int, entries: dict[int, dict[str, Any]], missing: dict[str, Any], reason: str,
               exit_error: str | None) -> tuple[str, str, dict[str, Any]] | None:
    """Why ``rank`` never issued ``missing`` (another rank's entry at the first sequence number it lacks).

    Args:
        rank: the rank that never issued it.
        entries: that rank's entries of the group, by ``seq``.
        missing: the collective the other ranks issued.
        reason: the rank's dump reason (``exit``, ``watchdog``, ``signal``, ``manual``).
        exit_error: the exception that ended the rank's process, if its exit dump holds one.

    Returns:
        ``(cause, sentence, facts)`` with ``cause`` in :data:`CAUSES` and ``facts`` ``{reason, last_seq,
        last_step, exit_error}``, or None when the rank did not end (a watchdog or signal dump) or is itself
        still waiting in a collective (the pending findings say where).
    """
    if reason != "exit" or any(e["state"] == "started" for e in entries.values()):
        return None
    last = entries[max(entries)] if entries else None
    facts = {"reason": reason, "last_seq": last["seq"] if last else None,
             "last_step": last.get("step") if last else None, "exit_error": exit_error}
    where = (f"after its seq {last['seq']} ({describe(last)}"
             + (f", optimizer step {last['step']})" if isinstance(last.get("step"), int) else ")")
             if last else "before its first collective")
    if exit_error:
        first_line = exit_error.strip().splitlines()[0] if exit_error.strip() else exit_error
        return "rank_raised", f"rank {rank} raised {first_line} and exited {where}", facts
    if _key(missing) in {_key(e) for e in entries.values()}:
        return "uneven_inputs", (
            f"rank {rank} ran out of batches: it left its loop and exited cleanly {where}, while the others issued "
            f"another {missing['op']} at the same call site (uneven inputs: they have more batches); give every "
            f"rank as many batches (DistributedSampler pads; drop_last) or train under DDP's join() context "
            f"manager (torch.distributed.algorithms.Join)"), facts
    return "rank_exited", (f"rank {rank} exited cleanly {where} and never reached this call site (an early return "
                           f"or a rank-conditional exit)"), facts


def vanished(rank: int, others: dict[int, list[dict[str, Any]]]) -> tuple[str, dict[str, Any] | None]:
    """What the dumped ranks were doing when ``rank`` went without a dump.

    Args:
        rank: the rank without a dump.
        others: ``{rank: entries}`` of the dumped ranks that share a process group with it.

    Returns:
        ``(sentence, entry)``: the sentence to append to the ``dump_missing`` finding and the earliest collective
        a dumped rank started and never completed (None when every recorded collective completed).
    """
    stuck = sorted(((e["seq"], r, e) for r, es in others.items() for e in es if e["state"] != "completed"),
                   key=lambda x: (x[0], x[1]))
    if not stuck:
        return "", None
    seq, r, e = stuck[0]
    state = "had failed in" if e["state"] == "failed" else "was waiting in"
    return (f"; it went while rank {r} {state} {describe(e)} (group {e['group']['name']} seq {seq}): rank "
            f"{rank} died in or before that collective. gloo aborts a process (gloo::EnforceNotMet, "
            f"std::terminate) when the ranks pass different sizes or dtypes to one collective: compare what each "
            f"rank passes there"), e


def why_expected(rank: int, grouped: set[int], died: set[int], world: int) -> str:
    """Why a rank without a dump should have one (the start of its ``dump_missing`` message)."""
    if rank in grouped:
        return "is in a recorded process group"
    if rank in died:
        return "died on a fatal signal"
    return f"is one of the job's {world} ranks (world_size {world})"


def absent_ranks(world: int, have: set[int], extra: list[int]) -> Iterator[int]:
    """Ranks without a dump, ascending, lazily (a world_size of 10^9 costs nothing): every rank below ``world`` not in
    ``have``, merged with ``extra`` (sorted ranks known missing otherwise: listed by a group, or a ``.fatal``)."""
    last = None
    for r in heapq.merge(extra, (r for r in range(world) if r not in have)):
        if r != last:
            yield r
            last = r
