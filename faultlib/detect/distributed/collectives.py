"""Align the flight recorder's per-rank dumps and name where the ranks stopped agreeing.

Every rank of a process group must issue the same collectives in the same order: the ``seq``-th
collective of group G on every member has the same op, tensor shapes and dtypes, and (all ranks running
the same program) the same call site. This module reads ``rank<R>.json`` dumps
(:mod:`faultlib.detect.distributed.recorder`), compares the members of each group ``seq`` by ``seq`` over the
window every member still holds (a ring drops its oldest entries), and reports:

- ``collective_missing`` (error): a rank lacks a collective the others issued (it skipped it: its later
  entries match the others' shifted by one), or never reached it, or issued the same collective at a later
  optimizer step (``step``) than the others: it skipped an identical one of an earlier step (a DDP gradient
  all-reduce), and the backend silently paired each later one with another step's;
- ``collective_extra`` (error): a rank issued a collective the others did not;
- ``collective_mismatch`` (error): the same ``seq`` with another op, shapes, dtypes, root (``src``/``dst``) or
  call site;
- ``collective_pending`` (warning): a collective started and never completed (the rank is waiting in it),
  or failed (the backend raised, e.g. its timeout);
- ``dump_missing`` (warning): a rank listed in a recorded group, or any rank below the dumps' ``world_size``,
  left no dump (SIGKILL, or a backend that aborts the process: gloo's ``EnforceNotMet`` on a size mismatch
  calls ``std::terminate``); its collectives are unknown and not compared.

Raises :class:`~faultlib.errors.InputError` (exit 2) for a dump that is not a flight-recorder dump, naming
the file and the field, and for dumps of different jobs in one directory: two ``world_size`` values (an elastic
restart at another size leaves the old generation's dumps beside the new ones), or a rank at or above its
``world_size``.
"""

from __future__ import annotations

import bisect
import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from faultlib.detect.distributed import fatal as _fatal
from faultlib.detect.distributed.departures import describe as _describe
from faultlib.detect.distributed.departures import absent_ranks, vanished, why_absent, why_expected
from faultlib.detect.distributed.recorder import OPS
from faultlib.errors import InputError
from faultlib.findings import Finding, Severity
from faultlib.readers.files import Limits, MiB, inside, read_text
from faultlib.readers.jsondoc import load_json_file

DETECTOR = "collectives"
KINDS = {"collective_missing": "a rank lacks a collective the other ranks of its group issued",
         "collective_extra": "a rank issued a collective the other ranks of its group did not",
         "collective_mismatch": "the same sequence number with another op, shape, dtype, root (src/dst) or call site",
         "collective_pending": "a collective started and never completed (the rank is waiting in it) or failed",
         "dump_missing": "a rank of a recorded group or of the job's world_size left no dump (killed, or aborted by the "
                         "backend, before it wrote one)"}
DUMP_NAME = re.compile(r"rank(\d{1,6})\.json")
LIMITS = Limits(max_bytes=256 * MiB, max_depth=16, max_nodes=20_000_000)
#: all dumps of one directory together (each is parsed into memory at several times its size): 4,096 ranks of
#: the recorder's default 2,048 entries (about 0.5 MiB each) fit
MAX_TOTAL_BYTES = 4 * 1024 * MiB
STATES = ("started", "completed", "failed")
_LOOKAHEAD = 8
#: ranks without a dump named one finding each; beyond, one finding counts the rest
MAX_MISSING_NAMED = 64


@dataclass
class Dump:
    """One rank's dump: ``rank``, ``path`` and its ``entries`` (validated)."""

    rank: int
    path: Path
    reason: str
    dropped: int
    entries: list[dict[str, Any]] = field(default_factory=list)
    exit_error: str | None = None
    #: the job's number of ranks when the rank dumped (``None``: the recorder did not know it)
    world_size: int | None = None


def _need(value: Any, types: type | tuple, path: Path, where: str, what: str) -> Any:
    if not isinstance(value, types) or isinstance(value, bool) and bool not in (types if isinstance(types, tuple)
                                                                                  else (types,)):
        raise InputError(f"{where} must be {what}, got {type(value).__name__}: this is not a faultlib flight "
                         f"recorder dump (FlightRecorder.dump writes one)", path=str(path), field=where)
    return value


def _load_dump(path: Path, root: Path) -> Dump:
    doc = load_json_file(path, limits=LIMITS, root=root)
    _need(doc, dict, path, "(document)", "an object")
    if doc.get("format") != "faultlib.flight_recorder":
        raise InputError(f"format is {doc.get('format')!r}, expected 'faultlib.flight_recorder'", path=str(path),
                         field="format")
    rank = _need(doc.get("rank"), int, path, "rank", "an integer")
    if rank < 0:
        raise InputError(f"rank is {rank}: must be >= 0", path=str(path), field="rank")
    named = DUMP_NAME.fullmatch(path.name)
    if named and int(named.group(1)) != rank:  # the recorder names each dump after its rank
        raise InputError(f"rank is {rank} in a file named {path.name}: a renamed or hand-made dump; name it "
                         f"rank{rank}.json or restore the recorder's file", path=str(path), field="rank")
    entries = _need(doc.get("entries"), list, path, "entries", "a list")
    for i, e in enumerate(entries):
        at = f"entries[{i}]"
        _need(e, dict, path, at, "an object")
        _need(e.get("seq"), int, path, f"{at}.seq", "an integer")
        _need(e.get("op"), str, path, f"{at}.op", "a string")
        group = _need(e.get("group"), dict, path, f"{at}.group", "an object")
        _need(group.get("name"), str, path, f"{at}.group.name", "a string")
        if group.get("ranks") is not None:
            for k, r in enumerate(_need(group["ranks"], list, path, f"{at}.group.ranks", "a list of ranks or null")):
                if _need(r, int, path, f"{at}.group.ranks[{k}]", "an integer") < 0:
                    raise InputError(f"{at}.group.ranks[{k}] is {r}: ranks are >= 0", path=str(path),
                                     field=f"{at}.group.ranks[{k}]")
        for j, t in enumerate(_need(e.get("tensors"), list, path, f"{at}.tensors", "a list")):
            _need(t, dict, path, f"{at}.tensors[{j}]", "an object")
            for k, n in enumerate(_need(t.get("shape"), list, path, f"{at}.tensors[{j}].shape", "a list")):
                _need(n, int, path, f"{at}.tensors[{j}].shape[{k}]", "an integer")
            _need(t.get("dtype"), str, path, f"{at}.tensors[{j}].dtype", "a string")
        cs = _need(e.get("call_site"), dict, path, f"{at}.call_site", "an object")
        for key, types, what in (("file", (str, type(None)), "a string or null"),
                                 ("line", (int, type(None)), "an integer or null"),
                                 ("function", (str, type(None)), "a string or null")):
            _need(cs.get(key), types, path, f"{at}.call_site.{key}", what)
        if e.get("error") is not None:
            _need(e["error"], str, path, f"{at}.error", "a string or null")
        if e.get("step") is not None:
            _need(e["step"], int, path, f"{at}.step", "an integer or null")
        if e.get("root") is not None:
            _need(e["root"], int, path, f"{at}.root", "an integer or null")
        if e.get("state") not in STATES:
            raise InputError(f"{at}.state is {e.get('state')!r}: one of {', '.join(STATES)}", path=str(path),
                             field=f"{at}.state")
    if doc.get("exit_error") is not None:
        _need(doc["exit_error"], str, path, "exit_error", "a string or null")
    dropped = _need(doc.get("dropped", 0), (int, type(None)), path, "dropped", "an integer or null") or 0
    world = _need(doc.get("world_size"), (int, type(None)), path, "world_size", "an integer or null")
    if world is not None and not 0 <= rank < world:
        raise InputError(f"rank is {rank} with world_size {world}: ranks run from 0 to world_size - 1",
                         path=str(path), field="world_size")
    return Dump(rank, path, str(doc.get("reason", "")), dropped, entries, doc.get("exit_error"), world)


def load_dumps(dump_dir: Path | str) -> list[Dump]:
    """Every ``rank<R>.json`` of ``dump_dir`` (not below), validated, by rank.

    Raises:
        InputError: the directory is missing or holds no dump, the dumps together exceed
            :data:`MAX_TOTAL_BYTES`, a dump is unreadable or malformed (file and field), or two dumps claim the
            same rank, or two dumps give different ``world_size`` values (dumps of two jobs, or of two generations of
            an elastic job: their collectives cannot be compared).
    """
    root = Path(dump_dir)
    if not root.is_dir():
        raise InputError("is not a directory: give the flight recorder's dump directory", path=str(root))
    paths = sorted(p for p in root.iterdir() if DUMP_NAME.fullmatch(p.name))
    if not paths:
        raise InputError("holds no rank<R>.json dump: point at the FlightRecorder's dump_dir", path=str(root))
    total = sum(p.lstat().st_size for p in paths)
    if total > MAX_TOTAL_BYTES:
        raise InputError(f"its {len(paths)} dumps hold {total / MiB:,.0f} MiB together, over the "
                         f"{MAX_TOTAL_BYTES / MiB:,.0f} MiB read at once: copy the dumps of the ranks in question "
                         "(one group, or the ranks a first look named) into a directory of their own and check that",
                         path=str(root))
    dumps: dict[int, Dump] = {}
    for p in paths:
        d = _load_dump(inside(root, p.name), root)
        if d.rank in dumps:
            raise InputError(f"claims rank {d.rank}, as {dumps[d.rank].path.name} does", path=str(p), field="rank")
        dumps[d.rank] = d
    sized = [d for d in dumps.values() if d.world_size is not None]
    other = next((d for d in sized if d.world_size != sized[0].world_size), None)
    if other is not None:
        raise InputError(f"world_size is {other.world_size} but {sized[0].path.name} says {sized[0].world_size}: the "
                         "dumps come from different jobs (or generations of an elastic job); check each job's dumps "
                         "in a directory of their own", path=str(other.path), field="world_size")
    return [dumps[r] for r in sorted(dumps)]


def load_fatal(dump_dir: Path | str) -> dict[int, str]:
    """``{rank: text}`` of the non-empty ``rank<R>.fatal`` files of ``dump_dir`` (faulthandler's trace of a rank that
    died on a fatal signal; :mod:`faultlib.detect.distributed.fatal`), each read bounded (1 MiB)."""
    root = Path(dump_dir)
    out: dict[int, str] = {}
    for p in sorted(root.iterdir()) if root.is_dir() else []:
        m = _fatal.NAME.fullmatch(p.name)
        if m:
            text = read_text(inside(root, p.name), limits=Limits(max_bytes=MiB), root=root)
            if text.strip():
                out[int(m.group(1))] = text
    return out


def _site(e: dict[str, Any]) -> dict[str, Any]:
    cs = e["call_site"]
    return {"file": cs.get("file"), "line": cs.get("line"), "function": cs.get("function")}


def _signature(e: dict[str, Any]) -> tuple:
    cs = e["call_site"]
    return (e["op"], tuple((tuple(t["shape"]), t["dtype"]) for t in e["tensors"]), cs.get("file"), cs.get("line"),
            e.get("root"))


def _what_differs(a: tuple, b: tuple) -> str:
    if a[0] != b[0]:
        return "op"
    if [s for s, _ in a[1]] != [s for s, _ in b[1]]:
        return "shape"
    if [d for _, d in a[1]] != [d for _, d in b[1]]:
        return "dtype"
    if a[4] != b[4]:
        return "root (src/dst)"
    return "call_site"


@dataclass
class CollectivesReport:
    """What :func:`analyse` found: findings, the first divergence and the waiting ranks."""

    findings: list[Finding]
    first_divergence: dict[str, Any] | None
    waiting_ranks: list[dict[str, Any]]
    ranks: list[int]
    groups: dict[str, dict[str, Any]]

    def fields(self) -> dict[str, Any]:
        return {"first_divergence": self.first_divergence, "waiting_ranks": self.waiting_ranks,
                "ranks": self.ranks, "groups": self.groups}


class _Row:
    """One rank's signatures over a group's recorded seqs (None where it has no entry), computed when read: a
    list of every rank x every seq was 2.5 GB for 300 ranks whose 2,048 entries each held seqs no other rank had."""

    def __init__(self, entries: dict[int, dict], seqs: list[int]):
        self.entries, self.seqs = entries, seqs
        last = max(entries, default=None)
        self.issued = 0 if last is None else bisect.bisect_right(seqs, last)

    def __len__(self) -> int:
        return len(self.seqs)

    def __getitem__(self, i: int | slice):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self.seqs)))]
        e = self.entries.get(self.seqs[i])
        return None if e is None else _signature(e)


def _issued(sigs: list | _Row) -> int:
    """How many entries a rank holds from the window's start (its list is padded with None)."""
    if isinstance(sigs, _Row):
        return sigs.issued
    n = len(sigs)
    while n and sigs[n - 1] is None:
        n -= 1
    return n


def _shifted_match(mine: list, others: list, start: int) -> bool:
    """True when ``mine[start:]`` equals ``others[start+1:]`` over the lookahead window both hold: ``mine``
    skipped ``others[start]``."""
    n = min(_LOOKAHEAD, _issued(mine) - start, _issued(others) - start - 1)
    return n > 0 and all(mine[start + k] == others[start + 1 + k] for k in range(n))


def _skippers(sigs: dict[int, list], present: list[int], majority: list[int], tie: bool, i: int) -> list[int]:
    """The ranks that skipped the collective the others issued at window index ``i``. With a strict majority it
    is the reference; on a tie (2 ranks) a skip by one is an extra on the other: the rank that issued fewer
    collectives in all is named."""
    if not tie:
        return [r for r in present if r not in majority and _shifted_match(sigs[r], sigs[majority[0]], i)]
    cands = [r for r in present if any(_shifted_match(sigs[r], sigs[o], i) for o in present if o != r)]
    if len(cands) > 1:
        fewest = min(_issued(sigs[r]) for r in cands)
        cands = [r for r in cands if _issued(sigs[r]) == fewest]
    return sorted(cands) if len(cands) < len(present) else []


def _site_key(sig: tuple) -> tuple:
    return sig[0], sig[2], sig[3]  # op, file, line


def _off_path(sigs: dict[int, list], present: list[int], i: int) -> tuple[list[int], set]:
    """The ranks whose step into window index ``i`` (previous call site -> this one) was never taken before by
    any rank, when some but not all ranks took a known step; and the call sites seen before ``i``. A loop's
    collectives follow each other in one order; the rank that left it is the one a data-dependent branch
    took elsewhere (it skipped a collective when its site is a known one, or issued an extra one)."""
    steps, known = set(), set()
    for v in sigs.values():
        for k in range(1, min(i, _issued(v))):
            steps.add((_site_key(v[k - 1]), _site_key(v[k])))
        known.update(_site_key(x) for x in v[:i] if x is not None)
    novel = [r for r in present if sigs[r][i - 1] is not None
             and (_site_key(sigs[r][i - 1]), _site_key(sigs[r][i])) not in steps]
    return (novel, known) if 0 < len(novel) < len(present) else ([], known)


def _step_shift(name: str, seq: int, entry_of: dict[int, dict]) -> tuple[dict[str, Any], Finding] | None:
    """Ranks that issued the same collective at the same ``seq`` but at different optimizer steps (``step``): the
    rank(s) ahead skipped a collective of an earlier step and every later one pairs with another step's. None when
    the steps agree or a dump predates ``step``."""
    steps = {r: e.get("step") for r, e in entry_of.items()}
    if any(not isinstance(v, int) or isinstance(v, bool) for v in steps.values()) or len(set(steps.values())) <= 1:
        return None
    counts: dict[int, list[int]] = {}
    for r, v in steps.items():
        counts.setdefault(v, []).append(r)
    usual = max(counts, key=lambda v: (len(counts[v]), -v))  # the majority's step; a tie: the earliest
    ahead = sorted(r for r, v in steps.items() if v > usual)
    culprits = ahead or sorted(r for r, v in steps.items() if v != usual)
    ref = entry_of[counts[usual][0]]
    by_step = ", ".join(f"rank {r} at step {v}" for r, v in sorted(steps.items()))
    msg = (f"group {name} seq {seq}: the ranks issued {_describe(ref)} at different optimizer steps ({by_step}): "
           f"rank(s) {culprits} issued none in step {usual} (a skipped collective), and each later one paired with "
           f"another step's: gloo and NCCL match collectives by order and report nothing")
    sites = {str(r): _site(e) for r, e in sorted(entry_of.items())}
    divergence = {"seq": seq, "group": name, "op": ref["op"], "ranks": culprits, "kind": "collective_missing",
                  "call_sites": sites, "steps": {str(r): v for r, v in sorted(steps.items())}}
    cs = ref["call_site"]
    loc = {k: v for k, v in (("file", cs.get("file")), ("line", cs.get("line")), ("function", cs.get("function")),
                             ("op", ref["op"]), ("index", seq), ("step", usual)) if v is not None}
    return divergence, Finding(DETECTOR, Severity.ERROR, msg, location=loc,
                               evidence={"group": name, "seq": seq, "ranks": culprits, "call_sites": sites,
                                         "steps": divergence["steps"]}, kind="collective_missing")


def _compare_group(name: str, by_rank: dict[int, dict[int, dict]],
                   dumps: dict[int, Dump] | None = None) -> tuple[dict[str, Any] | None, Finding | None]:
    """The first divergent seq of one group, as ``(first_divergence, finding)``; ``dumps`` (by rank) say why a rank
    that never reached a seq stopped (:func:`~faultlib.detect.distributed.departures.why_absent`)."""
    lo = max(min(s) for s in by_rank.values() if s) if all(by_rank.values()) else 0
    # the seqs some rank recorded, not every number up to the largest: a dump's seq of 10^15 costs nothing
    seqs = sorted({q for s in by_rank.values() for q in s if q >= lo})
    sigs = {r: _Row(s, seqs) for r, s in by_rank.items()}  # computed on demand: ranks x seqs can be 10^10
    for i, seq in enumerate(seqs):
        row = {r: v[i] for r, v in sigs.items()}
        present = {r: sig for r, sig in row.items() if sig is not None}
        absent = sorted(r for r, sig in row.items() if sig is None)
        if not absent and len(set(present.values())) <= 1:
            shifted = _step_shift(name, seq, {r: by_rank[r][seq] for r in present})
            if shifted:
                return shifted
            continue
        counts: dict[tuple, list[int]] = {}
        for r, sig in present.items():
            counts.setdefault(sig, []).append(r)
        sizes = sorted((len(v) for v in counts.values()), reverse=True)
        tie = len(sizes) > 1 and sizes[0] == sizes[1]
        majority = max(counts.values(), key=len) if counts else []
        skipped = _skippers(sigs, sorted(present), majority, tie, i)
        novel: list[int] = []
        if tie and not skipped and i > 0:  # both ranks stuck at the divergence: which one left the usual path
            novel, known = _off_path(sigs, sorted(present), i)
            skipped = [r for r in novel if _site_key(sigs[r][i]) in known]
        if (skipped or novel) and tie:
            majority = [r for r in present if r not in (skipped or novel)]
        odd = sorted(r for r in present if r not in majority)
        ref = majority[0] if majority else None
        entry_of = {r: by_rank[r][seq] for r in present}
        ended: dict[str, Any] = {}
        if absent and not odd:  # ranks that never reached this seq
            kind, culprits = "collective_missing", absent
            msg = (f"group {name} seq {seq}: rank(s) {absent} never issued {_describe(entry_of[ref])}, which "
                   f"rank(s) {sorted(present)} did")
            for r in absent:
                d = (dumps or {}).get(r)
                why = why_absent(r, by_rank[r], entry_of[ref], d.reason, d.exit_error) if d else None
                if why:
                    ended[str(r)] = {"cause": why[0], **why[2]}
                    msg += f"; {why[1]}"
        else:
            extra = novel if novel and not skipped else [] if skipped or tie else [
                r for r in odd if _shifted_match(sigs[ref], sigs[r], i)]
            if skipped:
                kind, culprits = "collective_missing", skipped
                msg = (f"group {name} seq {seq}: rank(s) {skipped} skipped {_describe(entry_of[ref])} and issued "
                       f"{_describe(entry_of[skipped[0]])} in its place; rank(s) {sorted(majority)} did not skip")
            elif extra:
                kind, culprits = "collective_extra", extra
                msg = (f"group {name} seq {seq}: rank(s) {extra} issued an extra {_describe(entry_of[extra[0]])} "
                       f"that rank(s) {sorted(majority)} did not")
            else:
                kind, culprits = "collective_mismatch", odd or absent
                what = _what_differs(_signature(entry_of[odd[0]]), _signature(entry_of[ref])) if odd else "presence"
                msg = (f"group {name} seq {seq}: {what} differs: rank(s) {odd} issued "
                       f"{_describe(entry_of[odd[0]]) if odd else '-'}, rank(s) {sorted(majority)} issued "
                       f"{_describe(entry_of[ref])}")
        sites = {str(r): _site(e) for r, e in sorted(entry_of.items())}
        for r in absent:
            sites[str(r)] = None
        op = entry_of[ref]["op"] if ref is not None else None
        divergence = {"seq": seq, "group": name, "op": op, "ranks": culprits, "kind": kind, "call_sites": sites}
        if ended:
            divergence["ended"] = ended
        first = entry_of[culprits[0]] if culprits[0] in entry_of else entry_of[ref]
        loc = {k: v for k, v in (("file", first["call_site"].get("file")), ("line", first["call_site"].get("line")),
                                  ("function", first["call_site"].get("function")), ("op", first["op"]),
                                  ("index", seq)) if v is not None}
        evidence = {"group": name, "seq": seq, "ranks": culprits, "call_sites": sites}
        if ended:
            evidence["ended"] = ended
        finding = Finding(DETECTOR, Severity.ERROR, msg, location=loc, evidence=evidence, kind=kind)
        return divergence, finding
    return None, None


def analyse(dumps: list[Dump], fatal: dict[int, str] | None = None) -> CollectivesReport:
    """Compare the dumps (see the module docstring). Clocks differ across hosts, so the first divergence over
    several groups is the lowest ``(seq, group name)``. ``fatal`` (:func:`load_fatal`) places a rank that died on a
    fatal signal at the collective and line its faulthandler trace shows."""
    groups: dict[str, dict[int, dict[int, dict]]] = {}
    members: dict[str, set[int]] = {}
    ranks = [d.rank for d in dumps]
    for d in dumps:
        for e in d.entries:
            name = e["group"]["name"]
            groups.setdefault(name, {}).setdefault(d.rank, {})[e["seq"]] = e
            listed = e["group"].get("ranks")
            members.setdefault(name, set()).update(r for r in (listed or [d.rank]) if isinstance(r, int))
    findings: list[Finding] = []
    have = set(ranks)
    grouped = set().union(*members.values()) - have if members else set()
    # a rank that died on a fatal signal before any recorded group named it: its rank<R>.fatal still counts
    died_alone = {r for r, text in (fatal or {}).items() if r not in have and _fatal.site(text, set(OPS))}
    # and every rank of the job (load_dumps made the dumps agree on world_size) that left nothing at all
    world = max((d.world_size for d in dumps if d.world_size is not None), default=0)
    extra = sorted(grouped | died_alone)
    absent = absent_ranks(world, have, extra)
    missing = list(itertools.islice(absent, MAX_MISSING_NAMED))  # 10^6 listed ranks took > 2 min
    count = world - sum(r < world for r in have) + sum(r >= world for r in extra)
    rest = []
    if count > len(missing):
        top = next((r for r in range(world - 1, -1, -1) if r not in have), -1)
        rest = [next(absent), max(top, extra[-1] if extra else -1)]
    for r in missing:
        shared = {d.rank: [e for e in d.entries if r in (e["group"].get("ranks") or [])] for d in dumps}
        note, at = vanished(r, shared)
        died = _fatal.site((fatal or {}).get(r, ""), set(OPS))
        if died:
            same = at is not None and (died["op"], died["file"], died["line"]) == (
                at["op"], at["call_site"].get("file"), at["call_site"].get("line"))
            note += (f"; its rank{r}.fatal (faulthandler) says: Fatal Python error: {died['error']} in "
                     f"{died['op'] or 'a call'} at {died['file']}:{died['line']}"
                     + (": the same collective, so the ranks passed it different sizes or dtypes" if same else ""))
        cs = at["call_site"] if at else {}
        findings.append(Finding(DETECTOR, Severity.WARNING,
                                f"rank {r} {why_expected(r, grouped, died_alone, world)}"
                                f" but left no rank{r}.json: it was killed or "
                                f"aborted before it could dump (its stderr says why){note}",
                                location={k: v for k, v in (("file", cs.get("file")), ("line", cs.get("line")),
                                                            ("op", at and at["op"]), ("index", at and at["seq"]))
                                          if v is not None},
                                evidence={"rank": r, **({"seq": at["seq"], "op": at["op"], "tensors": at["tensors"]}
                                                        if at else {}), **({"fatal": died} if died else {})},
                                kind="dump_missing"))
    if rest:
        findings.append(Finding(DETECTOR, Severity.WARNING,
                                f"{count - len(missing)} more ranks of the recorded process groups or of world_size "
                                f"{world} left no dump (ranks {rest[0]}..{rest[-1]}); the first {MAX_MISSING_NAMED} "
                                "are named above",
                                evidence={"count": count - len(missing), "first": rest[0], "last": rest[-1]},
                                kind="dump_missing"))
    divergences = []
    summary: dict[str, dict[str, Any]] = {}
    for name in sorted(groups):
        by_rank = {r: groups[name].get(r, {}) for r in sorted(members[name]) if r in ranks}
        summary[name] = {"ranks": sorted(by_rank), "last_seq": {str(r): max(s) if s else None
                                                                 for r, s in by_rank.items()}}
        divergence, finding = _compare_group(name, by_rank, {d.rank: d for d in dumps})
        if divergence:
            divergences.append(divergence)
            findings.append(finding)
    waiting = []
    for d in dumps:
        for e in d.entries:
            if e["state"] != "completed":
                waiting.append({"rank": d.rank, "seq": e["seq"], "group": e["group"]["name"], "op": e["op"],
                                "state": e["state"], "call_site": _site(e), "error": e.get("error")})
                cs = e["call_site"]
                findings.append(Finding(
                    DETECTOR, Severity.WARNING,
                    f"rank {d.rank} {'is waiting in' if e['state'] == 'started' else 'failed in'} "
                    f"{_describe(e)} (group {e['group']['name']} seq {e['seq']})"
                    + (f": {e['error']}" if e.get("error") else ""),
                    location={k: v for k, v in (("file", cs.get("file")), ("line", cs.get("line")),
                                                ("function", cs.get("function")), ("op", e["op"]),
                                                ("index", e["seq"])) if v is not None},
                    evidence={"rank": d.rank, "group": e["group"]["name"], "seq": e["seq"], "state": e["state"]},
                    kind="collective_pending"))
    first = min(divergences, key=lambda v: (v["seq"], v["group"])) if divergences else None
    return CollectivesReport(findings, first, waiting, ranks, summary)


analyse_collectives = analyse
load_collective_dumps = load_dumps
