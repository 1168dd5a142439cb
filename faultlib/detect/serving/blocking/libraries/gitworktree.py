"""GitPython's reads and writes of a working tree: ``Repo.is_dirty``, ``Repo.untracked_files``, the index's add/commit.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; cloning,
remotes and ``repo.git`` are in :mod:`~faultlib.detect.serving.blocking.libraries.vcs`, commits, trees and diffs in
:mod:`~faultlib.detect.serving.blocking.libraries.gitobjects`). ``Repo.is_dirty`` runs ``git diff`` (and ``git
status`` for untracked files) and waits for it; reading ``Repo.untracked_files`` runs ``git status --porcelain
--untracked-files``; ``repo.index`` is the repository's ``IndexFile`` and ``repo.git`` its ``git.cmd.Git`` (typed in
:data:`faultlib.detect.serving.blocking.vocab.ATTRIBUTE_TYPES`): ``IndexFile.add`` hashes every file into the object
database and writes ``.git/index``, ``commit`` writes the tree and commit objects and moves the branch ref, ``write``
writes the index file; ``move``, ``checkout`` and ``reset`` run ``git mv``, ``git checkout-index`` and ``git
read-tree``. Found by held-out waves 53 (the MCP reference git server stages, commits and resets from its async ``call_tool``)
and 54 (a coding agent's FastAPI routers showing a workspace's git status and diff).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

P = "blocking_subprocess"
F = "blocking_file_io"
STATE = ("https://gitpython.readthedocs.io/en/stable/reference.html#git.repo.base.Repo.is_dirty (\"runs git diff\" "
         "on the working tree and index) and https://gitpython.readthedocs.io/en/stable/reference.html"
         "#git.repo.base.Repo.untracked_files (\"uses git status\" to list the untracked files)")
INDEX = ("https://gitpython.readthedocs.io/en/stable/reference.html#git.index.base.IndexFile.add (\"writes the "
         "index\", hashing each file into the object database), .commit (\"Commit the current default index file, "
         "creating a Commit object\"), .write, .move (git mv), .checkout (git checkout-index), .reset (git "
         "read-tree)")
_REPO = ("git.Repo", "git.repo.Repo", "git.repo.base.Repo")
_INDEX = ("git.IndexFile", "git.index.base.IndexFile", "git.index.IndexFile")

GIT_WORKTREE = Vocabulary(
    calls={f"{r}.is_dirty": (P, STATE) for r in _REPO},
    families=(Family(_INDEX, {"add": F, "commit": F, "write": F, "write_tree": F, "remove": F, "move": P,
                              "checkout": P, "reset": P}, INDEX),),
    reads={f"{r}.untracked_files": (P, STATE) for r in _REPO},
)
