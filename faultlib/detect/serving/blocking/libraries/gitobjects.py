"""GitPython's reads of a repository's objects: resolving a commit, diffing trees, reading a blob.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; cloning,
remotes and ``repo.git`` are in :mod:`~faultlib.detect.serving.blocking.libraries.vcs`). A ``Repo``'s default object
database is ``GitCmdObjectDB``, which reads objects through long-running ``git cat-file`` processes: ``repo.commit(rev)``
resolves the revision (reading the refs under ``.git``) and asks cat-file for the commit; ``diff`` of a commit, tree
or index runs ``git diff-tree``/``git diff`` as a child process and parses its output. Each waits in the calling
thread (held-out wave 50: nbdime's Jupyter server extension diffs notebooks between git refs in an async handler).
``repo.rev_parse(rev)`` resolves a revision through the same object database (cat-file; held-out wave 53: the MCP
reference git server). The staging area (``repo.index``: add, commit, reset) is in
:mod:`~faultlib.detect.serving.blocking.libraries.gitworktree`.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

P = "blocking_subprocess"
OBJECTS = ("https://gitpython.readthedocs.io/en/stable/reference.html#git.repo.base.Repo.commit (\"The Commit object "
           "for the specified revision\", through rev_parse and the object database) and "
           "https://gitpython.readthedocs.io/en/stable/reference.html#git.db.GitCmdObjectDB (\"uses git-cat-file to "
           "read objects\")")
DIFF = ("https://gitpython.readthedocs.io/en/stable/reference.html#git.diff.Diffable.diff (\"Creates diffs between "
        "two items being trees, trees and index or an index and the working tree\": runs git diff-tree/diff)")
_REPO = ("git.Repo", "git.repo.Repo", "git.repo.base.Repo")
_COMMIT = "git.Commit"
_TREE = "git.Tree"
_DIFFABLE = (_COMMIT, "git.objects.commit.Commit", _TREE, "git.objects.tree.Tree", "git.IndexFile",
             "git.index.base.IndexFile")

BLOB = ("https://gitpython.readthedocs.io/en/stable/reference.html#git.objects.base.Object.data_stream (\"an "
        "OStream object with the data of this object\": read from the object database, git cat-file)")
_DIFF_INDEX = "git.DiffIndex"

REV_PARSE = ("https://gitpython.readthedocs.io/en/stable/reference.html#git.repo.fun.rev_parse (\"Parse a revision "
             "string ... Returns Object at the given revision\": the object is read through the object database)")

GIT_OBJECTS = Vocabulary(
    calls={**{f"{r}.commit": (P, OBJECTS) for r in _REPO}, **{f"{r}.rev_parse": (P, REV_PARSE) for r in _REPO}},
    families=(Family(_DIFFABLE, {"diff": P}, DIFF),),
    returns={**{f"{r}.commit": _COMMIT for r in _REPO},
             **{f"{d}.diff": _DIFF_INDEX for d in _DIFFABLE}, f"{_DIFF_INDEX}.__iter__": "git.Diff"},
    reads={f"{b}.data_stream": (P, BLOB) for b in ("git.Blob", "git.objects.blob.Blob")},
)
"""``Commit.tree`` is a ``Tree`` and a ``Diff``'s ``a_blob``/``b_blob`` are ``Blob`` objects
(:data:`faultlib.detect.serving.blocking.vocab.ATTRIBUTE_TYPES`); iterating the ``DiffIndex`` a ``diff`` returns
gives each ``Diff`` (https://gitpython.readthedocs.io/en/stable/reference.html#git.diff.DiffIndex); a ``Repo``'s ``.git``
is its ``git.cmd.Git`` (every method a git subcommand, :mod:`~faultlib.detect.serving.blocking.libraries.vcs`) and its
``.index`` its ``IndexFile``."""
