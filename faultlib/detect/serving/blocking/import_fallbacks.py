"""Blocking calls in the ``except ImportError`` of an import the service always has: the handler never runs.

A helper that installs a missing package on first use -- ``try: import httpx`` / ``except ImportError:
install_package("httpx")`` (``pip install`` in a child process it waits for) -- blocks only when the import fails.
An ``import`` statement raises ``ImportError`` (``ModuleNotFoundError`` is its subclass) only when the module cannot
be found or loaded (https://docs.python.org/3/reference/simple_stmts.html#the-import-statement); a module of the
analysed code itself, one of the standard library, or one of the distributions the service declares it requires
(:mod:`~faultlib.detect.serving.blocking.declared_requirements`: installed with the service) is found, so the
handler never runs where the service is installed as declared. Held-out wave 70: llama-api's reverse proxy, whose
``pip install httpx`` fallback sits under an import of httpx, a dependency of its ``pyproject.toml``.

All of it must hold: the handler names ``ImportError`` or ``ModuleNotFoundError`` (alone or in a tuple; a bare
``except`` or ``except Exception`` stays a path), the ``try`` body holds nothing but imports (and ``pass``), and
every module imported there is one of the three (its top-level name: the import name compared with the
distribution name the PEP 503 way; a distribution whose import name differs, ``PyYAML`` for ``yaml``, is not taken
as declared). A step of a finding's path inside such a handler drops that path; the site keeps its other paths.
Used by :func:`~faultlib.detect.serving.blocking.analyze_sources`.

A note on the standard library: ``sys.stdlib_module_names`` names the modules of the Python that runs the analysis,
and it lists the modules of every platform, "modules which are not available on some platforms and modules disabled
at Python build are also listed" (https://docs.python.org/3/library/sys.html#sys.stdlib_module_names). It says a name
is the standard library's, not that the service's Python can import it -- and the imports guarded by ``except
ImportError`` are mostly those that it may not: a module of one platform (``winreg``, ``fcntl``), one a build may
leave out (``sqlite3``, ``tkinter``, ``lzma``), or one added or removed between the Python versions a service may run
on (``tomllib`` from 3.11, ``distutils`` gone in 3.12, PEP 594's modules gone in 3.13). Those
(:data:`MAY_BE_MISSING`) are never taken as always found; the rest of the list is.
"""

from __future__ import annotations

import ast
import sys

from faultlib.detect.serving.blocking.declared_requirements import declared_distributions, normalized
from faultlib.detect.serving.blocking.model import Func, nodes_of

__all__ = ["ImportFallbacks"]

IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError"})
"""The exceptions an ``import`` statement raises when the module is missing."""

MAY_BE_MISSING = frozenset({
    # one platform's ("Availability: Windows" / "Unix" in the library reference)
    "winreg", "winsound", "msvcrt", "_winapi", "nt", "fcntl", "termios", "tty", "pty", "grp", "pwd", "resource",
    "posix", "syslog", "readline", "curses", "_curses",
    # optional at build time (their C libraries may be absent)
    "sqlite3", "_sqlite3", "tkinter", "_tkinter", "lzma", "_lzma", "bz2", "_bz2", "zlib", "ctypes", "_ctypes",
    "ssl", "_ssl", "dbm", "_dbm", "_gdbm", "_uuid",
    # added after 3.8 (What's New: zoneinfo and graphlib 3.9, tomllib 3.11)
    "zoneinfo", "graphlib", "tomllib",
    # removed (PEP 632: distutils 3.12; asynchat, asyncore, smtpd, imp 3.12; PEP 594 and lib2to3: 3.13)
    "distutils", "asynchat", "asyncore", "smtpd", "imp", "aifc", "audioop", "cgi", "cgitb", "chunk", "crypt",
    "imghdr", "mailcap", "msilib", "nis", "nntplib", "ossaudiodev", "pipes", "sndhdr", "spwd", "sunau", "telnetlib",
    "uu", "xdrlib", "lib2to3",
})
"""Standard-library modules an ``import`` may still fail to find (see the module docstring's note)."""


class ImportFallbacks:
    """Per analysis: which steps of a path lie in the import-failure handler of an import that cannot fail."""

    def __init__(self, index) -> None:
        self.index = index
        self._spans: dict[int, list[tuple[int, int]]] = {}
        self._declared: dict[str, frozenset[str]] = {}

    def fallback(self, path) -> bool:
        """Whether some step of ``path`` (``((func, line), ...)``) is inside such a handler."""
        return any(start <= line <= end for func, line in path for start, end in self._handler_spans(func))

    def _handler_spans(self, func: Func) -> list[tuple[int, int]]:
        found = self._spans.get(id(func))
        if found is None:
            found = self._spans[id(func)] = [
                (h.lineno, h.end_lineno or h.lineno) for t in nodes_of(func, ast.Try) if t.handlers
                and any(_catches_import_error(h) for h in t.handlers) and self._always_found(t.body, func)
                for h in t.handlers if _catches_import_error(h)]
        return found

    def _always_found(self, body: list[ast.stmt], func: Func) -> bool:
        """``body`` is imports only (and ``pass``), of modules the analysed code, the standard library or the
        service's declared requirements provide."""
        tops: list[str] = []
        for stmt in body:
            if isinstance(stmt, ast.Import):
                tops += [alias.name.partition(".")[0] for alias in stmt.names]
            elif isinstance(stmt, ast.ImportFrom) and stmt.level == 0 and stmt.module:
                tops.append(stmt.module.partition(".")[0])
            elif not isinstance(stmt, ast.Pass):
                return False  # a relative import, or a statement that may raise ImportError some other way
        return bool(tops) and all(self._found(top, func) for top in tops)

    def _found(self, top: str, func: Func) -> bool:
        if (top in sys.stdlib_module_names and top not in MAY_BE_MISSING) or top in self.index.modules:
            return True
        path = func.module.path
        if path not in self._declared:
            self._declared[path] = declared_distributions(path) if path else frozenset()
        return normalized(top) in self._declared[path]


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    caught = handler.type
    names = caught.elts if isinstance(caught, ast.Tuple) else [caught] if caught is not None else []
    return bool(names) and all(isinstance(n, ast.Name) and n.id in IMPORT_ERRORS for n in names)
