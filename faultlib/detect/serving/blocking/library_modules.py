"""The modules of one installed library, read when first asked for: the index a walk into the library runs on
(:mod:`~faultlib.detect.serving.blocking.installed`).

A library's package may hold hundreds of modules and a walk needs a few: :class:`LazyModules` is the ``modules``
mapping of an :class:`~faultlib.detect.serving.blocking.index.Index` that reads, parses and indexes a module the first
time a dotted name asks for it (``get``, ``in``, ``[]``), through :mod:`faultlib.readers` (bounded size, symbolic links
not followed), at most ``limit`` modules; iterating it lists the modules read so far (the index's scans over every
module -- call sites, subclasses -- see those). A module that cannot be read or parsed is left out and the library
marked incomplete.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["AllPaths", "LazyModules", "module_file"]


class AllPaths(frozenset):
    """Every path: an index's ``outside`` for a library (no coroutine of a library is an entry of the scan)."""

    def __contains__(self, item) -> bool:
        return True


class LazyModules(dict):
    """The modules of ``library`` (an object with ``top``, ``root``, ``files``, ``complete``) by dotted name, each read
    the first time it is asked for, at most ``limit``."""

    def __init__(self, library, limit: int):
        super().__init__()
        self.library = library
        self.limit = limit
        self.absent: set[str] = set()

    def get(self, name, default=None):
        found = super().get(name)
        return found if found is not None else (self._load(name) or default)

    def __contains__(self, name) -> bool:
        return super().__contains__(name) or self._load(name) is not None

    def __missing__(self, name):
        found = self._load(name)
        if found is None:
            raise KeyError(name)
        return found

    def _load(self, name):
        library = self.library
        if not isinstance(name, str) or name in self.absent or name.partition(".")[0] != library.top:
            return None
        path = module_file(library.root, name.split("."))
        if path is None or len(self) >= self.limit:
            if path is not None:
                library.complete = False
            self.absent.add(name)
            return None
        from faultlib.detect.serving.blocking.model import build_module
        from faultlib.errors import InputError
        from faultlib.readers import read_text
        from faultlib.readers.pysource import parse_python

        self.absent.add(name)  # while it is built (and for good if it cannot be)
        try:
            source = read_text(path.relative_to(library.root), root=library.root)
            module = build_module(name, str(path), source, parse_python(source, str(path)))
        except (InputError, RecursionError, ValueError):
            library.complete = False  # one unreadable file: the rest is still followed
            return None
        self.absent.discard(name)
        self[name] = module
        library.files = len(self)
        return module


def module_file(root: Path, parts: list[str]) -> Path | None:
    """The file of the module ``parts`` (``["nordpool", "elspot"]``) under the site directory ``root``: its package's
    ``__init__.py`` or its ``.py``, never through a symbolic link; None when there is none."""
    if not parts or not all(p.isidentifier() for p in parts):
        return None
    base = root.joinpath(*parts)
    if any(p.is_symlink() for p in [*base.parents][:len(parts) - 1]) or base.is_symlink():
        return None
    for path in (base / "__init__.py", base.with_suffix(".py")):
        if path.is_file() and not path.is_symlink():
            return path
    return None
