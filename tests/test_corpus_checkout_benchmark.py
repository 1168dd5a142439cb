"""benchmarks/corpus_checkout.py: which labelled checkouts to bring back first, and a commit's tree written from a
git directory without its symbolic links."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys

import pytest

from tests.conftest import REPO

_spec = importlib.util.spec_from_file_location("corpus_checkout", REPO / "benchmarks" / "corpus_checkout.py")
corpus_checkout = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("corpus_checkout", corpus_checkout)
_spec.loader.exec_module(corpus_checkout)

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(cwd, *args):
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=cwd,
                          check=True, capture_output=True, text=True).stdout.strip()


@needs_git
def test_extract_writes_the_commit_tree_and_leaves_out_links(tmp_path):
    work = tmp_path / "work"
    (work / "pkg").mkdir(parents=True)
    (work / "pkg" / "train.py").write_text("print('first')\n")
    (work / "outside").symlink_to("/etc/passwd")
    _git(work, "init", "-q")
    _git(work, "add", "-A")
    _git(work, "commit", "-qm", "one")
    first = _git(work, "rev-parse", "HEAD")
    (work / "pkg" / "train.py").write_text("print('second')\n")
    _git(work, "commit", "-qam", "two")
    dest = tmp_path / "checkout"
    written, missing = corpus_checkout.extract(work / ".git", first, dest)
    assert (written, missing) == (1, 0)
    assert (dest / "pkg" / "train.py").read_text() == "print('first')\n"  # the named commit, not the newest
    assert not (dest / "outside").exists() and not (dest / "outside").is_symlink()
    with pytest.raises(ValueError, match="no commit"):
        corpus_checkout.extract(work / ".git", "f" * 40, tmp_path / "other")
    assert corpus_checkout.main(["extract", str(work / ".git"), "f" * 40, str(tmp_path / "other")]) == 2


def test_list_puts_the_heaviest_checkouts_first_and_skips_those_present(tmp_path, capsys):
    assert corpus_checkout.main(["list", "--check", "leakage"]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    weights = [int(r[0]) for r in rows]
    assert weights == sorted(weights, reverse=True) and weights[0] > 0
    assert all(r[1] == "leakage" and r[4] == r[2].replace("/", "+") for r in rows)
    (tmp_path / rows[0][4]).mkdir()
    corpus_checkout.main(["list", "--check", "leakage", "--root", str(tmp_path)])
    assert [r.split("\t")[4] for r in capsys.readouterr().out.splitlines()] == [r[4] for r in rows[1:]]
    corpus_checkout.main(["list", "--check", "blocking", "--prefix", "blk-"])
    assert all(line.split("\t")[4].startswith("blk-") for line in capsys.readouterr().out.splitlines())
