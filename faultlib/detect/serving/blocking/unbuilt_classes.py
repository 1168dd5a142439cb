"""Classes the analysed files never build: an override in one of them is not what a call of the base runs.

A base method that its subclasses override (``BaseQuantizer.encode``, abstract) is followed into every override, since
any subclass may be the instance. A subclass whose name no expression of the analysed files mentions -- it is
defined, perhaps imported or listed in ``__all__``, but never called, passed, stored, subclassed or tested with
``isinstance`` -- has no instance there (kyutai-labs/moshi: ``DummyQuantizer`` beside the
``SplitResidualVectorQuantizer`` its loader builds, held-out wave 69). Its override is left out when another
override's class is mentioned; when none is, the files are a library whose users build the classes, and every
override stays. Used by :class:`~faultlib.detect.serving.blocking.reach.Reachability` for an abstract base method.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass

__all__ = ["built_overrides"]


def built_overrides(index, overrides: list[Func]) -> list[Func]:
    """``overrides`` without those of classes no expression mentions, unless that leaves none."""
    named = _mentioned(index)
    kept = [o for o in overrides if not isinstance(o.cls, Klass) or o.cls.node.name in named]
    return kept if kept else overrides


def _mentioned(index) -> frozenset[str]:
    """Every name read in an expression of the analysed files (``Name`` ids and ``Attribute`` attrs, in load
    context), leaving out the string lists of ``__all__`` (computed once per index)."""
    found = index.__dict__.get("_faultlib_mentioned")
    if found is None:
        names: set[str] = set()
        for module in index.distinct_modules():
            listed = {id(c) for n in ast.walk(module.tree) if _assigns_all(n) for c in ast.walk(n.value)}
            for node in ast.walk(module.tree):
                if id(node) in listed:
                    continue
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                    names.add(node.id)
                elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
                    names.add(node.attr)
                elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
                    names.add(node.value)  # getattr(module, "Name"), a registry keyed by the class name
        found = index.__dict__["_faultlib_mentioned"] = frozenset(names)
    return found


def _assigns_all(node: ast.AST) -> bool:
    """``__all__ = [...]`` or ``__all__ += [...]``."""
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
        node, (ast.AugAssign, ast.AnnAssign)) else []
    return node.__dict__.get("value") is not None and any(
        isinstance(t, ast.Name) and t.id == "__all__" for t in targets)
