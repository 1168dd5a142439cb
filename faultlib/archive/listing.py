"""``archive ls``: one row per run, whatever its files hold. A malformed ``run.json`` shows verdict
``?`` and a note; a malformed manifest shows the run as not complete, with the problem as its note."""

from __future__ import annotations

from collections.abc import Callable

from faultlib.archive.base import StoredRun
from faultlib.archive.manifest import MANIFEST_LIMITS, parse_manifest
from faultlib.errors import ArchiveError, ArchiveUnavailable, InputError
from faultlib.evidence import layout
from faultlib.readers import Limits, load_json
from faultlib.readers.files import MiB

#: run.json holds the fingerprint and every finding: a few hundred KB, 16 MiB at most
RECORD_LIMITS = Limits(max_bytes=16 * MiB, max_depth=64, max_nodes=2_000_000)
UNKNOWN = "?"


def summarize_record(raw: bytes | None, path: str) -> tuple[str | None, str | None, str | None]:
    """``(started_at, verdict, note)`` from a run's ``run.json`` bytes (None: the run has none yet).

    Never raises: what cannot be read becomes verdict ``?`` and a note saying why.
    """
    if raw is None:
        return None, None, None
    try:
        doc = load_json(raw, path, limits=RECORD_LIMITS)
    except InputError as exc:
        line = f":{exc.line}" if exc.line is not None else ""
        return None, UNKNOWN, f"{layout.RUN}{line}: {exc.message}"
    if not isinstance(doc, dict):
        return None, UNKNOWN, f"{layout.RUN}: not a JSON object"
    notes = []
    verdict, started_at = doc.get("verdict"), doc.get("started_at")
    if not isinstance(verdict, str):
        notes.append(f"{layout.RUN}: verdict: " + ("missing" if verdict is None else "not a string"))
        verdict = UNKNOWN
    if started_at is not None and not isinstance(started_at, str):
        notes.append(f"{layout.RUN}: started_at: not a string")
        started_at = None
    return started_at, verdict, "; ".join(notes) or None


def stored_run(case: str, run_id: str, read: Callable[[str, int], bytes | None], *, where: str) -> StoredRun:
    """The listing row of one run.

    Args:
        read: ``read(name, max_bytes)`` returns a file of the run (None when absent); it may raise
            :class:`ArchiveError` (a link, too large), which becomes a note instead of stopping the listing.
        where: the run's path or URI, for the ``path`` of errors.

    Raises:
        ArchiveUnavailable: the store could not be reached.
    """
    run = f"{case}/{run_id}"
    notes, damaged, complete = [], False, False
    try:
        manifest = read(layout.MANIFEST, MANIFEST_LIMITS.max_bytes)
        if manifest is not None:
            parse_manifest(manifest, run=run, path=f"{where}/{layout.MANIFEST}", expect=(case, run_id))
            complete = True
    except ArchiveUnavailable:
        raise
    except ArchiveError as exc:  # ManifestError included
        notes.append(str(exc).removeprefix(f"{run}: "))
        damaged = True
    try:
        record = read(layout.RUN, RECORD_LIMITS.max_bytes)
    except ArchiveUnavailable:
        raise
    except ArchiveError as exc:
        started_at, verdict, note = None, UNKNOWN, str(exc)
    else:
        started_at, verdict, note = summarize_record(record, f"{where}/{layout.RUN}")
    if note:
        notes.append(note)
    return StoredRun(case, run_id, complete, started_at, verdict, "; ".join(notes) or None, damaged)
