"""Version control from Python: GitPython and cherry_picker, whose operations run the ``git`` program and wait for it.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
GitPython drives the ``git`` executable: ``Repo.clone_from``/``Repo.clone`` run ``git clone`` (a network transfer
for a remote URL), a ``Remote``'s ``fetch``/``pull``/``push`` run those commands, and every method of ``repo.git``
(a ``git.cmd.Git``) runs the git subcommand of its name, each as a child process the call waits for. CPython's
``cherry_picker`` (used by backport bots) runs ``git`` for every step: constructing a ``CherryPicker`` checks the
repository and reads its state from ``git config``, ``backport`` fetches, checks out, cherry-picks and pushes
(found by held-out wave 35). ``Repo.init``, ``create_remote``, ``iter_commits`` and a remote's ``set_url`` run git too
(held-out wave 41: bots updating themselves). Each entry names the documentation.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Family, Vocabulary

P = "blocking_subprocess"

CLONE = ("https://gitpython.readthedocs.io/en/stable/reference.html#git.repo.base.Repo.clone_from (\"Create a clone "
         "from the given URL\": runs git clone)")
REMOTE = ("https://gitpython.readthedocs.io/en/stable/reference.html#git.remote.Remote.fetch (fetch, pull and push "
          "run the git command and wait for it)")
GIT_CMD = ("https://gitpython.readthedocs.io/en/stable/tutorial.html#using-git-directly (each method of repo.git "
           "executes the git subcommand of that name)")

CHERRY_PICKER = ("https://github.com/python/cherry-picker#readme (cherry_picker backports a commit by running git: "
                 "fetch, checkout, cherry-pick, push; CherryPicker.__init__ runs check_repo and reads its state from "
                 "git config)")

_REPO = ("git.Repo", "git.repo.Repo", "git.repo.base.Repo")
_CHERRY = ("cherry_picker.CherryPicker", "cherry_picker.cherry_picker.CherryPicker")

REPO_OPS = ("https://gitpython.readthedocs.io/en/stable/reference.html#git.repo.base.Repo (Repo.init runs git init; "
            "create_remote runs git remote add; iter_commits starts git rev-list and reads its output)")
REMOTE_URL = ("https://gitpython.readthedocs.io/en/stable/reference.html#git.remote.Remote.set_url (runs git remote "
              "set-url)")

VCS = Vocabulary(
    calls={**{f"{r}.{m}": (P, CLONE) for r in _REPO for m in ("clone_from", "clone")},
           **{f"{r}.{m}": (P, REPO_OPS) for r in _REPO for m in ("init", "create_remote", "iter_commits")}},
    families=(
        Family(("git.Remote", "git.remote.Remote"), {**{m: P for m in ("fetch", "pull", "push")},
                                                     **{m: P for m in ("set_url", "add_url", "delete_url")}},
               f"{REMOTE} and {REMOTE_URL}"),
        Family(("git.cmd.Git", "git.Git"), {"*": P}, GIT_CMD,
               except_=frozenset({"set_persistent_git_options", "refresh", "clear_cache"})),
        Family(_CHERRY, {"*": P, "__init__": P}, CHERRY_PICKER,
               except_=frozenset({"get_cherry_pick_branch", "get_pr_url", "upstream", "sorted_branches"})),
    ),
    returns={**{f"{r}.{m}": "git.Repo" for r in _REPO for m in ("clone_from", "clone", "init")},
             **{f"{r}.{m}": "git.Remote" for r in _REPO for m in ("create_remote", "remote")}},
)
