"""One input file read by two scripts of a joined program: the same rows, one table.

A project reads its raw data in each of its notebooks: a feature notebook reads ``transactions_train.csv``, computes
per-customer counts and prices over every row and saves them to Parquet; the model notebook reads
``transactions_train.csv`` again, merges the saved features into its rows and holds out the last week
(:mod:`.repofiles` joins the two as one program). Each read made a table of its own, so the counts' rows (the first
read) never covered the held-out week (the second read's rows) and the leak between them was invisible (issue 17,
wave 89: an H&M ranking project's two feature notebooks and its LightGBM ranker). A file holds the rows it holds
whoever reads it: in a join, a read of a file an earlier member of the program read returns that member's table
(its rows, and the fits that had shaped it before it was written, none: a raw file is read fresh).

Which reads name one file: :func:`~.pathexprs.same_file`'s rule for two paths, every name counted as unique (a
file known only by its name, under a folder computed at run time, matches a path that ends in that name; two known,
different folders never match). Only across members of a joined program (a script read alone keeps each read its
own table, as before), and only for a file no script of the program wrote before (that is a hand-on:
:mod:`.handoff`). The table is the one the first read's assignment names (``transactions = pd.read_csv(...)``: an
unknown value bound to ``transactions``, as the analysis makes it).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.detect.data.leakage.pathexprs import FilePath, same_file
from faultlib.detect.data.leakage.values import MaybeData
from faultlib.pyflow.values import UNKNOWN
from faultlib.pyflow.walk import walk_once


def same_input(a: FilePath, b: FilePath) -> bool:
    """Two reads name one file (see the module docstring)."""
    return same_file(a, b, lambda _: True)


class SharedInputs:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer` (needs ``smap``, ``tree`` and
    ``repo_files``): the tables the members of a joined program read from input files, by file."""

    smap: Any
    tree: ast.Module
    repo_files: Any

    def _shared_input(self, path: FilePath, line: int) -> Any:
        """The table an earlier member of the joined program read from the file ``path`` names (a read on
        ``line``), or ``None``."""
        if self.repo_files is None or not self.smap.files:
            return None
        member = self.smap.where(line).get("file")
        return next((value for file, where, value in self.__dict__.get("_inputs", ())
                     if where != member and same_input(file, path)), None)

    def _keep_input(self, path: FilePath, node: ast.Call, value: Any) -> Any:
        """``value``, what the read ``node`` of ``path`` returned, kept for the later members' reads: the table its
        assignment binds (``value`` itself when the analysis made one)."""
        if self.repo_files is None or not self.smap.files:
            return value
        if value is UNKNOWN:
            if not hasattr(self, "_read_targets"):
                self._read_targets = {id(n.value): (n.targets[0].id, n.lineno) for n in walk_once(self.tree)  # type: ignore
                                      if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(
                                          n.targets[0], ast.Name) and isinstance(n.value, ast.Call)}
            target = self._read_targets.get(id(node))
            if target is None:
                return value
            value = MaybeData(*target)  # what the assignment would bind (static.Analyzer._named)
        if isinstance(value, MaybeData):
            self.__dict__.setdefault("_inputs", []).append((path, self.smap.where(node.lineno).get("file"), value))
        return value


__all__ = ["SharedInputs", "same_input"]
