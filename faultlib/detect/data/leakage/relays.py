"""Scripts that pass a written file on to the next one, for the static leakage analysis.

Staged pipelines (a numbered ``preprocessing/`` folder, DVC or Makefile stages) write one table per stage: stage 5
scales ``train_process4.csv`` into ``train_process5.csv``, stage 6 encodes it into ``train_process6.csv``, ...,
and the model scripts cross-validate ``train_process8.csv``. A scaler fitted on every training row in stage 5 is
fitted outside the cross-validation of the model scripts, three files later (wave 59: a house-prices pipeline of
eight stages and thirteen model scripts). :func:`~.repofiles.handed_on` joins a writer with the scripts that read
its own files; :func:`relayed_readers` finds the scripts further down: a script reading a file the writer wrote
and writing files of its own (a relay) hands the rows on, as one program run in stage order does (the session of
:func:`~faultlib.detect.data.leakage.analyze_session` joins writer, relays and reader, and the analysis follows
each written table to its later read, :mod:`.handoff`).

Bounds: at most :data:`MAX_RELAYS` relays between a writer and a reader, :data:`MAX_CHAINS` chains a writer (the
first found, breadth first, scripts in path order); a script is visited once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: the most scripts between a writer and the reader that evaluates
MAX_RELAYS = 4
#: the most relayed readers joined with one writer
MAX_CHAINS = 3


def _written_by(repo: Any, script: str) -> list[Any]:
    return [a.path for a in repo.accesses.get(script, []) if a.mode == "write"]


def relayed_readers(repo: Any, script: str, files: list[Any], evaluates: Callable[[str], bool]) -> list[
        tuple[str, list[str], list[tuple[Any, Any]]]]:
    """The scripts that evaluate rows ``script`` wrote to ``files`` through at least one relay.

    Args:
        repo: the :class:`~.repofiles.RepoFiles` of the repository.
        script: the writer.
        files: the paths it wrote rows shaped by a fit to.
        evaluates: whether a script splits, cross-validates, scores or fits (:func:`~.repofiles.evaluates`).

    Returns:
        ``[(reader, [relay, ...], [(write, read), ...])]``: the relays in the order the rows pass them, and the
        writer's write and the first relay's read of it.
    """
    out: list[tuple[str, list[str], list[tuple[Any, Any]]]] = []
    seen = {script}
    first_hop = repo.readers_of(script, files, evaluating=False)
    seen.update(reader for reader, _ in first_hop)
    frontier = [(reader, [reader], pairs) for reader, pairs in first_hop]
    for _ in range(MAX_RELAYS):
        after = []
        for relay, relays, pairs in frontier:
            for reader, _ in repo.readers_of(relay, _written_by(repo, relay), evaluating=False):
                if reader in seen:
                    continue
                seen.add(reader)
                if evaluates(reader):
                    out.append((reader, relays, pairs))
                    if len(out) == MAX_CHAINS:
                        return out
                after.append((reader, [*relays, reader], pairs))
        frontier = after
    return out


__all__ = ["MAX_CHAINS", "MAX_RELAYS", "relayed_readers"]
