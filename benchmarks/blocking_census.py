"""A census of what async code calls that ``check blocking``'s vocabulary does not know (issue 17: recall on unseen
services).

For every repository checkout under ``ROOT`` (one folder each), the ``.py`` files are copied without their tests
(as :mod:`static_realworld_blocking` does) and analysed by ``check blocking`` in-process; every call the analysis
examines on the loop -- inside an ``async def`` or a loop callback, or in the sync code of the analysed files
reached from one (the detector's own walk, :class:`~faultlib.detect.serving.blocking.reach.Reachability`) -- that
is not awaited, not handed to an executor, not a blocker already, and whose callee resolves to a module outside the
repository (``time.sleep``, ``pytz.timezone``, or a method of a typed third-party instance,
``ccxt.binance.fetch_ticker``) is counted when the vocabulary does not classify it: no ``calls`` entry, no family
owning its type, not a torch module or estimator. Counted by dotted name and by top-level module, each with its
distinct call sites and distinct repositories; the list is ordered by distinct repositories.

Names whose module is judged to do no blocking work (:data:`JUDGED_SAFE`, each with why) are left out of the list
unless ``--all``. The code stays outside the project: only counts are printed (and written with ``--json``).

Usage: ``python benchmarks/blocking_census.py ROOT [--top 150] [--all] [--json OUT] [--only NAME ...]``; an
earlier ``--json`` is printed again with ``--from-json OUT`` (ROOT unused), and ``--from-json OUT --covered`` lists
its names that the vocabulary installed now classifies (what new entries cover).
A folder with more than :data:`MAX_FILES` Python files is analysed per sub-folder (a monorepo of servers). The
script always exits 0.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

from faultlib.detect.serving.blocking import MAX_FILES, analyze_path, vocab
from faultlib.detect.serving.blocking.index import Func, Klass, Module
from faultlib.detect.serving.blocking.reach import Reachability

from static_realworld_blocking import _is_test, copy_service

JUDGED_SAFE: dict[str, str] = {
    "asyncio": "the event loop's own API (its coroutines are awaited; create_task/get_running_loop return at once)",
    "typing": "type constructs", "typing_extensions": "type constructs", "dataclasses": "class helpers",
    "json": "in-memory (de)serialisation of a string", "re": "regular expressions on a string",
    "datetime": "clock arithmetic; datetime.now reads the clock", "time.time": "reads the clock",
    "time.monotonic": "reads the clock", "time.perf_counter": "reads the clock",
    "uuid": "random/derived ids (uuid1 reads the clock and node id once)", "math": "arithmetic",
    "functools": "higher-order helpers", "itertools": "iterator helpers", "collections": "containers",
    "enum": "enumerations", "copy": "object copies", "base64": "in-memory encodings", "hashlib": "digests of bytes",
    "hmac": "digests of bytes", "secrets": "random tokens (os.urandom)", "random": "pseudo-random numbers",
    "string": "string constants", "textwrap": "string formatting", "inspect": "introspection of live objects",
    "contextlib": "context-manager helpers", "operator": "operators", "urllib.parse": "URL string parsing",
    "logging": "left out of the census by choice: a handler's write is short; the vocabulary does not report it",
    "warnings": "warning filters", "traceback": "formatting of a live traceback", "types": "type objects",
    "abc": "abstract classes", "weakref": "references", "decimal": "arithmetic", "fractions": "arithmetic",
    "struct": "byte packing", "binascii": "byte encodings", "html": "string escaping", "shlex": "string splitting",
    "pydantic": "validation of in-memory values", "pydantic_core": "validation of in-memory values",
    "contextvars": "context variables", "os.environ": "the process environment (a dict)",
    "os.getenv": "the process environment", "os.environ.get": "the process environment",
    **{f"os.{name}": "a single-inode metadata call or a process query: not a blocker by the corpus' labelling rules "
       "(benchmarks/README.md)" for name in (
        "path", "remove", "unlink", "makedirs", "mkdir", "rmdir", "rename", "replace", "stat", "lstat", "listdir",
        "scandir", "chmod", "chown", "getcwd", "chdir", "getpid", "getppid", "cpu_count", "urandom", "kill",
        "symlink", "link", "readlink", "access", "utime", "umask", "getuid", "geteuid", "get_terminal_size",
        "close", "dup2", "pipe", "setsid", "killpg", "getpgid", "fspath", "sep", "isatty")},
    **{f"pathlib.Path.{name}": "a path computation or a single-inode metadata call (labelling rules)" for name in (
        "exists", "is_file", "is_dir", "mkdir", "unlink", "rmdir", "stat", "resolve", "absolute", "touch", "rename",
        "replace", "with_suffix", "with_name", "relative_to", "joinpath", "as_posix", "expanduser", "home", "cwd",
        "chmod", "is_symlink", "samefile", "symlink_to", "match", "with_stem", "is_absolute", "lstat", "owner",
        "iterdir", "glob", "rglob", "parent", "is_relative_to", "as_uri", "lchmod", "hardlink_to", "readlink")},
    "pathlib.Path": "a path value", "pathlib.PurePath": "a path value", "pathlib.PurePosixPath": "a path value",
    "sys": "interpreter state", "shutil.which": "a PATH search (a few stats)",
    "tempfile.mkdtemp": "one inode (blocking.creations)", "tempfile.mkstemp": "one inode (blocking.creations)",
    "tempfile.gettempdir": "a path",
}
"""Module (or dotted-name) prefixes judged to do no blocking work, with why; left out of the list unless ``--all``."""

_RECORD: dict[str, set[tuple[str, int, int]]] = defaultdict(set)  # dotted name -> call sites (path, line, column)


def census_name(index, call: ast.Call, func: Func) -> str | None:
    """The dotted name of an outside callee (``pytz.timezone``, ``ccxt.binance.fetch_ticker``), or None."""
    target = index.callee(call.func, func)
    if isinstance(target, (Func, Klass, Module)):
        return None
    if isinstance(target, str):
        return target
    if isinstance(call.func, ast.Attribute):
        owner = index.type_of(call.func.value, func)
        if isinstance(owner, str):
            return f"{owner}.{call.func.attr}"
    return None


def classified(merged, name: str) -> bool:
    """Whether the merged vocabulary (:func:`~faultlib.detect.serving.blocking.vocab.vocabulary`), or a rule by type,
    already says what ``name`` does."""
    owner, _, method = name.rpartition(".")
    return (name in merged.calls or name in merged.when or merged.owned(name) or (owner and merged.owned(owner))
            or vocab.is_torch_module(owner) or vocab.is_estimator(owner) or owner == "transformers.PreTrainedModel"
            or name in vocab.OFFLOAD or method in vocab.OFFLOAD_METHODS or method in vocab.LOOP_CALLBACK_METHODS)


def _census_blocking(self: Reachability, call: ast.Call, func: Func, inference: bool):
    site = _ORIGINAL(self, call, func, inference)
    if site is None and id(call) not in self._awaited(func) and id(call) not in self._guarded:
        name = census_name(self.index, call, func)
        own = self.__dict__.setdefault("_census_own", {m.partition(".")[0] for m in self.index.modules})
        if name and "." in name and name.partition(".")[0] not in own | {"builtins"} and not classified(
                self.index.vocab, name):
            _RECORD[name].add((func.module.path, call.lineno, call.col_offset))
    return site


_ORIGINAL = Reachability._blocking
Reachability._blocking = _census_blocking  # the census' hook into the detector's own walk (this process only)


def _folders(root: Path) -> list[Path]:
    """``root``, or its sub-folders (recursively) when it holds more Python files than one analysis takes."""
    count = sum(1 for p in root.rglob("*.py") if not _is_test(p.relative_to(root)))
    if count <= MAX_FILES:
        return [root] if count else []
    return [f for child in sorted(root.iterdir()) if child.is_dir() and not child.name.startswith(".")
            for f in _folders(child)]


def census_repo(checkout: Path) -> dict[str, set[tuple[str, int, int]]]:
    """``{dotted name: call sites}`` of one repository checkout (paths relative to it)."""
    _RECORD.clear()
    with tempfile.TemporaryDirectory(prefix="census-") as tmp:
        copied = Path(tmp) / checkout.name.replace("+", "_").replace("-", "_").replace(".", "_")
        copied.mkdir()
        copy_service(checkout, copied, [])
        for folder in _folders(copied):
            try:
                analyze_path(folder)
            except Exception as exc:  # noqa: BLE001 -- one repository's failure must not stop the census
                print(f"  {checkout.name}/{folder.relative_to(copied)}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return {name: {(str(Path(p).relative_to(copied)) if p.startswith(tmp) else p, line, col)
                       for p, line, col in sites} for name, sites in _RECORD.items()}


def judged_safe(name: str) -> bool:
    """``name`` falls under :data:`JUDGED_SAFE`, is a loop-safe ``async_*`` function by its library's convention
    (Home Assistant: "functions that are safe to run in the event loop are prefixed with async_",
    https://developers.home-assistant.io/docs/asyncio_working_with_async/), or builds an exception."""
    last = name.rpartition(".")[2]
    return (any(name == p or name.startswith(p + ".") for p in JUDGED_SAFE) or last.startswith("async_")
            or last.endswith(("Error", "Exception", "Warning")))


def report(per_repo: dict[str, dict[str, set]], top: int, keep_safe: bool = False) -> None:
    """Print the names and the modules by distinct repositories; constructors (a capitalised last part:
    ``mcp.types.TextContent(...)``) apart from functions and methods."""
    by_name: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_module: dict[str, list] = defaultdict(lambda: [0, set()])
    for repo, names in per_repo.items():
        for name, sites in names.items():
            if not keep_safe and judged_safe(name):
                continue
            by_name[name][0] += len(sites)
            by_name[name][1] += 1
            head = name.partition(".")[0]
            by_module[head][0] += len(sites)
            by_module[head][1].add(repo)
    std = sys.stdlib_module_names
    ranked = sorted(by_name.items(), key=lambda kv: (-kv[1][1], -kv[1][0], kv[0]))
    for title, rows in (("functions and methods", [r for r in ranked if not r[0].rpartition(".")[2][:1].isupper()]),
                        ("constructors", [r for r in ranked if r[0].rpartition(".")[2][:1].isupper()])):
        print(f"\n{len(per_repo)} repositories; top {top} unclassified {title} by distinct repositories "
              "(repos, call sites, name, stdlib/3rd):")
        for name, (calls, repos) in rows[:top]:
            print(f"{repos:4d} {calls:5d}  {name}  {'std' if name.partition('.')[0] in std else '3rd'}")
    print(f"\ntop {top} modules by distinct repositories (repos, call sites, module):")
    for head, (calls, repos) in sorted(by_module.items(), key=lambda kv: (-len(kv[1][1]), -kv[1][0]))[:top]:
        print(f"{len(repos):4d} {calls:5d}  {head}  {'std' if head in std else '3rd'}")


def covered(per_repo: dict[str, dict[str, set]]) -> None:
    """Print the names of an earlier census that the vocabulary installed now classifies (new entries since), with
    their call sites and distinct repositories."""
    merged = vocab.vocabulary()
    now: dict[str, list] = defaultdict(lambda: [0, set()])
    for repo, names in per_repo.items():
        for name, sites in names.items():
            if classified(merged, name):
                now[name][0] += len(sites)
                now[name][1].add(repo)

    def blocks(name: str) -> bool:  # an entry or a family method that blocks (some argument values may not)
        owner, _, method = name.rpartition(".")
        return name in merged.calls or merged.family_kind(owner, method) is not None or (
            method[:1].isupper() and merged.family_kind(name, "__init__") is not None)

    for title, rows in (("blocking", {n: v for n, v in now.items() if blocks(n)}),
                        ("described, quiet (constructors, builders)", {n: v for n, v in now.items() if not blocks(n)})):
        sites = sum(c for c, _ in rows.values())
        repos = set().union(*(r for _, r in rows.values())) if rows else set()
        print(f"now classified {title}: {len(rows)} names, {sites} call sites, in {len(repos)} of {len(per_repo)} "
              "repositories")
        for name, (calls, found) in sorted(rows.items(), key=lambda kv: (-len(kv[1][1]), -kv[1][0], kv[0])):
            print(f"{len(found):4d} {calls:5d}  {name}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path, help="folder of repository checkouts, one folder each")
    parser.add_argument("--top", type=int, default=150)
    parser.add_argument("--all", action="store_true", help="keep the names judged safe (JUDGED_SAFE)")
    parser.add_argument("--json", type=Path, help="write {repo: {name: [[path, line, col], ...]}} here")
    parser.add_argument("--from-json", type=Path, help="print the lists of an earlier --json (ROOT unused)")
    parser.add_argument("--covered", action="store_true",
                        help="with --from-json: the names of that census the vocabulary classifies now")
    parser.add_argument("--only", nargs="*", default=None)
    args = parser.parse_args(argv)
    if args.from_json:
        saved = json.loads(args.from_json.read_text())
        per_repo = {r: {n: {tuple(s) for s in sites} for n, sites in names.items()} for r, names in saved.items()}
        covered(per_repo) if args.covered else report(per_repo, args.top, args.all)
        return 0
    per_repo: dict[str, dict[str, set]] = {}
    for checkout in sorted(p for p in args.root.iterdir() if p.is_dir()):
        if args.only and checkout.name not in args.only:
            continue
        per_repo[checkout.name] = census_repo(checkout)
        print(f"{checkout.name}: {sum(map(len, per_repo[checkout.name].values()))} unclassified calls", flush=True)
    if args.json:
        args.json.write_text(json.dumps({r: {n: sorted(s) for n, s in names.items()} for r, names in per_repo.items()},
                                        indent=0, sort_keys=True))
    report(per_repo, args.top, args.all)
    return 0


if __name__ == "__main__":
    sys.exit(main())
