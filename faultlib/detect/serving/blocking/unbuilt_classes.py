"""Classes the analysed files never build: an override in one of them is not what a call of the base runs.

A base method that its subclasses override (``BaseQuantizer.encode``, abstract) is followed into every override, since
any subclass may be the instance. A subclass whose name no expression of the analysed files mentions -- it is
defined, perhaps imported or listed in ``__all__``, but never called, passed, stored, subclassed or tested with
``isinstance`` -- has no instance there (kyutai-labs/moshi: ``DummyQuantizer`` beside the
``SplitResidualVectorQuantizer`` its loader builds, held-out wave 69). Its override is left out when another
override's class is mentioned; when none is, the files are a library whose users build the classes, and every
override stays. A class its package exports to a lookup by a name read at run time counts as built
(:mod:`~faultlib.detect.serving.blocking.named_packages`). Used by :class:`~faultlib.detect.serving.blocking.reach.Reachability` for an abstract base method.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass
from faultlib.detect.serving.blocking.named_packages import exported_to_lookup

__all__ = ["built_overrides"]


def built_overrides(index, overrides: list[Func]) -> list[Func]:
    """``overrides`` without those of classes no expression mentions, unless that leaves none."""
    if len(overrides) < 2:
        return overrides
    kept = [o for o in overrides if not isinstance(o.cls, Klass) or _mentioned(index, o.cls.node.name)
            or exported_to_lookup(index, o.cls)]
    return kept if kept else overrides


def _mentioned(index, name: str) -> bool:
    """Whether an expression of the analysed files reads ``name`` (a ``Name``, an ``Attribute``'s attr, or a string
    naming it: ``getattr(module, "Name")``, a registry keyed by it), leaving out ``__all__`` lists (the names a
    module reads are listed once per module, :func:`_reads`)."""
    return any(name in _reads(module) for module in index.distinct_modules() if name in module.source)


def _reads(module) -> frozenset[str]:
    """The names ``module``'s expressions read (``Name`` and ``Attribute`` loads, string constants) outside its
    ``__all__`` lists; memoised on the module."""
    found = module.__dict__.get("_faultlib_reads")
    if found is None:
        tree = module.tree
        listed = {id(c) for n in ast.walk(tree) if _assigns_all(n) for c in ast.walk(n.value)}
        names = set()
        for node in ast.walk(tree):
            if id(node) in listed:
                continue
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                names.add(node.attr)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                names.add(node.value)
        found = module.__dict__["_faultlib_reads"] = frozenset(names)
    return found


def _assigns_all(node: ast.AST) -> bool:
    """``__all__ = [...]`` or ``__all__ += [...]``."""
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
        node, (ast.AugAssign, ast.AnnAssign)) else []
    return node.__dict__.get("value") is not None and any(
        isinstance(t, ast.Name) and t.id == "__all__" for t in targets)
