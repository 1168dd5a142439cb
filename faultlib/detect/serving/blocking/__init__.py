"""Blocking calls reachable from asyncio code, found statically (``faultlib check blocking FILE.py|DIR``).

An ``async def`` runs on the event loop's one thread; a synchronous call inside it, or inside any
sync helper it calls, stops every other request for as long as it runs (the runtime twin of this
check is :class:`faultlib.detect.serving.loop_watchdog.LoopWatchdog`). The analysis parses each file with
:mod:`ast` (the user's code is never imported or run), indexes functions, classes, methods and
imports (:mod:`~faultlib.detect.serving.blocking.index`), and follows the calls of every ``async def`` into
the sync functions, methods and constructors of the analysed files, across files of a directory
where imports resolve statically (``from .utils import load``, ``import pkg.mod as m``)
(:mod:`~faultlib.detect.serving.blocking.reach`). The vocabulary of blocking calls is
:mod:`~faultlib.detect.serving.blocking.vocab`.

What blocks is one vocabulary (:mod:`~faultlib.detect.serving.blocking.vocab`, each entry with the
documentation that says so): the standard library's sleeps, file, socket and subprocess calls;
synchronous HTTP clients and the SDKs on them (requests, urllib, httpx.Client, boto3, the sync OpenAI
and Anthropic clients, LangChain ``invoke``); database drivers and ORMs (sqlite3, psycopg2/psycopg,
pymysql, SQLAlchemy's sync Session/Engine, sync redis, pymongo, Elasticsearch); Celery's
``AsyncResult.get``; model calls (torch forward, scikit-learn and Keras ``predict``, Hugging Face
pipelines, llama.cpp). Packages add theirs through the entry-point group ``faultlib.blocking_calls``.
A call that is awaited is never a blocker (an async client's coroutine).

A sync function *passed* to ``asyncio.to_thread``, ``loop.run_in_executor``, ``anyio.to_thread.run_sync``,
Starlette/FastAPI ``run_in_threadpool`` or an executor's ``submit`` runs off the loop: not a finding; the
report lists it under ``offloaded``. ``submit`` counts only on an executor (a
:class:`concurrent.futures.Executor`, or a receiver whose ``submit`` is not awaited): an object's own
``async def submit`` runs on the loop. A FastAPI/Starlette endpoint declared with plain ``def`` runs in
the thread pool and is no entry; a plain ``def`` tool, resource or prompt of the MCP SDK's FastMCP (v1.x) runs on
the loop and is one (:mod:`~faultlib.detect.serving.blocking.frameworks`; the standalone ``fastmcp`` package's run
in its thread pool).

Types come from constructors, annotations (parameters, attributes, return types), ``self.x = ...``,
return statements, ``with`` targets and factories (``sqlite3.connect`` -> ``sqlite3.Connection``); a
local bound to a function value (``loader=joblib.load``, ``functools.partial(f, ...)``,
``getattr(obj, "literal")``) calls what it is bound to; ``cls(...)`` in a classmethod constructs. Where the
code writes no type (:mod:`~faultlib.detect.serving.blocking.infer`): a parameter without annotation takes
the type its call sites pass (when they agree), a decorator's wrapper the decorated function's (its ``self``
is the decorated method's instance), a ``Callable[..., T]`` parameter returns a ``T``, a closure's free
variable its enclosing function's type, ``A(x) if x else None`` an ``A``, and an element of a literal dict or
list of loaders (``{"pdf": PdfLoader(p), ...}.get(ext)``) or of functions the type or callee its values share;
a parameter a decorator's wrapper fills (``kwargs["session"] = ...``) or a subclass passes to ``super().__init__``
that value's type. Values stored in one place and read in another (:mod:`~faultlib.detect.serving.blocking.stores`):
a dict of models filled elsewhere (per constant key, ``dict[K, V]``), ``shared.model`` set by
``shared.model, shared.tok = load(name)`` in another module, globals unpacked from a tuple, and a value assigned
several types (a call on it blocks when it blocks for any). Generic classes
(:mod:`~faultlib.detect.serving.blocking.generics`: ``Manager[T]``, ``__enter__ -> T``, ``Iterator[T]``), several
classes (:mod:`~faultlib.detect.serving.blocking.choices`: ``Union[A, B]``, ``Loader = A if x else B`` or assigned in
branches: either runs). Along a call path the class of ``self`` is carried: a base's sync helper calling
``self.load()`` runs the override of the receiver's class (of every subclass when the receiver is only known as
the base). A factory's returned function (``run = make_runner(path)``) runs where it is called. File calls on an
``io.BytesIO``: writing into one is a memory copy (silent), reading one parses it (``blocking_cpu``).
Third-party SDKs (:mod:`~faultlib.detect.serving.blocking.sdks`): whole sync packages (wolframalpha, whois,
duckduckgo_search, tavily, ollama, ...) minus their async twins and constructors, sync clients with
sub-clients (groq, mistral, cohere, google-genai, twilio; docker-py in its own table,
:mod:`~faultlib.detect.serving.blocking.libraries.containers`), and a third-party model's
``predict``/``transcribe``; slack_sdk's flat WebClient, every method a request.

Reading a ``@property``/``cached_property`` of a class of the analysed files runs its getter.

A receiver assigned several classes of the analysed files -- ``self.asr`` set from a factory whose branches build
different backends, an unannotated parameter whose callers pass different ones, ``A() if x else B()`` -- runs the
method of each (:mod:`~faultlib.detect.serving.blocking.holders`); an attribute a base stores from a method a
subclass overrides has the override's type. Sending a Celery task of the analysed files (``task.delay``) blocks
(:mod:`~faultlib.detect.serving.blocking.tasks`); an array framework's verb (``realize``, ``load_weights``) on an
untyped value blocks in a module importing that framework (:mod:`~faultlib.detect.serving.blocking.framework_verbs`).
A branch no caller on the loop takes blocks nothing (:mod:`~faultlib.detect.serving.blocking.branches`).

Limits: a model whose type is unknown (a parameter without annotation and no typed call site) is recognised
only when it is called inside ``torch.no_grad()``/``torch.inference_mode()`` or through ``.forward()``;
decorators that move work elsewhere are not followed; a single FILE is
analysed alone (pass the directory to follow its imports). In a directory, a file that is not valid
Python for this interpreter is left out with a warning finding of kind ``analysis_incomplete``.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from faultlib.errors import InputError
from faultlib.findings import ANALYSIS_INCOMPLETE, ANALYSIS_INCOMPLETE_MEANS, Finding, Severity, analysis_incomplete
from faultlib.readers.pysource import parse_python

DETECTOR = "blocking"
MAX_FILES = 2_000
SKIP_DIRS = frozenset({"__pycache__", "node_modules", "site-packages", "venv", "env"})

KINDS = {
    "blocking_sleep": "time.sleep on the event loop (reachable from async code without leaving the loop): every "
                      "request waits for it",
    "blocking_http": "a synchronous network client on the event loop: HTTP (requests, urllib, http.client, urllib3, "
                     "httpx.Client) and the SDKs built on it (boto3, the sync OpenAI/Anthropic clients, LangChain "
                     "`invoke`, Elasticsearch)",
    "blocking_db": "a synchronous database call on the event loop: sqlite3, psycopg2/psycopg, pymysql, SQLAlchemy's "
                   "sync Session/Engine/Connection, sync redis, pymongo",
    "blocking_task": "waiting for a task queue on the event loop: Celery `AsyncResult.get()`/`.wait()`, "
                     "`task.delay(...).get()`, `app.control` broadcasts and `inspect()` queries",
    "blocking_file_io": "file I/O on the event loop: open(), pathlib read/write, shutil copies, torch/numpy/pandas/"
                        "pickle load and save",
    "blocking_socket_io": "blocking socket calls on the event loop: connect, recv, send, DNS lookups, select.select",
    "blocking_subprocess": "waiting for a subprocess on the event loop: subprocess.run/call/check_output, "
                           "Popen.wait/communicate, os.system",
    "blocking_cpu": "heavy CPU on the event loop: a torch module's forward (model inference), a scikit-learn "
                    "estimator's fit/predict, a Keras predict, a Hugging Face pipeline or generate, a llama.cpp "
                    "completion, a call under torch.no_grad()/inference_mode(), password hashing",
    ANALYSIS_INCOMPLETE: ANALYSIS_INCOMPLETE_MEANS,
}

__all__ = ["DETECTOR", "KINDS", "BlockingReport", "analyze_path", "analyze_sources"]


@dataclass
class BlockingReport:
    """What the static analysis found.

    Attributes:
        findings: one per blocking call site reachable from the loop (kinds in :data:`KINDS`).
        files: the files analysed, as given (DIR joined with each file's relative path).
        async_functions: ``async def`` functions analysed (entries).
        loop_callbacks: sync functions handed to the loop as callbacks (``call_soon``, ``add_done_callback``...).
        offloaded: functions handed to an executor from code on the loop: ``{function, via, file, line, in_function}``.
        skipped: files left out (symbolic links), with why.
        added: files read from outside the scanned directory: the repository's own packages its code imports
            (:mod:`~faultlib.detect.serving.blocking.outside`).
        not_followed: for a single FILE, the imports of its own project that were not followed (pass the directory).
        libraries: the installed libraries whose source was read to judge a call into them
            (:mod:`~faultlib.detect.serving.blocking.installed`): ``{name, version, files, calls, complete}`` each.
        not_installed: top-level packages called on the loop that no rule knows and no site directory holds (their
            calls were not judged).
        complete: False when the analysis did not finish (its operation budget, a file nested too deeply): then
            a warning finding of kind ``analysis_incomplete`` says where.
    """

    findings: list[Finding] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    async_functions: int = 0
    loop_callbacks: int = 0
    offloaded: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    complete: bool = True
    added: list[str] = field(default_factory=list)
    not_followed: list[str] = field(default_factory=list)
    libraries: list[dict[str, Any]] = field(default_factory=list)
    not_installed: list[str] = field(default_factory=list)

    def fields(self) -> dict[str, Any]:
        return {"files": self.files, "async_functions": self.async_functions, "loop_callbacks": self.loop_callbacks,
                "offloaded": self.offloaded, "skipped": self.skipped, "complete": self.complete,
                "added": self.added, "not_followed": self.not_followed, "libraries": self.libraries,
                "not_installed": self.not_installed}


def _package_prefix(directory: Path) -> list[str]:
    """Names of the packages ``directory`` sits in (itself included when it has ``__init__.py``), outermost first."""
    names: list[str] = []
    current = directory.resolve()
    while (current / "__init__.py").is_file() and current.parent != current and len(names) < 32:
        names.insert(0, current.name)
        current = current.parent
    return names


def _python_files(root: Path, skipped: list[str]) -> list[Path]:
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        kept = []
        for d in sorted(dirnames):
            if d.startswith(".") or d in SKIP_DIRS:
                continue
            if os.path.islink(os.path.join(dirpath, d)):  # said, as a linked file is: its code was not read
                skipped.append(f"{os.path.join(dirpath, d)}: a symbolic link to a directory (not followed)")
                continue
            kept.append(d)
        dirnames[:] = kept
        for name in sorted(filenames):
            if not name.endswith((".py", ".pyw")):
                continue
            path = Path(dirpath) / name
            if path.is_symlink():
                skipped.append(f"{path}: a symbolic link (not followed)")
                continue
            found.append(path)
            if len(found) > MAX_FILES:
                raise InputError(f"holds more than {MAX_FILES} Python files: pass a smaller directory", path=root)
    return found


def analyze_path(path: str | Path, *, follow_installed: bool = True,
                 site_dirs: list[str | Path] | None = None) -> BlockingReport:
    """Analyse a ``.py`` file, or every ``.py`` file under a directory (hidden directories,
    ``__pycache__``, ``site-packages``, ``venv``/``env`` and ``node_modules`` left out, links not followed).

    Args:
        path: the file or directory. Files are read through :mod:`faultlib.readers` (bounded,
            UTF-8, no symbolic links).
        follow_installed: follow calls into the libraries installed in ``site_dirs`` that the vocabulary does not
            describe (:mod:`~faultlib.detect.serving.blocking.installed`); False: such calls are not judged.
        site_dirs: where the libraries are installed; None: the running interpreter's site directories and the
            active virtual environment's (:func:`~faultlib.detect.serving.blocking.installed.default_site_dirs`).

    Returns:
        the :class:`BlockingReport`.

    Raises:
        InputError: the path does not exist, is a link, is not a ``.py`` file, a directory holds no
            Python file, or a file is unreadable or not valid Python (with its line).
    """
    from faultlib.detect.serving.blocking.outside import outside_sources, own_imports
    from faultlib.readers import read_text

    given = Path(path)
    if given.is_symlink():
        raise InputError("is a symbolic link: faultlib does not follow links; pass the file or directory itself",
                         path=str(path))
    if not given.exists():
        raise InputError("no such file or directory", path=str(path))
    skipped: list[str] = []
    unreadable: list[tuple[str, str]] = []
    sources: list[tuple[str, list[str], str]] = []  # (shown path, module name parts, source)
    if given.is_dir():
        files = _python_files(given, skipped)
        if not files:
            raise InputError("holds no Python file (*.py): pass a file or a directory of Python code", path=str(path))
        # a folder that is no package may still be imported by its name (a namespace package: `from api.rag import`)
        prefix = _package_prefix(given) or ([given.resolve().name] if given.resolve().name.isidentifier() else [])
        for file in files:
            rel = file.relative_to(given)
            parts = list(rel.with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            try:
                text = read_text(rel, root=given)
            except InputError as exc:  # one unreadable file (not UTF-8, too big) does not refuse the directory
                unreadable.append((str(file), exc.message))
                continue
            sources.append((str(file), [*prefix, *parts] if (prefix or parts) else [given.name], text))
        added, left = outside_sources(given, sources, lambda rel, base: read_text(rel, root=base))
        skipped += left
        sources += added
    else:
        if given.suffix.lower() not in (".py", ".pyw"):
            raise InputError(f"is not a Python file ({given.suffix or 'no extension'}): pass a .py file or a "
                             "directory", path=str(path))
        parts = _package_prefix(given.parent) + ([given.stem] if given.stem != "__init__" else [])
        sources.append((str(given), parts or [given.stem], read_text(given)))
        added = []
    installed = None
    if follow_installed:
        from faultlib.detect.serving.blocking.installed import Installed, default_site_dirs

        dirs = default_site_dirs() if site_dirs is None else [Path(d) for d in site_dirs]
        installed = Installed(dirs)
    report = analyze_sources(sources, skip_invalid=given.is_dir(), outside={path for path, _, _ in added},
                             installed=installed)
    report.added = [path for path, _, _ in added]
    if not given.is_dir():
        report.not_followed = own_imports(given, sources[0][2], sources[0][1])
    report.skipped = skipped + [f"{file}: {why}" for file, why in unreadable] + report.skipped
    for file, why in unreadable:
        report.complete = False
        report.findings.append(analysis_incomplete(DETECTOR, f"{file} could not be read ({why}); it was left out",
                                                   {"file": file}))
    return report


def analyze_sources(sources: list[tuple[str, list[str], str]], *, skip_invalid: bool = False,
                    outside: set[str] | frozenset[str] = frozenset(), installed=None) -> BlockingReport:
    """Analyse already-read sources: ``(path, module name parts, text)`` each (see :func:`analyze_path`).

    Args:
        sources: the files.
        skip_invalid: a source that is not valid Python for this interpreter (newer syntax, a template) is left
            out and named in ``skipped`` and in a warning finding of kind ``analysis_incomplete`` (its calls
            were not followed), instead of refusing everything (a directory: the rest is still worth checking).
        outside: paths of sources read from outside the scanned directory: their coroutines are entries only
            where the scanned code calls them (:func:`~faultlib.detect.serving.blocking.callers.scanned_entry`).
        installed: an :class:`~faultlib.detect.serving.blocking.installed.Installed` to follow calls into installed
            libraries with, or None (not followed).

    Raises:
        InputError: a source is not valid Python (unless ``skip_invalid``).

    The trees and indexes live until the report is made: the collector's full passes are held back meanwhile
    (:func:`faultlib.pyflow.heap.analysis_heap`; the findings do not depend on it).
    """
    from faultlib.pyflow.heap import analysis_heap

    with analysis_heap():
        return _analyze(sources, skip_invalid, outside, installed)


def _analyze(sources: list[tuple[str, list[str], str]], skip_invalid: bool, outside: set[str] | frozenset[str],
             installed) -> BlockingReport:
    from faultlib.detect.serving.blocking.branches import Branches
    from faultlib.detect.serving.blocking.chosen_formats import wav_on_path
    from faultlib.detect.serving.blocking.import_fallbacks import ImportFallbacks
    from faultlib.detect.serving.blocking.index import Index, build_module
    from faultlib.detect.serving.blocking.loopless_fallbacks import LooplessFallbacks
    from faultlib.detect.serving.blocking.namesakes import drop_library_names
    from faultlib.detect.serving.blocking.own_root import known_packages
    from faultlib.detect.serving.blocking.reach import Reachability
    from faultlib.detect.serving.blocking.service_roots import prefer_own_services
    from faultlib.detect.serving.blocking.private_loops import private_entries
    from faultlib.detect.serving.blocking.prewarmed import PrewarmedGetters
    from faultlib.detect.serving.blocking.warm_caches import WarmCaches
    from faultlib.detect.serving.blocking.warmed_libraries import WarmedLibraries

    modules = {}
    unfinished: list[tuple[str, dict[str, Any]]] = []
    invalid: list[str] = []
    for path, parts, source in sources:
        try:  # newer Python's syntax (PEP 695, 701, 758) rewritten in place by the shared reader
            tree = parse_python(source, path)
        except InputError as exc:
            if not skip_invalid:
                raise
            invalid.append(f"{path}:{exc.line or 1}: {exc.message}")
            unfinished.append((f"{path} is not valid Python for this interpreter (line {exc.line or 1}); it was "
                               "left out", {"file": path, "line": exc.line or 1}))
            continue
        try:
            module = build_module(".".join(parts), path, source, tree)
        except RecursionError:
            unfinished.append((f"{path} is nested too deeply to analyse (Python's recursion limit); it was left out",
                               {"file": path}))
            continue
        for cut in range(len(parts)):  # reachable by its full name and by its name inside the analysed tree
            name = ".".join(parts[cut:])
            if _package_over_module(modules.get(name), module, path):
                modules[name] = module
            else:
                modules.setdefault(name, module)
    _prefer_siblings(modules)
    prefer_own_services(modules)  # from app.routes import ... in one of several services side by side
    index = Index(modules)
    drop_library_names(modules, known_packages(index))  # utilities/openai.py importing openai: the package's name
    index.outside = frozenset(outside)
    if installed is not None:  # the scanned code's own names and the vocabulary's packages are never looked up
        installed.provided = frozenset(modules)
        installed.known = known_packages(index)
        index.installed = installed
    reach = Reachability(index)
    try:
        reach.run()
    except RecursionError:
        reach.complete = False
    if not reach.complete:
        unfinished.append(("the analysis stopped at its operation budget or recursion limit; some calls were not "
                           "followed", {}))
    report = BlockingReport(files=[p for p, _, _ in sources], complete=not unfinished, skipped=invalid)
    seen = {id(m): m for m in modules.values()}
    report.async_functions = sum(f.is_async for m in seen.values() for f in m.all_functions)
    report.loop_callbacks = len(reach.callbacks)
    report.offloaded = [{"function": o.function, "via": o.via, "file": o.func.module.path, "line": o.line,
                         "in_function": o.func.qualname} for o in reach.offloaded]
    on_loop = {key[0] for key in reach._memo} | {id(f) for f in reach.callbacks} | {  # every function walked
        id(f) for m in index.distinct_modules() for f in m.all_functions if f.is_async}
    branches = Branches(index, on_loop)  # a call in a branch no caller on the loop takes blocks nothing
    warm = WarmCaches(index)  # nor one in a cache's filling branch that import time has already run
    prewarmed = PrewarmedGetters(index)  # nor one below a getter's early return that start-up filled off the loop
    private = private_entries(index)  # nor one reached only from coroutines run on a worker thread's own loop
    loopless = LooplessFallbacks()  # nor one through the `except RuntimeError` of a get_running_loop() probe
    importable = ImportFallbacks(index)  # nor one through the `except ImportError` of an import that cannot fail
    libraries = WarmedLibraries(index)  # nor a once-per-process library call the entry point made before the loop
    def live(path) -> bool:  # a path no filter drops: every branch on it may be taken, no cache is warm...
        return not (branches.through_untaken(path) or warm.warmed(path) or prewarmed.warmed(path)
                    or loopless.loopless(path) or importable.fallback(path))

    report.findings = []
    for site, shortest in sorted(reach.hits.values(), key=lambda h: h[0].key):
        if (branches.never_taken(site.node, site.func) or _only_private(reach, site.key, private)
                or libraries.warmed(site, reach.entry_calls.get(site.key, []))):
            continue
        path = next((p for p in reach.paths.get(site.key, [shortest])  # the shortest live one
                     if live(p) and not wav_on_path(index, branches, site, p)), None)
        if path is not None:
            report.findings.append(_finding(site, path, reach.entries.get(site.key, []), reach.callbacks,
                                            reach.entry_calls.get(site.key, [])))
    report.findings += [analysis_incomplete(DETECTOR, why, location) for why, location in unfinished]
    if installed is not None:
        report.libraries, report.not_installed = installed.followed(), sorted(installed.missing)
    return report


def _only_private(reach, key: tuple, private: frozenset[tuple[str, str]]) -> bool:
    """Every entry that reaches the site ``key`` is a coroutine run on a worker thread's own loop."""
    calls = reach.entry_calls.get(key, [])
    names = set(reach.entries.get(key, []))
    return bool(private) and bool(calls) and all((file, q) in private for file, _, q in calls) and names <= {
        q for _, q in private}


def _package_over_module(known, module, path: str) -> bool:
    """Whether the package ``module`` (its ``__init__.py`` at ``path``) takes a dotted name from ``known``, a plain
    module of the same full name beside it (``cache.py`` next to ``cache/``): the import system looks for a package
    directory before a module file of that name in each path entry, so ``import cache`` is the package
    (https://peps.python.org/pep-0420/#specification, steps 1-2: "If <directory>/foo/__init__.py is found, a regular
    package is imported and returned"; vllm-project/production-stack's ``experimental/semantic_cache`` held-out 47)."""
    return (known is not None and known is not module and known.name == module.name
            and Path(path).name == "__init__.py" and Path(known.path).name != "__init__.py")


def _prefer_siblings(modules: dict) -> None:
    """``from utils import f`` in a folder that has its own ``utils.py``, when several analysed folders do (demo
    scripts side by side): the script's folder comes first on ``sys.path``, so the sibling is meant."""
    owners: dict[str, set[int]] = {}
    for name, module in modules.items():
        owners.setdefault(name, set()).add(id(module))
    full = {module.name: module for module in modules.values()}
    shared = {name.rpartition(".")[2] for name in full} & {n for n, ids in owners.items() if "." not in n}
    ambiguous = {n for n in shared if sum(1 for m in full if m.rpartition(".")[2] == n) > 1}
    for module in full.values():
        for alias, target in list(module.imports.items()):
            head, _, rest = target.partition(".")
            sibling = f"{module.package}.{head}" if module.package else head
            if head in ambiguous and sibling in full and sibling != module.name and _has(full, sibling, rest):
                module.imports[alias] = f"{sibling}.{rest}" if rest else sibling


def _has(full: dict, sibling: str, rest: str) -> bool:
    """The sibling module ``sibling`` has what the import names after its head (``rest``: a submodule, or a name its
    top level binds); a package's absolute ``from api.rag import RAG`` beside a module ``api.py`` that has no
    ``rag`` means the package ``api``, not the sibling (held-out wave 40)."""
    if not rest:
        return True
    first = rest.partition(".")[0]
    if f"{sibling}.{first}" in full:
        return True
    for node in full[sibling].tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == first:
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
                (a.asname or a.name.partition(".")[0]) == first for a in node.names):
            return True
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) else []
        if any(isinstance(t, ast.Name) and t.id == first for t in targets):
            return True
    return False


def _finding(site, path, entries: list[str], callbacks, entry_calls: list[tuple[str, int, str]]) -> Finding:
    from faultlib.detect.serving.blocking import vocab
    from faultlib.detect.serving.blocking.sites import _segment

    func, node = site.func, site.node
    call = _segment(func, node)
    entry, entry_line = path[0]
    chain = [{"function": f.qualname, "file": f.module.path, "line": line} for f, line in path]
    how = "loop callback" if entry in callbacks else "async def" if entry.is_async else "framework-run def"
    where = f"{func.module.path}:{node.lineno}"
    route = ""
    if len(path) > 1:
        route = (f", reached from {how} {entry.qualname} ({entry.module.path}:{entry_line}) via "
                 + " -> ".join(f.qualname for f, _ in path))
    elif how == "loop callback":
        route = ", in a function the loop runs as a callback"
    what = site.what if site.library is None else f"{site.what} ({site.library.said()})"
    message = (f"{what} blocks the event loop: `{call}` in {func.qualname} ({where}){route}, without leaving "
               f"the loop; {vocab.ADVICE[site.kind]}")
    return Finding(DETECTOR, Severity.WARNING, message,
                   {"file": func.module.path, "line": node.lineno, "column": node.col_offset + 1,
                    "function": func.qualname},
                   {"call": call, "calls": site.what, "entry": entry.qualname, "entry_kind": how,
                    "entry_file": entry.module.path, "entry_line": entry_line, "chain": chain, "entries": entries,
                    "entry_calls": [{"function": q, "file": f, "line": n} for f, n, q in entry_calls],
                    **({"guess": site.guess} if site.guess else {}),
                    **({"library": site.library.evidence()} if site.library is not None else {}),
                    **({"inferred": site.inferred} if site.inferred is not None else {})},
                   kind=site.kind)
