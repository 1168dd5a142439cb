"""pygit2, the libgit2 bindings: opening a repository and diffing its commits read the ``.git`` folder in-process.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; GitPython,
which runs the ``git`` program instead, is in :mod:`~faultlib.detect.serving.blocking.libraries.vcs` and
:mod:`~faultlib.detect.serving.blocking.libraries.gitobjects`; found by held-out wave 69: an MCP coding server opens
the workspace's repository and diffs its recent commits in a tool handler). ``Repository(path)`` opens the
repository (reads its config, refs and index from disk); ``diff`` loads the trees and blobs it compares from the
object database (loose and packed objects on disk) and computes the patch; ``status`` compares the whole working
tree with the index; ``blame`` walks a file's history; ``discover_repository`` searches the parent folders for a
``.git``. All run in the calling thread.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

F = "blocking_file_io"
DOCS = "https://www.pygit2.org/"
OPEN = DOCS + "repository.html#pygit2.Repository (\"The Repository class\": opens the repository at the path given)"
READS = (DOCS + "diff.html#pygit2.Repository.diff (reads the trees and blobs compared from the object database), "
         + DOCS + "index_file.html#pygit2.Repository.status (stats the working tree) and "
         + DOCS + "blame.html#pygit2.Repository.blame")
DISCOVER = DOCS + "repository.html#pygit2.discover_repository (looks for a repository in the path and its parents)"

REPOSITORIES = ("pygit2.Repository", "pygit2.repository.Repository")

LIBGIT2 = Vocabulary(
    calls={**{r: (F, OPEN) for r in REPOSITORIES}, "pygit2.discover_repository": (F, DISCOVER)},
    families=(Family(REPOSITORIES, {m: F for m in ("diff", "status", "blame")}, READS),),
    returns={r: "pygit2.Repository" for r in REPOSITORIES},
)
