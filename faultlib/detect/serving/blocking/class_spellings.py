"""A library class named by any of its public import paths: the spelling of it the vocabulary knows.

A package re-exports the classes of its submodules from its ``__init__`` ("the ``__init__.py`` file ... can also
execute initialization code", https://docs.python.org/3/tutorial/modules.html#packages: ``openpyxl/workbook/
__init__.py`` says ``from .workbook import Workbook``, and ``openpyxl/__init__.py`` exports it again), so one class
has several dotted names: its defining module's (``openpyxl.workbook.workbook.Workbook``) and each package's on the
way up (``openpyxl.workbook.Workbook``, ``openpyxl.Workbook``). The vocabulary keys a class by one or two of them
(its families' ``types``, the types its ``returns`` give, the ``TYPE`` of its ``TYPE.method`` calls), while the
analysed code may import it by any other (held-out wave 83: ``from openpyxl.workbook import Workbook`` left a
report's ``workbook.save(stream)`` silent where ``from openpyxl import Workbook`` was found).

The rule: a type name ``P.C`` the vocabulary does not describe, whose last part is a class name (capitalised),
stands for the class the vocabulary knows as ``Q.C`` -- same last part, ``Q`` extending ``P`` (``P.C`` re-exports
the class a deeper module defines) or, when none does, ``P`` extending ``Q`` (the name is a deeper module's spelling
of the class the vocabulary keys by its re-export) -- when that known spelling is the only one (several spellings
along one chain of modules are one class: the deepest is taken), and the module parts between the two name no
flavour of the library (``redis.asyncio.Redis`` is the async twin of ``redis.Redis``, not a re-export of it;
``websockets.sync.client.ClientConnection`` is the threaded twin of ``websockets.ClientConnection``).
"""

from __future__ import annotations

FLAVOUR_PARTS = ("Async", "aio", "asyncio", "async", "_async", "asynchronous", "sync", "_sync", "synchronous",
                 "blocking", "threaded", "trio", "gevent", "eventlet", "legacy")
"""Module parts that mark a library's twin implementation of a class (its async or its sync flavour): a class under
one of them is another class than the one of the same name above it."""


def known_spelling(known: frozenset[str], name: str) -> str | None:
    """The spelling in ``known`` (the class names the vocabulary describes) of the class ``name`` re-exports or
    defines, or None (see the module docstring).

    Args:
        known: the dotted class names the vocabulary describes (:func:`described_classes`).
        name: a dotted type name (``openpyxl.workbook.Workbook``) not in ``known``.

    Returns:
        The known dotted name of the same class (``openpyxl.workbook.workbook.Workbook``), or None.
    """
    package, _, last = name.rpartition(".")
    if not package or not last[:1].isupper() or name in known:
        return None
    spellings = _by_class_name(known).get(last, ())
    deeper = [k for k in spellings if _between(package, k.rpartition(".")[0]) is not None]
    if deeper:
        return _one_chain(deeper)
    above = [k for k in spellings if _between(k.rpartition(".")[0], package) is not None]
    return _one_chain(above) if above else None


def described_classes(calls, families, returns) -> frozenset[str]:
    """The dotted class names a vocabulary describes: its exact family types, the types its calls return, and the
    ``TYPE`` of each ``TYPE.method`` call, each with a capitalised last part."""
    owners = (name.rpartition(".")[0] for name in calls)
    types = (t for f in families if not f.prefix and not f.package for t in f.types)
    return frozenset(n for n in (*owners, *types, *returns.values())
                     if "." in n and n.rpartition(".")[2][:1].isupper())


def _between(outer: str, inner: str) -> tuple[str, ...] | None:
    """The module parts ``inner`` adds to ``outer`` (at least one), or None when ``inner`` is not beneath ``outer``
    or one of those parts names a flavour of the library (:data:`FLAVOUR_PARTS`)."""
    if not inner.startswith(f"{outer}."):
        return None
    parts = tuple(inner[len(outer) + 1:].split("."))
    if any(p in FLAVOUR_PARTS or p.startswith(("Async", "aio", "async_", "sync_")) for p in parts):
        return None
    return parts


def _one_chain(spellings: list[str]) -> str | None:
    """The deepest of ``spellings`` when they all lie along one chain of modules (each beneath the next), or None
    when two of them sit in sibling modules (two classes of the same name: which one is meant is unknown)."""
    ordered = sorted(set(spellings), key=lambda s: s.count("."))
    for outer, inner in zip(ordered, ordered[1:]):
        if not inner.rpartition(".")[0].startswith(f"{outer.rpartition('.')[0]}."):
            return None
    return ordered[-1]


def _by_class_name(known: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """``known`` grouped by last part, memoised for the last set asked about (one vocabulary per process)."""
    if _MEMO.get("key") is not known:
        table: dict[str, list[str]] = {}
        for name in known:
            table.setdefault(name.rpartition(".")[2], []).append(name)
        _MEMO["key"], _MEMO["table"] = known, {k: tuple(v) for k, v in table.items()}
    return _MEMO["table"]


_MEMO: dict[str, object] = {}
