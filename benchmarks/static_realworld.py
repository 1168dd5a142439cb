"""``check leakage`` measured on public code: precision, recall, refused files and time on a labelled corpus.

The corpus is **measured, never copied**: the project keeps only the labels
(``benchmarks/labels/leakage.jsonl``, one JSON object a line) and this script, which reads local checkouts.

Label records (``repo`` is ``owner/name``, ``commit`` the checkout's commit, ``path`` inside it):

* ``{"verdict": "file", ...}``: the file is in the measured set (it is analysed; a refusal counts);
* ``{"verdict": "tp"|"fp", "line", "cell", "kind", "why"}``: a finding of today's or an earlier
  ``check leakage`` judged by reading the code (``cell`` = notebook cell number, ``line`` inside it; the line
  of the fit);
* ``{"verdict": "fn", "line", "cell", "kind", "why"}``: a leak found by reading that the check must report;
* ``"alarms_only": true`` on a file's records: the file was judged by its alarms alone (a breadth wave), not read
  for misses; it counts in precision and the refused rate, never in recall (printed "n/a (alarms only)" when no
  other file is measured);
* ``{"verdict": "leak"|"clean", "suite": "ase22", "why"}``: a file-level verdict on an input of the ASE'22
  authors' repository (``malusamayo/leakage-analysis``, ``tests/inputs``): from their own test expectations
  (``tests/test_preprocessing.py``, ``tests/test_overlap.py``) or, where they give none, by reading.

A finding at ``warning`` or above counts as an alarm (``info`` findings are notes: exploratory fits whose
output reaches no scored model, a cell that does not parse). An alarm at a ``tp``/``fn`` label's line (same
cell) and of its kind is a true positive (of another kind: a false positive, "wrong kind"); at an ``fp``
label's line a false positive; any other alarm is *unjudged* (listed,
never counted as right). Recall = true positives / (``tp`` + ``fn`` labels). A line may carry one record per kind
(a helper module's line reached from a training script and from a test-time script, each with its own kind): an
alarm is judged by the record of its own kind, and by the line's other records only when none has its kind.

Usage::

    python benchmarks/static_realworld.py CORPUS_ROOT [--labels FILE] [--wave NAME...] [--json] [--list-unjudged]
        [--jobs N] [--by-wave]
    python benchmarks/static_realworld.py CORPUS_ROOT --scan REPO_DIR...   # every alarm, for labelling

``--jobs N`` analyses the files in N processes (the numbers do not change; the per-file seconds are each
process's own). ``--by-wave`` adds each labelled wave's precision and recall (one analysis of each file serves all).
``--wave NAME...`` measures only the label records whose ``wave`` field is one of the names (a held-out wave's
first sight, without writing its records to a file of their own); a name no record carries is an error (exit 2).

A repository ``owner/name`` is looked up under ``CORPUS_ROOT`` as ``owner+name``, ``name``,
``i17leak-name``, ``i17leak2-name``, ``i17leak2-owner+name``, ``i17leak3-name``, ``i17leakwave-name``
or ``owner/name``. Labelled at the commits given in the labels: check each repository out at its commit (the
script does not read a checkout's commit -- a checkout may be a plain tree without git -- so a checkout at another
commit is measured anyway, against labels whose lines may have moved). When ``benchmarks/static_realworld_blocking.py`` exists it is
run afterwards with the same ``CORPUS_ROOT``, so one command prints both halves (not with ``--wave`` or
``--scan``: those measure or list leakage labels alone). Always exits 0 (a
measurement, not a test).

Anchor (ASE'22: Yang, Brower-Sinning, Lewis, Kästner, "Data leakage in notebooks: static detection and
better processes", ASE 2022): preprocessing-leakage precision 1.00, recall 0.75 on their 100 labelled notebooks.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from faultlib.readers.files import safe_relative
from faultlib.readers.jsondoc import iter_json_lines

HERE = Path(__file__).resolve().parent
LABELS = HERE / "labels" / "leakage.jsonl"
PAPER = {"precision": 1.00, "recall": 0.75}
GOAL = {"precision": 0.95, "recall": 0.85, "refused": 0.01}


def _repo_dir(root: Path, repo: str) -> Path | None:
    owner, _, name = repo.partition("/")
    owner, name = safe_relative(owner, what="label repo owner"), safe_relative(name, what="label repo name")
    for cand in (root / f"{owner}+{name}", root / f"i17leak2-{owner}+{name}", root / name, root / f"i17leak-{name}",
                 root / f"i17leak2-{name}", root / f"i17leak3-{name}", root / f"i17leakwave-{name}",
                 root / owner / name):
        if cand.is_dir():
            return cand
    return None


def _analyse(path: Path) -> tuple[list[dict], str | None, bool, float]:
    """(alarms and notes as JSON, refusal message or None, complete, seconds)."""
    from faultlib.detect.data.leakage import analyze_file
    from faultlib.errors import InputError

    start = time.perf_counter()
    try:
        report, _ = analyze_file(str(path))
    except InputError as exc:
        return [], str(exc), True, time.perf_counter() - start
    return [f.to_json() for f in report.findings], None, report.complete, time.perf_counter() - start


def _key(rec: dict) -> tuple:
    return rec["repo"], rec["path"], rec.get("cell"), rec.get("line")


def _alarm_key(repo: str, path: str, f: dict) -> tuple:
    loc = f.get("location", {})
    return repo, path, loc.get("index"), loc.get("line")


def _judging(records: list[dict], kind: str) -> dict | None:
    """The record that judges an alarm of ``kind`` at a line: the one of its kind, else a ``tp``/``fn`` one (the
    alarm is of the wrong kind), else any (``None``: the line carries none)."""
    return next((r for r in records if r.get("kind") == kind), None) or next(
        (r for r in records if r["verdict"] in ("tp", "fn")), None) or next(iter(records), None)


def _other_script(base: Path, target: Path, f: dict) -> str | None:
    """The repository path of the script a finding is in, when that is not the analysed ``target``."""
    where = f.get("location", {}).get("file")
    if not where or Path(where) == target:
        return None
    try:
        return Path(where).relative_to(base).as_posix()
    except ValueError:
        return None


def select_waves(labels: list[dict], waves: list[str] | None) -> list[dict]:
    """The label records of the named waves (all records when ``waves`` is None).

    Raises:
        ValueError: a name that no record's ``wave`` field carries (the message lists the known waves).
    """
    if waves is None:
        return labels
    known = {r.get("wave") for r in labels} - {None}
    unknown = [w for w in waves if w not in known]
    if unknown:
        raise ValueError(f"no label record has wave {', '.join(map(repr, unknown))}; "
                         f"known waves: {', '.join(sorted(known)) or 'none'}")
    return [r for r in labels if r.get("wave") in waves]


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 3) if b else None


def analyse_all(targets: list[Path], jobs: int = 1) -> dict[Path, tuple[list[dict], str | None, bool, float]]:
    """:func:`_analyse` of every file, in ``jobs`` worker processes (1: in this process); keyed by path."""
    if jobs <= 1 or len(targets) < 2:
        return {t: _analyse(t) for t in targets}
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return dict(zip(targets, pool.map(_analyse, targets, chunksize=4)))


def measure(root: Path, labels: list[dict],
            analyses: dict[Path, tuple[list[dict], str | None, bool, float]] | None = None) -> dict:
    """Precision, recall and refusals of ``labels`` on the checkouts under ``root``.

    ``analyses`` (from :func:`analyse_all`) holds files already analysed; a file missing from it is analysed here.
    """
    analyses = {} if analyses is None else analyses
    files: dict[tuple[str, str], str] = {}
    verdict: dict[tuple, list[dict]] = {}  # each line's records, one per kind
    ase: dict[tuple[str, str], dict] = {}
    for rec in labels:
        files.setdefault((rec["repo"], rec["path"]), rec.get("commit", ""))
        if rec["verdict"] in ("tp", "fp", "fn"):
            verdict.setdefault(_key(rec), []).append(rec)
        elif rec["verdict"] in ("leak", "clean"):
            ase[(rec["repo"], rec["path"])] = rec
    missing_repos: set[str] = set()
    refused, incomplete, seconds, n = [], [], 0.0, 0
    alarms_by_file: dict[tuple[str, str], list[dict]] = {}
    elsewhere_alarms: dict[tuple[str, str], list[dict]] = {}
    for (repo, path), _commit in sorted(files.items()):
        base = _repo_dir(root, repo)
        if base is None:
            missing_repos.add(repo)
            continue
        target = base / path
        if not target.is_file():
            refused.append({"repo": repo, "path": path, "why": "missing from the checkout"})
            continue
        findings, why, complete, took = analyses[target] if target in analyses else _analyse(target)
        n += 1
        seconds += took
        if why is not None:
            refused.append({"repo": repo, "path": path, "why": why})
        if not complete:
            incomplete.append({"repo": repo, "path": path})
        alarms = [f for f in findings if f["severity"] != "info" and f["kind"] != "analysis_incomplete"]
        for f in alarms:  # a session (several scripts as one program): a finding names its own script
            elsewhere = _other_script(base, target, f)
            if elsewhere is not None:
                elsewhere_alarms.setdefault((repo, elsewhere), []).append(f)
        alarms_by_file[(repo, path)] = [f for f in alarms if _other_script(base, target, f) is None]
    unjudged: list[dict] = []
    for key, extra in elsewhere_alarms.items():
        have = {(_alarm_key(*key, f), f["kind"]) for f in alarms_by_file.get(key, [])}
        for f in extra:
            if (_alarm_key(*key, f), f["kind"]) in have:
                continue
            have.add((_alarm_key(*key, f), f["kind"]))
            if key in alarms_by_file:
                alarms_by_file[key].append(f)
            else:  # a script no label covers
                unjudged.append({"repo": key[0], "path": key[1], "cell": None, "line": f["location"].get("line"),
                                 "kind": f["kind"]})
    tp = fp = 0
    hit: set[tuple] = set()
    fps: list[dict] = []
    for (repo, path), alarms in alarms_by_file.items():
        for f in alarms:
            key = _alarm_key(repo, path, f)
            rec = _judging(verdict.get(key, []), f["kind"])
            if rec is None:
                unjudged.append({"repo": repo, "path": path, "cell": key[2], "line": key[3], "kind": f["kind"]})
            elif rec["verdict"] in ("tp", "fn") and f["kind"] == rec.get("kind", f["kind"]):
                if (key, rec.get("kind")) not in hit:
                    tp += 1
                hit.add((key, rec.get("kind")))
            elif rec["verdict"] in ("tp", "fn"):  # the leak is real, the kind is not
                fp += 1
                fps.append({**{k: rec[k] for k in ("repo", "path", "cell", "line") if k in rec}, "kind": f["kind"],
                            "why": f"wrong kind (the leak is {rec.get('kind')})"})
            else:
                fp += 1
                fps.append({**{k: rec[k] for k in ("repo", "path", "cell", "line") if k in rec}, "kind": f["kind"],
                            "why": rec.get("why")})
    # a file read only for its alarms (an "alarms only" wave) says nothing of what was missed: no recall from it
    alarms_only = {(r["repo"], r["path"]) for r in labels if r.get("alarms_only")}
    positives = [r for recs in verdict.values() for r in recs if r["verdict"] in ("tp", "fn")
                 and (r["repo"], r["path"]) in alarms_by_file and (r["repo"], r["path"]) not in alarms_only]
    fns = [r for r in positives if (_key(r), r.get("kind")) not in hit]
    found = len(positives) - len(fns)
    corpus_repos = sorted({r for r, _ in alarms_by_file if (r, _) not in ase})
    out = {
        "files": n, "repositories": len({r for r, _ in alarms_by_file}), "missing_repositories": sorted(missing_repos),
        "refused": len(refused), "refused_rate": _ratio(len(refused), n), "refused_files": refused,
        "incomplete": incomplete, "seconds": round(seconds, 2),
        "tp": tp, "fp": fp, "fn": len(fns), "found": found, "positives": len(positives), "unjudged": len(unjudged),
        "precision": _ratio(tp, tp + fp), "recall": _ratio(found, len(positives)),
        "alarms_only_files": len(alarms_only & alarms_by_file.keys()),
        "false_positives": fps, "false_negatives": [{k: r.get(k) for k in ("repo", "path", "cell", "line", "kind",
                                                                             "why")} for r in fns],
        "unjudged_alarms": unjudged, "corpus_repositories": corpus_repos,
    }
    # ASE'22 inputs, file level: a leaky file must raise an alarm, a clean one none
    a_tp = a_fp = a_fn = a_tn = 0
    for (repo, path), rec in ase.items():
        if (repo, path) not in alarms_by_file:
            continue
        alarmed = bool(alarms_by_file[(repo, path)])
        if rec["verdict"] == "leak":
            a_tp, a_fn = a_tp + alarmed, a_fn + (not alarmed)
        else:
            a_fp, a_tn = a_fp + alarmed, a_tn + (not alarmed)
    out["ase22"] = {"files": a_tp + a_fp + a_fn + a_tn, "tp": a_tp, "fp": a_fp, "fn": a_fn, "tn": a_tn,
                    "precision": _ratio(a_tp, a_tp + a_fp), "recall": _ratio(a_tp, a_tp + a_fn), "paper": PAPER}
    return out


def _fmt(v: float | None) -> str:
    return "n/a" if v is None else f"{v:.2f}"


def _wave_order(wave: object) -> tuple:
    text = str(wave)
    return (0, int(text), "") if text.isdigit() else (1, 0, text)


def _print(out: dict, list_unjudged: bool) -> None:
    fmt = _fmt
    print(f"check leakage on {out['files']} files of {out['repositories']} repositories "
          f"({out['seconds']:.1f} s analysis, {out['seconds'] / max(out['files'], 1) * 1000:.0f} ms a file)")
    if out["missing_repositories"]:
        print(f"  not found under the corpus root: {', '.join(out['missing_repositories'])}")
    print(f"  {'':24}{'ours':>8}{'goal':>8}{'ASE22 paper':>13}")
    print(f"  {'precision':24}{fmt(out['precision']):>8}{'>=0.95':>8}{'':>13}  (tp {out['tp']}, fp {out['fp']})")
    only = out["alarms_only_files"]
    if out["recall"] is None and only:
        print(f"  {'recall':24}{'n/a (alarms only)':>25}  ({only} files judged by their alarms alone)")
    else:
        note = f"; leaves out {only} alarms-only files" if only else ""
        print(f"  {'recall':24}{fmt(out['recall']):>8}{'>=0.85':>8}{'':>13}  (fn {out['fn']}{note})")
    print(f"  {'refused files':24}{fmt(out['refused_rate']):>8}{'<=0.01':>8}{'':>13}  ({out['refused']})")
    a = out["ase22"]
    print(f"  {'ASE22 inputs precision':24}{fmt(a['precision']):>8}{'':>8}{fmt(PAPER['precision']):>13}  "
          f"(file level, {a['files']} files: tp {a['tp']}, fp {a['fp']}, fn {a['fn']}, tn {a['tn']})")
    print(f"  {'ASE22 inputs recall':24}{fmt(a['recall']):>8}{'':>8}{fmt(PAPER['recall']):>13}")
    print(f"  unjudged alarms: {out['unjudged']} (not counted; label them)")
    print(f"  analysis incomplete: {len(out['incomplete'])} files")
    for title, rows in (("false positives", out["false_positives"]), ("false negatives", out["false_negatives"]),
                        ("refused", out["refused_files"])):
        for r in rows:
            cell = f" cell {r['cell']}" if r.get("cell") else ""
            print(f"  {title[:-1]}: {r['repo']} {r['path']}{cell}:{r.get('line', '')} {r.get('kind', '')} "
                  f"- {r.get('why', '')}"[:200])
    if list_unjudged:
        for r in out["unjudged_alarms"]:
            print(f"  unjudged: {r['repo']} {r['path']} cell {r['cell']} line {r['line']} {r['kind']}")


#: a file that names one of these may fit a model (scikit-learn and imbalanced-learn, the boosting libraries, Keras
#: and PyTorch, statsmodels): ``--scan`` lists it; a file naming none is data plumbing or plotting
MODEL_LIBRARIES = ("sklearn", "imblearn", "lightgbm", "xgboost", "catboost", "keras", "torch", "statsmodels")


def scan(dirs: list[Path]) -> None:
    """Print every alarm (and refusal) of the ``.py``/``.ipynb`` files under ``dirs`` that name a model library
    (:data:`MODEL_LIBRARIES`)."""
    for base in dirs:
        for path in sorted(list(base.rglob("*.py")) + list(base.rglob("*.ipynb"))):
            try:
                text = path.read_text(errors="replace")
            except OSError:
                continue
            if not any(name in text for name in MODEL_LIBRARIES):
                continue
            findings, why, complete, _ = _analyse(path)
            rel = path.relative_to(base)
            print(json.dumps({"dir": base.name, "path": str(rel), "refused": why, "complete": complete,
                              "findings": [{"kind": f["kind"], "severity": f["severity"],
                                            "cell": f["location"].get("index"), "line": f["location"].get("line"),
                                            "message": f["message"][:160]} for f in findings]}))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("root", type=Path, help="folder holding the checkouts, one per repository")
    parser.add_argument("--labels", type=Path, default=LABELS)
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    parser.add_argument("--list-unjudged", action="store_true", help="list alarms that no label judges")
    parser.add_argument("--wave", nargs="+", action="extend", metavar="NAME",
                        help="measure only the label records of these waves (`--wave 70 71` or `--wave 70 --wave 71`)")
    parser.add_argument("--scan", nargs="+", type=Path, metavar="DIR", help="print every alarm under DIR (labelling)")
    parser.add_argument("--jobs", type=int, default=1, metavar="N", help="analyse files in N processes (default 1)")
    parser.add_argument("--by-wave", action="store_true", help="also precision and recall of each labelled wave")
    args = parser.parse_args(argv)
    if args.scan:
        scan(args.scan)
        return 0
    labels = []
    for line in iter_json_lines(args.labels):  # the project's hardened reader: bounded, no links, finite numbers
        if line.error is not None:
            raise line.error
        labels.append(line.value)
    try:
        labels = select_waves(labels, args.wave)
    except ValueError as exc:
        parser.error(f"{args.labels}: {exc}")  # exit 2
    targets = sorted({base / r["path"] for r in labels
                      if (base := _repo_dir(args.root, r["repo"])) is not None and (base / r["path"]).is_file()})
    analyses = analyse_all(targets, args.jobs)
    out = measure(args.root, labels, analyses)
    if args.by_wave:
        out["waves"] = {w: {k: v for k, v in measure(args.root, select_waves(labels, [w]), analyses).items()
                            if k in ("files", "tp", "fp", "fn", "found", "positives", "unjudged", "precision",
                                     "recall")}
                        for w in sorted({r.get("wave") for r in labels} - {None}, key=_wave_order)}
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        _print(out, args.list_unjudged)
        for wave, w in out.get("waves", {}).items():
            print(f"  wave {wave:>8}: P {_fmt(w['precision'])} (tp {w['tp']}, fp {w['fp']})  "
                  f"R {_fmt(w['recall'])} ({w['found']}/{w['positives']})  unjudged {w['unjudged']}")
    blocking = HERE / "static_realworld_blocking.py"
    if blocking.is_file() and not (args.wave or args.scan):  # a wave or a labelling scan is leakage's alone
        sys.stdout.flush()
        subprocess.run([sys.executable, str(blocking), str(args.root), *(["--json"] if args.json else [])], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
