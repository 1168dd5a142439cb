"""`faultlib check resume` on public training scripts with a resume path, against hand labels.

The labels (``benchmarks/labels/resume.jsonl``: repository, commit, path, the findings a careful reader
expects as ``[kind, object]`` pairs, and why) were written by reading each script; the scripts themselves
are not in this repository. Check them out (any way; e.g. the `fetch` tool and ``git archive``) under
ROOT as ``ROOT/<name>/<path>`` or ``ROOT/i19-<name>/<path>``, where ``<name>`` is the repository's name
without its owner, at the labelled commit.

Usage: ``python benchmarks/resume_realworld.py ROOT [--json]``. Prints one row per script (agreement,
true/false positives, misses) and the precision and recall over findings; scripts missing under ROOT
are listed as skipped. Always exits 0.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from faultlib.detect.training.resume import analyze_resume_file

LABELS = Path(__file__).parent / "labels" / "resume.jsonl"


def locate(root: Path, label: dict) -> Path | None:
    name = label["repo"].split("/", 1)[1]
    for candidate in (root / name / label["path"], root / f"i19-{name}" / label["path"]):
        if candidate.is_file():
            return candidate
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="directory holding the checkouts")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows, tp, fp, fn = [], 0, 0, 0
    for line in LABELS.read_text(encoding="utf-8").splitlines():
        label = json.loads(line)
        path = locate(args.root, label)
        if path is None:
            rows.append({"repo": label["repo"], "path": label["path"], "skipped": "not checked out"})
            continue
        report = analyze_resume_file(str(path))
        found = {(f.kind, str(f.evidence.get("object", ""))) for f in report.findings}
        expected = {tuple(e) for e in label["expected"]}
        tp, fp, fn = tp + len(found & expected), fp + len(found - expected), fn + len(expected - found)
        rows.append({"repo": label["repo"], "commit": label["commit"][:12], "path": label["path"],
                     "right": found == expected, "found": sorted(map(list, found)),
                     "false_positives": sorted(map(list, found - expected)),
                     "missed": sorted(map(list, expected - found))})
    judged = [r for r in rows if "right" in r]
    summary = {"scripts": len(judged), "right": sum(r["right"] for r in judged),
               "precision": tp / (tp + fp) if tp + fp else None, "recall": tp / (tp + fn) if tp + fn else None,
               "true_positives": tp, "false_positives": fp, "missed": fn}
    if args.json:
        print(json.dumps({"rows": rows, "summary": summary}, indent=2))
        return
    for r in rows:
        if "skipped" in r:
            print(f"{r['repo']}/{r['path']}: skipped ({r['skipped']})")
            continue
        verdict = "right" if r["right"] else f"FP {r['false_positives']} missed {r['missed']}"
        print(f"{r['repo']}@{r['commit']} {r['path']}: {len(r['found'])} finding(s), {verdict}")
    print(f"{summary['right']}/{summary['scripts']} scripts right; precision {summary['precision']}, "
          f"recall {summary['recall']} ({tp} true, {fp} false, {fn} missed findings)")


if __name__ == "__main__":
    main()
