"""Calls into the libraries installed in the user's environment: ``lib.fetch(...)`` on the loop, where ``lib`` is a
package the vocabulary does not describe, blocks when the library's own source says so.

A user runs ``faultlib check blocking`` in the project's environment, where the libraries its code calls are installed:
their source is the oracle the vocabulary cannot be (a one-repository library's ``fetch`` that calls
``requests.get``, a watermark helper that runs ffmpeg). When a call on the loop resolves to a dotted name
(:meth:`~faultlib.detect.serving.blocking.index.Index.callee`) whose top-level package is not the scanned code's, not
the standard library's and not one the vocabulary names, and no vocabulary rule judged the call, the package is
looked up in the site directories (:class:`Installed`); its modules are read through :mod:`faultlib.readers` (bounded
size, symbolic links not followed), each when a name the walk looks up first asks for it, and indexed like the scanned code
(:class:`~faultlib.detect.serving.blocking.index.Index`), and the called function (a class: its ``__init__``/``__new__``)
is walked with the same :class:`~faultlib.detect.serving.blocking.reach.Reachability`. A blocker it reaches makes the
call a finding at the call's own line, of the blocker's kind, whose ``evidence.library`` names the distribution, its
version and the chain into it (``nordpool.elspot.Prices.fetch -> requests.get``). A library that calls another
unknown installed library is followed into it, :data:`MAX_DEPTH` libraries deep.

Only blockers the vocabulary names count inside a library: a verdict guessed from a class name (``...Client``), a
method name on a value of unknown type (``.read()``) and a call guessed to be a model's forward are left out there
(library code is full of such names on values the analysis cannot type); an async function called is an async API
(nothing on the loop); a branch filled by a cache at import time blocks nothing
(:mod:`~faultlib.detect.serving.blocking.warm_caches`), nor one that fills a memo once per process or depends on the
type of an argument (:mod:`~faultlib.detect.serving.blocking.lazy_fills`). A method a class of the scanned code inherits from a library
class (``class AioPrices(Prices)``, then ``self._parse_json(...)``) is the library's method.

Bounds (a lookup that grows is cut, never sampled): a library's modules are read only when a name the walk looks up
asks for them, at most :data:`MAX_FILES` per library; :data:`MAX_OPERATIONS` calls examined per
library function walked, :data:`MAX_TOTAL_OPERATIONS` per run. A walk cut by a bound is no finding, and the report
says so (``followed[].complete``). Results are cached per distribution and version within a run.
"""

from __future__ import annotations

import os
import re
import site
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

__all__ = ["MAX_DEPTH", "MAX_FILES", "MAX_OPERATIONS", "Installed", "LibraryHit", "default_site_dirs"]

MAX_FILES = 200
"""Modules read per library (only those a name looked up asks for are read)."""
MAX_OPERATIONS = 20_000
"""Calls examined when walking one library function (the analysis' own budget is 300,000 for a whole service)."""
MAX_TOTAL_OPERATIONS = 400_000
"""Calls examined inside libraries in one run, all walks together."""
MAX_DEPTH = 3
"""Libraries followed one into another (the user's call into ``a``, ``a`` into ``b``, ``b`` into ``c``)."""
MAX_CACHED = 32
"""Libraries kept read and indexed in one process (keyed by site directories, distribution and version): a second
analysis in the same process (a benchmark, a test session) reuses them."""
GUESSED = ("under torch.no_grad()",)
"""Words of a site's ``what`` for verdicts guessed from context, left out inside libraries."""


@dataclass(frozen=True)
class LibraryHit:
    """The blocker a library call reaches: ``kind``, ``what`` the blocker calls (``requests.get``), ``chain`` (the
    library functions from the called one to the blocker, dotted), ``file``/``line`` of the blocker,
    ``distribution``/``version`` of the library called."""

    kind: str
    what: str
    chain: tuple[str, ...]
    file: str
    line: int
    distribution: str
    version: str
    lazy: bool = False
    """The called function is a generator: the call only makes the generator, whose body (and the blocker) runs
    where it is iterated (https://docs.python.org/3/reference/expressions.html#yield-expressions)."""

    def said(self) -> str:
        """The hit in words, for a finding's message."""
        version = self.version if self.version != "unknown" else "version unknown"
        return f"the installed library {self.distribution} ({version}) reaches {self.what}: {' -> '.join(self.chain)}"

    def evidence(self) -> dict:
        return {"distribution": self.distribution, "version": self.version, "chain": " -> ".join(self.chain),
                "blocker_file": self.file, "blocker_line": self.line}


_LIBRARIES: dict[tuple, _Library] = {}


@dataclass
class _Library:
    top: str
    root: Path  # the site directory it sits in
    distribution: str
    version: str
    index: object | None = None
    files: int = 0
    complete: bool = True
    calls: int = 0
    reach: object | None = None


def default_site_dirs() -> list[Path]:
    """The site directories of the running interpreter (``site.getsitepackages()`` and the user site), and those of
    the virtual environment ``VIRTUAL_ENV`` names when faultlib runs from another one (pipx): where the project's
    libraries are installed. Existing directories only, each once."""
    found: list[Path] = []
    candidates = [*getattr(site, "getsitepackages", list)(), site.getusersitepackages()]
    venv = os.environ.get("VIRTUAL_ENV")
    if venv:
        candidates += sorted(str(p) for p in Path(venv).glob("lib/python*/site-packages"))
        candidates.append(str(Path(venv) / "Lib" / "site-packages"))
    for candidate in candidates:
        path = Path(candidate)
        if path.is_dir() and not path.is_symlink() and path.resolve() not in {f.resolve() for f in found}:
            found.append(path)
    return found


@dataclass
class Installed:
    """The libraries installed in ``site_dirs``, followed on demand (see the module docstring).

    Args:
        site_dirs: the directories to look in (``site-packages``), first match wins.
        known: top-level package names the vocabulary describes (never followed: the vocabulary judges them).
        provided: the dotted names of the scanned code's own modules: a name whose module is one of them is never
            looked up (a member the scanned module lacks), while a top-level name shared with the scanned code
            (an integration named like the library it wraps: ``nordpool`` importing ``nordpool.elspot``) is.
    """

    site_dirs: list[Path]
    known: frozenset[str] = frozenset()
    provided: frozenset[str] = frozenset()
    missing: set[str] = field(default_factory=set)
    operations: int = 0
    _libraries: dict[str, _Library | None] = field(default_factory=dict)
    _verdicts: dict[str, LibraryHit | None] = field(default_factory=dict)
    _busy: set[str] = field(default_factory=set)
    _dists: dict[str, tuple[str, str, Path]] | None = None
    _returned: dict[str, str | None] = field(default_factory=dict)
    _unread: object | None = None  # the distributions not read yet (a generator), None once all are

    # -- the report -------------------------------------------------------------------------------
    def followed(self) -> list[dict]:
        """The libraries whose source was read: ``{name, version, files, calls, complete}`` each, by name."""
        return sorted(({"name": lib.distribution, "version": lib.version, "files": lib.files, "calls": lib.calls,
                        "complete": lib.complete} for lib in self._libraries.values() if lib is not None
                       and lib.index is not None), key=lambda d: d["name"].lower())

    inside_library = False
    """Whether this lookup serves the walk of a library's own code (there no guessed verdict counts)."""

    def has_source(self, top: str) -> bool:
        """Whether the package ``top`` was found installed and its source read completely (its verdicts stand)."""
        library = self._libraries.get(top)
        return library is not None and library.index is not None and library.complete

    def requires(self, top: str) -> list[str]:
        """The distribution names (lower case, ``-`` for ``_``) the distribution installing ``top`` declares it
        requires (``Requires-Dist``, extras' requirements left out); empty when ``top`` is not installed here."""
        library = self._library(top, depth=1)
        if library is None:
            return []
        from importlib import metadata

        for dist in metadata.distributions(path=[str(library.root)]):
            if (dist.metadata["Name"] or "") == library.distribution:
                return [re.split(r"[\s;<>=!~\[(]", r, maxsplit=1)[0].lower().replace("_", "-")
                        for r in dist.requires or [] if "extra ==" not in r and "extra==" not in r]
        return []

    # -- judging a call ---------------------------------------------------------------------------
    def site(self, index, target: str, call, func, depth: int = 0):
        """The :class:`~faultlib.detect.serving.blocking.sites.Site` of ``call`` in ``func`` of ``index`` (a call of
        ``target``, a dotted name no vocabulary rule judged) when the library's source reaches a blocker, else None.
        Used by :meth:`~faultlib.detect.serving.blocking.reach.Reachability._blocking` through ``index.installed``."""
        hit = self.reaches(target, depth)
        if hit is None:
            return None
        from faultlib.detect.serving.blocking.sites import Site

        return Site(hit.kind, target, func, call, library=hit)

    def inherited_site(self, index, call, func, depth: int = 0):
        """:meth:`site` for ``self.m(...)`` (or ``obj.m(...)`` on an instance of a class of ``index``) where the class
        defines no ``m`` and a base of it, transitively, is a class of a library this lookup may follow: ``base.m``."""
        import ast

        from faultlib.detect.serving.blocking.model import Klass

        if not isinstance(call.func, ast.Attribute):
            return None
        owner = index.type_of(call.func.value, func)
        if not isinstance(owner, Klass) or index.method(owner, call.func.attr) is not None:
            return None
        todo, seen = [owner], []
        while todo and len(seen) < 16:
            klass = todo.pop(0)
            seen.append(klass)
            for base in index.bases(klass):
                if isinstance(base, str) and self.followable(base):
                    return self.site(index, f"{base}.{call.func.attr}", call, func, depth)
                if isinstance(base, Klass) and base not in seen:
                    todo.append(base)
        return None

    def returned(self, target: str) -> str | None:
        """The class a factory of an installed library returns by the library's own source: the function ``target``'s
        return annotation (``def driver(uri) -> Driver``) or the object its body builds and returns (``return
        cls(...)`` of a classmethod, ``return Driver(...)``), as a dotted name inside the library; None when not
        installed, not a function, or it does not say. Used by :mod:`~faultlib.detect.serving.blocking.made_handles`
        (cached per name within the run)."""
        from faultlib.detect.serving.blocking.model import Func, Klass

        if not self.followable(target):
            return None
        if target not in self._returned:
            self._returned[target] = None
            library = self._library(target.partition(".")[0], depth=1)
            found = self._index(library).lookup(target) if library is not None else None
            typed = self._index(library).return_type(found) if isinstance(found, Func) else None
            if isinstance(typed, Klass):
                self._returned[target] = f"{typed.module.name}.{typed.qualname}"
            elif isinstance(typed, str) and typed.rpartition(".")[2][:1].isupper():
                self._returned[target] = typed
        return self._returned[target]

    def library_class(self, name: str):
        """``(library index, class)`` for the dotted class name ``name`` as the installed library's source defines
        it, or None (not installed, not followable, not a class there). Used by
        :mod:`~faultlib.detect.serving.blocking.absent_methods`."""
        from faultlib.detect.serving.blocking.model import Klass

        library = self._library(name.partition(".")[0], depth=1) if self.followable(name) else None
        found = self._index(library).lookup(name) if library is not None else None
        return (library.index, found) if isinstance(found, Klass) else None

    def followable(self, target: str) -> bool:
        """Whether ``target`` (a dotted name a call resolved to) names a package this lookup may follow."""
        top = target.partition(".")[0]
        return (bool(top) and top.isidentifier() and "(" not in target and "*" not in target
                and top not in sys.stdlib_module_names and top not in ("builtins", "__future__")
                and top not in self.known and target.rpartition(".")[0] not in self.provided)

    def reaches(self, target: str, depth: int = 0) -> LibraryHit | None:
        """The blocker the library call ``target`` (``nordpool.elspot.Prices.fetch``) reaches, or None (not
        installed, an async function, nothing blocking, a bound ran out). Cached per name within the run."""
        if not self.followable(target) or depth >= MAX_DEPTH or target in self._busy:
            return None
        if target in self._verdicts:
            return self._verdicts[target]
        self._busy.add(target)
        try:
            verdict = self._judge(target, depth)
        finally:
            self._busy.discard(target)
        self._verdicts[target] = verdict
        return verdict

    def _judge(self, target: str, depth: int) -> LibraryHit | None:
        from faultlib.detect.serving.blocking.model import Func, Klass
        from faultlib.detect.serving.blocking.shapes import is_generator

        library = self._library(target.partition(".")[0], depth)
        if library is None:
            return None
        index = self._index(library)
        found = index.lookup(target)
        if isinstance(found, str) and found != target and found.partition(".")[0] != library.top:
            return self.reaches(found, depth + 1)  # a re-export of another installed library's name
        if isinstance(found, Klass):
            functions = [m for m in (index.method(found, "__init__"), index.method(found, "__new__")) if m is not None]
        else:
            functions = [found] if isinstance(found, Func) else []
        library.calls += 1
        best = None
        for func in functions:
            if func.is_async:
                continue  # an async API: calling it only makes a coroutine
            hit = self._walk(library, index, func, depth)
            if hit is not None and is_generator(func):
                hit = replace(hit, lazy=True)
            if hit is not None and (best is None or len(hit.chain) < len(best.chain)):
                best = hit
        return best

    def _walk(self, library: _Library, index, func, depth: int) -> LibraryHit | None:
        from faultlib.detect.serving.blocking.lazy_fills import (
            filled_once,
            type_dispatched,
        )
        from faultlib.detect.serving.blocking.reach import Budget, Reachability
        from faultlib.detect.serving.blocking.warm_caches import WarmCaches

        if self.operations >= MAX_TOTAL_OPERATIONS:
            library.complete = False
            return None
        index.installed = _Deeper(self, depth + 1)
        if library.reach is None or library.reach.index is not index:
            library.reach = Reachability(index)  # one per library: what a walk learnt serves the next call
        reach = library.reach
        reach.operations, reach.complete = 0, True
        reach.budget = min(MAX_OPERATIONS, MAX_TOTAL_OPERATIONS - self.operations)
        try:
            hits = reach._reach(func, direct=True, receiver=func.cls)
        except (Budget, RecursionError):
            library.complete = False
            hits = []
        finally:
            self.operations += reach.operations
        if not reach.complete:
            library.complete = False
        warm = WarmCaches(index)
        kept = [(s, p) for s, p in hits if s.guess is None and not s.what.startswith(".")
                and not any(word in s.what for word in GUESSED) and not warm.warmed(p)
                and not filled_once(p, s.what) and not type_dispatched(p)]
        if not kept:
            return None
        site, path = min(kept, key=lambda h: (len(h[1]), h[0].key))
        chain = tuple(f"{f.module.name}.{f.qualname}" for f, _ in path)
        inner = site.library  # the blocker is itself a call into another library
        what = inner.what if inner is not None else site.what
        chain += inner.chain if inner is not None else (what,)
        return LibraryHit(site.kind, what, chain, inner.file if inner else site.func.module.path,
                          inner.line if inner else site.node.lineno, library.distribution, library.version)

    # -- finding and reading a library -------------------------------------------------------------
    def _library(self, top: str, depth: int = 0) -> _Library | None:
        """The library ``top`` installed in the site directories (cached per run), or None; a package the scanned code
        calls (``depth`` 0) and no directory holds is noted in :attr:`missing`."""
        if top in self._libraries:
            if self._libraries[top] is None and depth == 0 and top not in self._own_tops():
                self.missing.add(top)
            return self._libraries[top]
        found = None
        for root in self.site_dirs:
            package, module = root / top, root / f"{top}.py"
            if (package.is_dir() and not package.is_symlink()) or (module.is_file() and not module.is_symlink()):
                name, version = self._distribution(top, root)
                key = (tuple(map(str, self.site_dirs)), str(root), top, name, version)
                found = _LIBRARIES.pop(key, None) or _Library(top, root, name, version)
                _LIBRARIES[key] = found  # the most recent last
                while len(_LIBRARIES) > MAX_CACHED:
                    _LIBRARIES.pop(next(iter(_LIBRARIES)))
                found.calls = 0
                break
        if found is None and depth == 0 and top not in self._own_tops():
            self.missing.add(top)
        self._libraries[top] = found
        return found

    def _own_tops(self) -> frozenset[str]:
        """The top-level names of :attr:`provided`, computed once per value of it (asked at every call of a package
        that is not installed)."""
        cached = self.__dict__.get("_tops")
        if cached is None or cached[0] is not self.provided:
            cached = self.__dict__["_tops"] = (self.provided, frozenset(n.partition(".")[0] for n in self.provided))
        return cached[1]

    def _distribution(self, top: str, root: Path) -> tuple[str, str]:
        """The distribution (name, version) that installed the top-level name ``top`` in ``root``, from its
        ``*.dist-info`` (``top_level.txt``, else ``RECORD``); ``(top, "unknown")`` when none says so. The first
        distribution (site directories in order) that names ``top`` answers: the distributions are read in that
        order only until one does (a later question goes on from there), each one's metadata parsed once."""
        if self._dists is None:
            self._dists, self._unread = {}, self._each_distribution()
        while top not in self._dists and self._unread is not None:
            found = next(self._unread, None)
            if found is None:
                self._unread = None
                break
            name, version, tops, root_dir = found
            for t in tops:
                self._dists.setdefault(t, (name, version, root_dir))
        name, version, _ = self._dists.get(top, (top, "unknown", root))
        return name, version

    def _each_distribution(self):
        """``(name, version, top-level names, site directory)`` of every distribution of :attr:`site_dirs`."""
        from importlib import metadata

        from faultlib.detect.serving.blocking.distribution_tops import top_level_names

        for root_dir in self.site_dirs:
            for dist in metadata.distributions(path=[str(root_dir)]):
                meta = dist.metadata  # parsed once (``dist.version`` would parse it again)
                name, version = meta["Name"] or "", meta["Version"] or "unknown"
                yield name, version, top_level_names(dist), root_dir

    def _index(self, library: _Library):
        """The library's index, over a :class:`~faultlib.detect.serving.blocking.library_modules.LazyModules`: a module
        is read the first time a name asks for it."""
        if library.index is None:
            from faultlib.detect.serving.blocking.index import Index
            from faultlib.detect.serving.blocking.library_modules import (
                AllPaths,
                LazyModules,
            )

            index = Index(LazyModules(library, MAX_FILES))
            index.outside = AllPaths()  # no coroutine of a library is an entry of the scan
            library.index = index
        return library.index


@dataclass
class _Deeper:
    """The same lookup seen from inside a library ``depth`` levels down (a library calling another one)."""

    owner: Installed
    depth: int
    inside_library = True

    def site(self, index, target: str, call, func):
        return self.owner.site(index, target, call, func, self.depth)

    def inherited_site(self, index, call, func):
        return self.owner.inherited_site(index, call, func, self.depth)
