"""`faultlib check blocking` measured on public async services (labels only; the code stays outside).

The corpus is described by ``benchmarks/labels/blocking_corpus.json`` (one entry per service:
``name``, ``repository``, ``commit``, ``scan`` -- the folder of the checkout that is the service --,
``checkout`` -- the checkout's folder name when it is not ``name`` --, ``alarms_only`` -- true when only the alarms were judged in full and the misses were
sampled (the busiest ``async def`` handlers read, not every async path): its recall is printed as ``sampled``, apart,
and the service is left out of the overall recall (it counts in precision) --, ``heldout`` -- the wave (1, 2, ...)
in which the service was first measured only after the tool's rules were frozen; a later wave's rules may
have been fixed on an earlier wave's misses, so only the newest wave is unseen; scores are printed per
wave --,
``exclude`` -- folder names left out --, ``outside`` -- top-level folders of the checkout beside a one-level
``scan`` that the service imports (the repository's own packages): copied beside it, as in the repository, so that
the tool finds them there, and their labels count --, and for a snapshot taken just before a documented
"blocking the event loop" fix, ``fix`` {``commit``, ``path``, ``lines``, and ``also`` {path: lines} for a fix
that changed more files}: a fixed line counts as found when
a finding is at it, when a finding's call path from its ``async def`` runs through it, or when it is one of the
lines where another coroutine calls into that path (the finding's ``entry_calls``) -- a fix made at the
caller, ``await asyncio.to_thread(helper, ...)`` or an ``async def`` turned into a ``def``, the line of that
``async def`` included, for the finding's first entry and for every entry its ``entry_calls`` name); the verdicts are
``benchmarks/labels/blocking.jsonl`` (one object a line: ``repository``, ``commit``, ``path``
(relative to the checkout), ``line``, ``kind``, ``verdict`` -- ``tp`` a blocker the tool reports,
``fp`` a report that is not a blocker, ``fn`` a blocker found by reading that the tool missed
when it was labelled --, ``why``). Labels are judged by reading the code; a finding is matched
to a label by path and line.

Each service is copied (``.py`` files only, and the dependency files of its folder and the folders above it:
``pyproject.toml``, ``requirements*.txt``, ``setup.cfg``, ``uv.lock``, ``poetry.lock``, placed beside it) into a
temporary folder without its tests
(``tests/``/``test/`` folders, ``test_*.py``, ``*_test.py``, ``conftest.py``: a blocking call in a
test's own ``async def`` is not a service blocker) and without ``exclude``; it is analysed once,
in-process, with the analysis timed. Reported per service: files, findings, tp/fp/unlabelled,
misses, precision, recall, files refused (not valid Python for this interpreter), seconds. Then
overall precision = tp / (tp + fp) over labelled findings and recall = found / (tp + fn labels).
Peers, when installed (benchmark tools, not project dependencies): ruff's ``ASYNC2xx`` rules and
flake8-async's ``ASYNC2xx`` (their blocking-call rules), scored against the same labels.

Speed: the entry with ``"speed": true`` is also scanned as shipped (its tests included), and the
largest file of it alone; the ratio printed is the analysis time over the time to parse the same
files with :func:`ast.parse`, both measured in this run. Goals (issue 17): precision >= 0.95,
recall >= 0.90, the ~220-file service < 5 s, one file < 0.5 s. The script always exits 0.

Installed libraries: the tool follows calls into the libraries installed where it runs (its own dependencies
here; the labels were made without the services' dependencies installed). ``--site-packages DIR`` (repeatable) looks
for them in DIR instead (a virtual environment where a service's dependencies are installed);
``--no-follow-installed`` follows none.
``benchmarks/labels/blocking_installed.jsonl`` holds the verdicts that only a walk into a service's installed
dependencies reports, judged by reading the library's source; each names the distribution and the version it was
judged on (``benchmarks/labels/blocking_installed_requirements.txt`` lists one environment that has them all). A
verdict counts when that version is installed where the tool follows libraries, and never with
``--no-follow-installed``: in faultlib's own environment that is opentelemetry-sdk's ``Resource.create`` (4 alarms
judged fp); everything else is as without following.

Ablation (measuring rules that infer what the vocabulary does not list, benchmark-only): ``--drop-family PKG``
(repeatable) removes every vocabulary entry of the package ``PKG`` (its families' types, its calls, returns and
conditions) for this run, as if nobody had listed it; ``--no-inference`` turns off the inference of synchronous
clients from evidence (:mod:`faultlib.detect.serving.blocking.inferred`). ``blocking_ablation.py`` runs the four
combinations and counts, per dropped family, the true positives the inference finds alone.

Usage: ``python benchmarks/static_realworld_blocking.py CORPUS_ROOT [--prefix P] [--only NAME ...]
[--no-peers] [--site-packages DIR ...] [--no-follow-installed] [--drop-family PKG ...] [--no-inference] [--json]``;
CORPUS_ROOT holds one checkout per service, named ``P + name``.
"""

from __future__ import annotations

import argparse
import ast
import functools
import gc
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from faultlib.detect.serving.blocking import analyze_path
from faultlib.readers.files import safe_relative
from faultlib.readers.jsondoc import iter_json_lines, load_json_file

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "labels" / "blocking_corpus.json"
LABELS = HERE / "labels" / "blocking.jsonl"
LABELS_INSTALLED = HERE / "labels" / "blocking_installed.jsonl"
TEST_DIRS = {"tests", "test", "testing"}
PEER_CODES = ("ASYNC2",)  # the blocking-call rules of ruff and flake8-async (ASYNC210...ASYNC251)
GOALS = {"precision": 0.95, "recall": 0.90, "service_s": 5.0, "file_s": 0.5}
FOLLOW: dict = {}
"""How the tool follows installed libraries (``analyze_path``'s ``follow_installed``/``site_dirs``), from the options."""


def _is_test(rel: Path) -> bool:
    name = rel.name
    return (any(p in TEST_DIRS for p in rel.parts[:-1]) or name.startswith("test_") or name.endswith("_test.py")
            or name == "conftest.py")


def copy_service(src: Path, dest: Path, exclude: list[str], keep_tests: bool = False) -> int:
    """Copy the ``.py`` files of ``src`` into ``dest`` (tests and ``exclude`` folders left out); how many."""
    count = 0
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames[:] = [d for d in dirnames if d not in exclude and not d.startswith(".")]
        for name in filenames:
            path = Path(dirpath) / name
            rel = path.relative_to(src)
            if not name.endswith(".py") or path.is_symlink() or (not keep_tests and _is_test(rel)):
                continue
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest / rel)
            count += 1
    return count


def installed_versions(site_dirs: list[Path] | None) -> dict[str, str]:
    """Installed distributions (normalised name -> version) where the tool follows libraries: ``site_dirs`` or,
    without them, this interpreter's ``sys.path`` (the same places the check reads)."""
    from importlib.metadata import distributions

    found: dict[str, str] = {}
    for dist in distributions(**({"path": [str(d) for d in site_dirs]} if site_dirs else {})):
        name = dist.metadata["Name"]
        if name:
            found.setdefault(name.lower().replace("_", "-").replace(".", "-"), dist.version)
    return found


def load_labels(installed: dict[str, str] | None = None) -> dict[tuple[str, str], dict[tuple[str, int], dict]]:
    """The verdicts by (repository, commit) and (path, line). ``installed`` (distribution -> version, see
    :func:`installed_versions`): also the verdicts of :data:`LABELS_INSTALLED` whose library (``"Name version"``,
    the version it was judged on) is installed at that version where the tool follows libraries; a verdict judged
    inside a library that is absent or at another version does not count (the tool cannot see it there)."""
    labels: dict[tuple[str, str], dict[tuple[str, int], dict]] = {}
    for source in [LABELS, *([LABELS_INSTALLED] if installed else [])]:
        for line in iter_json_lines(source):  # the project's hardened reader: bounded, no links, finite numbers
            if line.error is not None:
                raise line.error
            row = line.value
            if source is LABELS_INSTALLED:
                name, _, version = str(row.get("library", "")).rpartition(" ")
                if installed.get(name.lower().replace("_", "-").replace(".", "-")) != version:
                    continue
            labels.setdefault((row["repository"], row["commit"]), {})[(row["path"], int(row["line"]))] = row
    return labels


def score(found: set[tuple[str, int]], labels: dict[tuple[str, int], dict]) -> dict:
    positive = {k for k, r in labels.items() if r["verdict"] in ("tp", "fn")}
    negative = {k for k, r in labels.items() if r["verdict"] == "fp"}
    tp, fp = found & positive, found & negative
    missed = sorted(positive - found)
    return {"tp": len(tp), "fp": len(fp), "unlabelled": sorted(found - positive - negative), "missed": missed,
            "positives": len(positive), "precision": len(tp) / (len(tp) + len(fp)) if tp or fp else None,
            "recall": len(tp) / len(positive) if positive else None}


def _key_path(file: str | Path, root: Path, scan: str) -> str:
    """A reported file's path in the checkout: under the scanned folder, or beside it (``outside``)."""
    try:
        return (Path(scan) / Path(file).relative_to(root)).as_posix()
    except ValueError:  # a package of the repository read from beside the scanned folder
        return Path(file).relative_to(root.parent).as_posix()


def run_tool(root: Path, scan: str) -> tuple[set[tuple[str, int]], dict]:
    from faultlib.errors import InputError

    start, cpu = time.perf_counter(), time.process_time()
    try:
        report = analyze_path(root, **FOLLOW)
    except InputError as exc:  # the whole service refused (before per-file skipping)
        n = sum(1 for _ in root.rglob("*.py"))
        return set(), {"files": n, "seconds": time.perf_counter() - start, "cpu_s": time.process_time() - cpu,
                       "refused": n, "complete": False, "findings": 0, "kinds": {}, "error": str(exc)}
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    found: set[tuple[str, int]] = set()
    plain: set[tuple[str, int]] = set()  # lines with a finding that is no inference (blocking/inferred.py)
    kinds: dict[tuple[str, int], str] = {}
    via: set[tuple[str, int]] = set()  # the call sites on the findings' paths from their async def
    for f in report.findings:
        if f.kind == "analysis_incomplete" or "file" not in f.location:
            continue
        key = (_key_path(f.location["file"], root, scan), int(f.location["line"]))
        found.add(key)
        if "inferred" not in f.evidence:
            plain.add(key)
        kinds[key] = f"{f.kind} {f.evidence.get('calls', '')}"
        for step in f.evidence.get("chain", []):
            if step.get("file") and step.get("line"):
                via.add((_key_path(step["file"], root, scan), int(step["line"])))
        entries = [(f.evidence["entry_file"], f.evidence["entry"])] if f.evidence.get("entry_file") and f.evidence.get(
            "entry") else []
        for step in f.evidence.get("entry_calls", []):  # where each other coroutine calls into the blocker
            if step.get("file") and step.get("line"):
                via.add((_key_path(step["file"], root, scan), int(step["line"])))
                entries.append((step["file"], step.get("function")))
        for entry_file, entry in entries:  # the `async def` line of each entry the finding names
            line = _def_line(Path(entry_file), entry) if entry else None
            if line is not None:
                via.add((_key_path(Path(entry_file), root, scan), line))
    refused = [s for s in report.skipped if "not valid Python" in s or "cannot be parsed" in s]
    return found, {"files": len(report.files), "seconds": seconds, "cpu_s": cpu, "refused": len(refused),
                   "complete": report.complete, "findings": len(found), "kinds": kinds, "via": via, "plain": plain}


def _def_line(path: Path, qualname: str) -> int | None:
    """The line of the ``def``/``async def`` named ``qualname`` (``Class.method``) in ``path``, or None."""
    tree = _parsed(path)
    if tree is None:
        return None
    todo = [(node, "") for node in tree.body]
    while todo:
        node, prefix = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = prefix + node.name
            if name == qualname and not isinstance(node, ast.ClassDef):
                return node.lineno
            inner = name + (".<locals>." if not isinstance(node, ast.ClassDef) else ".")
            todo.extend((child, inner) for child in node.body)
    return None


@functools.lru_cache(maxsize=64)
def _parsed(path: Path) -> ast.Module | None:
    """``path`` parsed once per run (a service's findings name the same handlers' files many times), or None."""
    try:
        return ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except SyntaxError:
        return None


def run_peer(argv: list[str], root: Path, scan: str, timeout: float = 600) -> set[tuple[str, int]] | str | None:
    """The peer's blocking-call findings; None when it is not installed, ``"timeout"`` when it ran out of time."""
    beside = Path(sys.executable).parent / argv[0]  # the benchmark's own environment first
    exe = str(beside) if beside.is_file() else shutil.which(argv[0])
    if exe is None:
        return None
    try:
        proc = subprocess.run([exe, *argv[1:], str(root)], capture_output=True, text=True, timeout=timeout,
                              check=False)
    except subprocess.TimeoutExpired:
        return "timeout"
    found = set()
    for line in proc.stdout.splitlines():  # path:line:col: CODE message
        parts = line.split(":", 3)
        if len(parts) == 4 and parts[3].strip().startswith(PEER_CODES) and parts[1].isdigit():
            rel = Path(parts[0]).resolve().relative_to(root.resolve())
            found.add(((Path(scan) / rel).as_posix(), int(parts[1])))
    return found


PEERS = {"ruff ASYNC": ["ruff", "check", "--isolated", "--no-cache", "--select", "ASYNC", "--output-format",
                        "concise", "--exit-zero"],
         "flake8-async": ["flake8", "--select", "ASYNC", "--exit-zero"]}


def speed(checkout: Path, entry: dict) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / Path(entry["scan"]).name
        n = copy_service(checkout / entry["scan"], root, entry.get("exclude", []), keep_tests=True)
        files = sorted(root.rglob("*.py"))
        start = time.process_time()
        for f in files:
            try:
                ast.parse(f.read_text(encoding="utf-8", errors="replace"))
            except SyntaxError:
                pass
        parse_s = time.process_time() - start
        start, wall = time.process_time(), time.perf_counter()
        report = analyze_path(root, **FOLLOW)
        scan_s, wall = time.process_time() - start, time.perf_counter() - wall
        biggest = max(files, key=lambda f: f.stat().st_size)
        analysed = len(report.files)
        del report
        gc.collect()  # the whole service's index is garbage now: its collection is not the single file's time
        start = time.process_time()
        analyze_path(biggest, **FOLLOW)
        file_s = time.process_time() - start
        return {"service": entry["name"], "files": n, "analysed": analysed, "scan_s": scan_s, "wall_s": wall,
                "parse_s": parse_s, "ratio": scan_s / parse_s if parse_s else None, "biggest_file": biggest.name,
                "biggest_lines": len(biggest.read_text(encoding="utf-8", errors="replace").splitlines()),
                "file_s": file_s}


def _dropped(name: str, packages: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(f"{p}.") for p in packages)


def drop_families(packages: list[str]) -> None:
    """Make the vocabulary of this process forget ``packages`` (see :func:`vocabulary_without`). Benchmark-only: it
    replaces :func:`faultlib.detect.serving.blocking.vocab.vocabulary` for this process."""
    from faultlib.detect.serving.blocking import vocab

    forgot = vocabulary_without(vocab.vocabulary(), packages)
    vocab.vocabulary = lambda: forgot


def vocabulary_without(merged, packages: list[str]):
    """``merged`` (a :class:`~faultlib.detect.serving.blocking.vocab.Merged`) without the packages ``packages``
    (top-level names: ``mattermostdriver``): a family keeps only its other types (dropped when none is left), and
    calls, returns, conditions and reads of the packages go."""
    import dataclasses

    from faultlib.detect.serving.blocking import vocab

    names = tuple(packages)
    families = []
    for family in merged.families:
        kept = tuple(t for t in family.types if not _dropped(t.rstrip("."), names))
        if kept:
            families.append(family if kept == family.types else dataclasses.replace(family, types=kept))
    return vocab.Merged(
        {k: v for k, v in merged.calls.items() if not _dropped(k, names)}, tuple(families),
        {k: v for k, v in merged.returns.items() if not _dropped(k, names) and not _dropped(v, names)},
        merged.plugins, merged.failed, {k: v for k, v in merged.when.items() if not _dropped(k, names)},
        {k: v for k, v in merged.reads.items() if not _dropped(k, names)})


def no_inference() -> None:
    """Turn off the inference of synchronous clients from evidence for this process (benchmark-only)."""
    from faultlib.detect.serving.blocking import inferred

    inferred.site = lambda index, target, call, func: None


def service_labels(entry: dict, labels: dict) -> dict[tuple[str, int], dict]:
    """The labels of the corpus ``entry`` (:func:`load_labels`'s), inside its scanned and ``outside`` folders."""
    inside = "" if entry["scan"] in (".", "") else entry["scan"].rstrip("/") + "/"
    beside = tuple(f"{safe_relative(o, what='outside folder')}/" for o in entry.get("outside", []))
    return {k: v for k, v in labels.get((entry["repository"], entry["commit"]), {}).items()
            if k[0].startswith((inside, *beside)) and not any(f"/{x}/" in f"/{k[0]}" for x in entry.get("exclude", []))}


def copy_entry(entry: dict, checkout: Path, tmp: Path) -> Path:
    """Copy the service of the corpus ``entry`` from ``checkout`` into ``tmp`` (:func:`copy_service`, with its
    ``outside`` packages beside it, where the tool looks); the folder to analyse."""
    root = tmp / (Path(entry["scan"]).name or "service")
    if entry.get("outside"):  # the repository's packages beside the scanned folder, where the tool looks
        root = tmp / "checkout" / Path(entry["scan"]).name
        for folder in entry["outside"]:
            copy_service(checkout / folder, root.parent / folder, entry.get("exclude", []))
    copy_service(checkout / entry["scan"], root, entry.get("exclude", []))
    copy_declarations(checkout, Path(entry["scan"]), root)
    return root


DECLARATIONS = ("pyproject.toml", "setup.cfg", "uv.lock", "poetry.lock")
"""Dependency files (besides ``requirements*.txt``) the tool reads to learn which version of a framework the service
installs (:mod:`faultlib.detect.serving.blocking.fastmcp_pins`)."""


def copy_declarations(checkout: Path, scan: Path, root: Path) -> None:
    """Copy the dependency files of the scanned folder into ``root`` and those of the folders above it in the
    checkout (its root included) beside ``root`` (into its parent): the tool looks for them there."""
    folders = [checkout / scan, *(checkout / p for p in scan.parents)] if str(scan) not in ("", ".") else [checkout]
    for i, folder in enumerate(folders):
        dest = root if i == 0 else root.parent
        for path in sorted(folder.glob("*")) if folder.is_dir() else ():
            if path.is_file() and not path.is_symlink() and (path.name in DECLARATIONS or (
                    path.name.startswith("requirements") and path.suffix == ".txt")) and not (dest / path.name).exists():
                shutil.copyfile(path, dest / path.name)


def _wave(entry: dict) -> str:
    wave = entry.get("heldout")
    return "tuning" if not wave else f"held-out {wave}"


def _wave_order(name: str) -> tuple[int, int]:
    """``held-out 2`` before ``held-out 10``; ``tuning`` last."""
    return (1, 0) if name == "tuning" else (0, int(name.rpartition(" ")[2]))


def _fmt(x) -> str:
    return "-" if x is None else f"{x:.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus_root", type=Path)
    parser.add_argument("--prefix", default="", help="checkout folder name = PREFIX + service name")
    parser.add_argument("--only", nargs="*", help="only these services")
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--peer", action="append", choices=sorted(PEERS),
                        help="run only this peer (repeatable; flake8-async is slow: ~10 min for 1,500 files)")
    parser.add_argument("--peer-timeout", type=float, default=600, help="seconds per service for a peer")
    parser.add_argument("--site-packages", action="append", type=Path, metavar="DIR",
                        help="look for installed libraries in DIR (repeatable) instead of this interpreter's")
    parser.add_argument("--no-follow-installed", action="store_true", help="follow no installed library")
    parser.add_argument("--drop-family", action="append", default=[], metavar="PKG",
                        help="forget the vocabulary entries of package PKG (repeatable; ablation)")
    parser.add_argument("--no-inference", action="store_true",
                        help="turn off the inference of synchronous clients from evidence (ablation)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.drop_family:
        drop_families(args.drop_family)
    if args.no_inference:
        no_inference()
    FOLLOW.clear()
    FOLLOW.update({"follow_installed": not args.no_follow_installed, "site_dirs": args.site_packages})
    corpus = load_json_file(CORPUS)
    labels = load_labels(None if args.no_follow_installed else installed_versions(args.site_packages))
    peers = {} if args.no_peers else {k: v for k, v in PEERS.items() if not args.peer or k in args.peer}
    tools = {"faultlib": None} | peers
    totals = {t: {"tp": 0, "fp": 0, "positives": 0, "unlabelled": 0, "found": 0} for t in tools}
    sampled = {"tp": 0, "positives": 0, "services": 0}  # alarms_only services: misses sampled, recall apart
    groups: dict[str, dict[str, int]] = {}  # faultlib's totals per held-out wave ("tuning": never held out)
    rows, fixes, speeds, absent = [], [], [], []
    for entry in corpus:
        if args.only and entry["name"] not in args.only:
            continue
        checkout = args.corpus_root / safe_relative(f"{args.prefix}{entry.get('checkout', entry['name'])}",
                                                    what="corpus checkout")
        if entry["scan"] not in (".", ""):  # a folder inside the checkout, never one beside it
            safe_relative(entry["scan"].rstrip("/"), what=f"{entry['name']}: scan")
        if not (checkout / entry["scan"]).is_dir() and not (checkout / entry["scan"]).is_file():
            absent.append(entry["name"])
            continue
        own = service_labels(entry, labels)
        row = {"service": entry["name"], "repository": entry["repository"], "commit": entry["commit"]}
        with tempfile.TemporaryDirectory() as tmp:
            root = copy_entry(entry, checkout, Path(tmp))
            for tool, cmd in tools.items():
                if cmd is None:
                    found, meta = run_tool(root, entry["scan"])
                    kinds, via, _ = meta.pop("kinds"), meta.pop("via"), meta.pop("plain")
                    row.update(meta)
                else:
                    found = run_peer(cmd, root, entry["scan"], args.peer_timeout)
                    if found is None:
                        continue
                    if found == "timeout":
                        row[tool] = "timeout"
                        totals[tool]["timeouts"] = totals[tool].get("timeouts", 0) + 1
                        continue
                s = score(found, own)
                if cmd is None:
                    s["unlabelled"] = [(*key, kinds[key]) for key in s["unlabelled"]]
                    s["found"] = [(*key, kinds[key], own.get(key, {}).get("verdict")) for key in sorted(found)]
                row[tool] = s
                for k in ("tp", "fp"):
                    totals[tool][k] += s[k]
                if entry.get("alarms_only"):  # misses only sampled: precision counts, recall printed apart
                    if cmd is None:
                        sampled["tp"] += s["tp"]
                        sampled["positives"] += s["positives"]
                        sampled["services"] += 1
                        s["recall_sampled"] = True
                else:
                    totals[tool]["found"] += s["tp"]
                    totals[tool]["positives"] += s["positives"]
                if cmd is None:
                    group = groups.setdefault(_wave(entry), {"tp": 0, "fp": 0, "positives": 0, "services": 0,
                                                             "sampled": 0})
                    group["sampled"] += bool(entry.get("alarms_only"))
                    group["services"] += 1
                    for k in ("tp", "fp", "positives"):
                        group[k] += s[k]
                totals[tool]["unlabelled"] += len(s["unlabelled"])
                if tool == "faultlib" and entry.get("fix"):
                    fix = entry["fix"]
                    want = {(fix["path"], line) for line in fix["lines"]} | {
                        (path, line) for path, lines in fix.get("also", {}).items() for line in lines}
                    hit = want & (found | via)  # reported there, or a reported blocker's path runs through the line
                    fixes.append({"service": entry["name"], "fixed_in": fix["commit"], "lines": sorted(want),
                                  "found": sorted(hit), "missed": sorted(want - hit)})
        rows.append(row)
        if entry.get("speed"):
            speeds.append(speed(checkout, entry))
    overall = {t: {**v, "precision": v["tp"] / (v["tp"] + v["fp"]) if v["tp"] + v["fp"] else None,
                   "recall": v["found"] / v["positives"] if v["positives"] else None} for t, v in totals.items()}
    sampled["recall"] = sampled["tp"] / sampled["positives"] if sampled["positives"] else None
    waves = {g: {**v, "precision": v["tp"] / (v["tp"] + v["fp"]) if v["tp"] + v["fp"] else None,
                 "recall": v["tp"] / v["positives"] if v["positives"] else None} for g, v in sorted(groups.items(), key=lambda item: _wave_order(item[0]))}
    result = {"services": rows, "overall": overall, "sampled": sampled, "waves": waves, "fixes": fixes, "speed": speeds,
              "absent": absent, "goals": GOALS}
    if args.json:
        print(json.dumps(result, indent=1, default=list))
        return 0
    print(f"{'service':<22} {'files':>5} {'ref':>3} {'tp':>4} {'fp':>3} {'new':>3} {'fn':>3} {'prec':>5} "
          f"{'recall':>6} {'sec':>6}")
    for r in rows:
        s = r["faultlib"]
        recall = _fmt(s["recall"]) + ("s" if s.get("recall_sampled") else "")
        print(f"{r['service'][:22]:<22} {r['files']:>5} {r['refused']:>3} {s['tp']:>4} {s['fp']:>3} "
              f"{len(s['unlabelled']):>3} {len(s['missed']):>3} {_fmt(s['precision']):>5} {recall:>6} "
              f"{r['cpu_s']:>6.2f}")
    print("\n(ref = files not valid Python here, left out; new = findings without a label; fn = labelled "
          "blockers not reported; sec = CPU seconds of the analysis; recall ending in s: sampled, see below)")
    for tool, o in overall.items():
        print(f"{tool:<13} precision {_fmt(o['precision'])}  recall {_fmt(o['recall'])}  "
              f"(tp {o['tp']}, fp {o['fp']}, blockers {o['positives']}, unlabelled {o['unlabelled']})"
              + (f"; timed out on {o['timeouts']} service(s), left out of its numbers" if o.get("timeouts") else ""))
    if sampled["services"]:
        print(f"sampled recall {_fmt(sampled['recall'])} (tp {sampled['tp']}, blockers {sampled['positives']}, "
              f"{sampled['services']} alarms_only services: misses read only in their busiest async handlers, so an "
              "upper bound; left out of the recall above)")
    for g, v in waves.items():
        kind = "sampled recall" if v["sampled"] == v["services"] else (
            "recall" if not v["sampled"] else "recall (partly sampled)")
        print(f"  {g:<11} precision {_fmt(v['precision'])}  {kind} {_fmt(v['recall'])}  (tp {v['tp']}, fp {v['fp']}, "
              f"blockers {v['positives']}, {v['services']} services)")
    for f in fixes:
        print(f"fix {f['fixed_in'][:10]} ({f['service']}): fixed lines {len(f['lines'])}, found {len(f['found'])}"
              + (f", missed {f['missed']}" if f["missed"] else ""))
    for s in speeds:
        print(f"speed {s['service']}: {s['files']} files in {s['scan_s']:.2f} s CPU ({s['wall_s']:.2f} s wall; goal < "
              f"{GOALS['service_s']} s; "
              f"{_fmt(s['ratio'])}x the time to parse them, {s['parse_s']:.2f} s); biggest file {s['biggest_file']} "
              f"({s['biggest_lines']} lines) alone {s['file_s']:.2f} s (goal < {GOALS['file_s']} s)")
    for r in rows:
        for path, line, kind in r["faultlib"]["unlabelled"]:
            print(f"unlabelled {r['service']}: {path}:{line} {kind}")
        for key in r["faultlib"]["missed"]:
            print(f"missed {r['service']}: {key[0]}:{key[1]}")
    if absent:
        print(f"not in {args.corpus_root}: {', '.join(absent)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
