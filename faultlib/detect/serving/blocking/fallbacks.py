"""Stand-ins a module defines for when an import fails, and the import they stand in for.

``try: from app.features.scaler import Scaler`` / ``except ImportError: class Scaler: ...`` (a no-op stub for tests
or a missing optional dependency): the stub only exists when the import fails. When the imported module is one of
the analysed files the import succeeds, so the name means the imported class or function, not the stub. Used by
:meth:`~faultlib.detect.serving.blocking.index.Index.resolve_parts`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Module

__all__ = ["fallback_names"]


def fallback_names(module: Module) -> frozenset[str]:
    """Names a module-level ``try`` imports in its body and defines (``def``/``class``) in an ``except`` handler."""
    found = module.__dict__.get("_faultlib_fallbacks")
    if found is None:
        names: set[str] = set()
        for node in module.tree.body:
            if not isinstance(node, ast.Try):
                continue
            imported = {(alias.asname or alias.name).partition(".")[0] for stmt in node.body
                        if isinstance(stmt, (ast.Import, ast.ImportFrom)) for alias in stmt.names}
            defined = {stmt.name for handler in node.handlers for stmt in handler.body
                       if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
            names |= imported & defined
        found = module.__dict__["_faultlib_fallbacks"] = frozenset(names)
    return found
