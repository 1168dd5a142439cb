"""A keyword given through a parameter dictionary spread into a call: ``XGBClassifier(**params)``.

Python passes every key of ``params`` as a keyword argument (language reference, "Calls": ``**expression``),
so ``params['callbacks'] = [EarlyStopping(rounds=5)]`` followed by ``XGBClassifier(**params)`` is
``XGBClassifier(callbacks=[...])``. Syntactic and flow-insensitive: the dictionary's literal keys where it is
assigned (``params = {'callbacks': [...]}``, ``dict(callbacks=[...])``) and its item assignments
(``params['callbacks'] = ...``) in the module before the call, the last one in source order (notebook cells
joined in order; a loop or a helper run later is not followed).
"""

from __future__ import annotations

import ast

from faultlib.pyflow.walk import walk_once


def _literal_key(value: ast.expr, key: str) -> ast.expr | None:
    if isinstance(value, ast.Dict):
        return next((v for k, v in zip(value.keys, value.values)
                     if isinstance(k, ast.Constant) and k.value == key), None)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict":
        return next((k.value for k in value.keywords if k.arg == key), None)
    return None


def spread_key(call: ast.Call, key: str, tree: ast.Module, bindings: dict[str, list[ast.expr]]) -> ast.expr | None:
    """The expression given for keyword ``key`` through a ``**name`` of ``call`` (``None`` when there is none).

    Args:
        call: the call (``XGBClassifier(**params)``).
        key: the keyword wanted (``callbacks``).
        tree: the module, searched for ``name[key] = value`` item assignments.
        bindings: ``{name: [assigned expressions]}`` of the module, searched for dictionary literals.
    """
    found: list[tuple[int, ast.expr | None]] = []  # (line, value) of every setting before the call
    for spread in (k.value for k in call.keywords if k.arg is None):
        if not isinstance(spread, ast.Name):
            continue
        for value in bindings.get(spread.id, []):
            if value.lineno < call.lineno:
                found.append((value.lineno, _literal_key(value, key)))  # a new dictionary: its key, or none
        for node in walk_once(tree):
            if isinstance(node, ast.Assign) and node.lineno < call.lineno:
                for target in node.targets:
                    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and \
                            target.value.id == spread.id and isinstance(target.slice, ast.Constant) and \
                            target.slice.value == key:
                        found.append((node.lineno, node.value))
    return max(found, key=lambda f: f[0])[1] if found else None
