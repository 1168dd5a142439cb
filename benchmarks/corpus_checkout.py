"""Bring the labelled corpora of ``static_realworld.py`` and ``static_realworld_blocking.py`` back onto a machine.

The project keeps labels only; the code they judge lives in public repositories. On a new machine the checkouts
are gone, and a session may fetch only so many repositories, so this script says which to bring back first and
writes a checkout from a fetched git directory:

* ``list``: one tab-separated line a checkout -- weight (the labels a checkout carries: ``tp``/``fp``/``fn``
  verdicts, so recall and precision come back first), check (``leakage``/``blocking``), repository
  ``owner/name``, commit, and the folder name under the corpus root that the measuring script looks for
  (``owner+name`` for leakage, ``<prefix><checkout or name>`` for blocking) -- heaviest first, skipping those
  already under ``--root``;
* ``extract GITDIR COMMIT DEST``: the tree of ``COMMIT`` in the git directory ``GITDIR`` (a bare mirror) written to
  ``DEST`` with ``git ls-tree``/``git cat-file --batch``: regular files only (no symbolic links, no submodules),
  paths kept inside ``DEST``, blobs absent from a partial mirror skipped and counted.

Usage::

    python benchmarks/corpus_checkout.py list [--check leakage|blocking] [--root CORPUS_ROOT] [--prefix blk-]
    python benchmarks/corpus_checkout.py extract GITDIR COMMIT DEST

Exit 0; 2 on a usage error or a commit the git directory does not have.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path, PurePosixPath

from faultlib.readers.jsondoc import iter_json_lines

HERE = Path(__file__).resolve().parent
LEAKAGE = HERE / "labels" / "leakage.jsonl"
BLOCKING = HERE / "labels" / "blocking.jsonl"
BLOCKING_CORPUS = HERE / "labels" / "blocking_corpus.json"


def _records(path: Path) -> list[dict]:
    out = []
    for line in iter_json_lines(path):
        if line.error is not None:
            raise line.error
        out.append(line.value)
    return out


def leakage_checkouts() -> list[tuple[int, str, str, str, str]]:
    """(weight, check, repository, commit, folder) of every labelled leakage repository."""
    weight: Counter[tuple[str, str]] = Counter()
    for rec in _records(LEAKAGE):
        key = (rec["repo"], rec.get("commit", ""))
        weight[key] += rec.get("verdict") in ("tp", "fp", "fn", "leak", "clean")
    return [(w, "leakage", repo, commit, repo.replace("/", "+")) for (repo, commit), w in weight.items()]


def blocking_checkouts(prefix: str) -> list[tuple[int, str, str, str, str]]:
    """(weight, check, repository, commit, folder) of every service of the blocking corpus."""
    weight: Counter[tuple[str, str]] = Counter()
    for rec in _records(BLOCKING):
        weight[(rec["repository"], rec["commit"])] += rec.get("verdict") in ("tp", "fp", "fn")
    entries = json.loads(BLOCKING_CORPUS.read_text())
    return [(weight[(e["repository"], e["commit"])], "blocking", e["repository"], e["commit"],
             prefix + e.get("checkout", e["name"])) for e in entries]


def extract(gitdir: Path, commit: str, dest: Path) -> tuple[int, int]:
    """Write the regular files of ``commit``'s tree under ``dest``; returns (files written, blobs missing).

    Raises:
        ValueError: the git directory does not have ``commit``.
    """
    listing = subprocess.run(["git", f"--git-dir={gitdir}", "ls-tree", "-r", "-z", "--full-tree", commit],
                             capture_output=True, check=False)
    if listing.returncode != 0:
        raise ValueError(f"{gitdir}: no commit {commit}: {listing.stderr.decode(errors='replace').strip()}")
    blobs: list[tuple[str, PurePosixPath]] = []
    for entry in listing.stdout.split(b"\0"):
        if not entry:
            continue
        meta, _, name = entry.partition(b"\t")
        mode, kind, sha = meta.decode().split()
        rel = PurePosixPath(name.decode(errors="surrogateescape"))
        if kind != "blob" or mode == "120000" or rel.is_absolute() or ".." in rel.parts:
            continue  # submodules, symbolic links, paths that would leave DEST
        blobs.append((sha, rel))
    written = missing = 0
    proc = subprocess.Popen(["git", f"--git-dir={gitdir}", "cat-file", "--batch"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    for sha, rel in blobs:
        proc.stdin.write(sha.encode() + b"\n")
        proc.stdin.flush()
        header = proc.stdout.readline().split()
        if len(header) < 3 or header[1] == b"missing":
            missing += 1
            continue
        body = proc.stdout.read(int(header[2]))
        proc.stdout.read(1)  # the newline after each object
        target = dest.joinpath(*rel.parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_symlink():
            continue
        target.write_bytes(body)
        written += 1
    proc.stdin.close()
    proc.wait()
    return written, missing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    lst = sub.add_parser("list", help="checkouts to bring back, heaviest first")
    lst.add_argument("--check", choices=("leakage", "blocking"), help="one corpus only (default: both)")
    lst.add_argument("--root", type=Path, help="skip checkouts already under this corpus root")
    lst.add_argument("--prefix", default="blk-", help="folder prefix of blocking checkouts (default blk-)")
    ext = sub.add_parser("extract", help="write a commit's tree from a git directory")
    ext.add_argument("gitdir", type=Path)
    ext.add_argument("commit")
    ext.add_argument("dest", type=Path)
    args = parser.parse_args(argv)
    if args.command == "extract":
        try:
            written, missing = extract(args.gitdir, args.commit, args.dest)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        print(f"{args.dest}: {written} files written, {missing} blobs missing from the git directory")
        return 0
    rows = []
    if args.check in (None, "leakage"):
        rows += leakage_checkouts()
    if args.check in (None, "blocking"):
        rows += blocking_checkouts(args.prefix)
    seen = set()
    for weight, check, repo, commit, folder in sorted(rows, key=lambda r: (-r[0], r[2])):
        if (check, folder) in seen or (args.root is not None and (args.root / folder).is_dir()):
            continue
        seen.add((check, folder))
        print(f"{weight}\t{check}\t{repo}\t{commit}\t{folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
