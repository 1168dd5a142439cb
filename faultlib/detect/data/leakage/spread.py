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
    found = [f for spread in (k.value for k in call.keywords if k.arg is None)
             for f in _settings(spread, key, call.lineno, tree, bindings)]
    return max(found, key=lambda f: f[0])[1] if found else None


def dict_key(node: ast.expr, key: str, before: int, tree: ast.Module,
             bindings: dict[str, list[ast.expr]]) -> ast.expr | None:
    """The expression under ``key`` of the dictionary ``node`` (a literal, or a name assigned one before line
    ``before``, as :func:`spread_key` reads a spread one): ``lgb.train(params, ...)`` with ``params =
    {'early_stopping_round': 100}``. ``None`` when no setting of ``key`` is seen."""
    found = _settings(node, key, before, tree, bindings)
    return max(found, key=lambda f: f[0])[1] if found else None


def _settings(node: ast.expr, key: str, before: int, tree: ast.Module,
              bindings: dict[str, list[ast.expr]]) -> list[tuple[int, ast.expr | None]]:
    """(line, value) of every setting of ``key`` in the dictionary ``node`` before line ``before``: a literal's key,
    each dictionary literal assigned to the name (a new dictionary: its key, or ``None``), each ``name[key] = v`` and
    each ``name.update(key=v)``/``name.update({key: v})``."""
    if not isinstance(node, ast.Name):
        return [(node.lineno, _literal_key(node, key))] if _literal_key(node, key) is not None else []
    found: list[tuple[int, ast.expr | None]] = []
    for value in bindings.get(node.id, []):
        if value.lineno < before:
            found.append((value.lineno, _literal_key(value, key)))
    for stmt in walk_once(tree):
        if isinstance(stmt, ast.Assign) and stmt.lineno < before:
            for target in stmt.targets:
                if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and \
                        target.value.id == node.id and isinstance(target.slice, ast.Constant) and \
                        target.slice.value == key:
                    found.append((stmt.lineno, stmt.value))
        elif _updates(stmt, node.id) and stmt.lineno < before:  # params.update(early_stopping_round=50)
            setting = next((k.value for k in stmt.keywords if k.arg == key), None)  # type: ignore[attr-defined]
            if setting is None and stmt.args:  # type: ignore[attr-defined]
                setting = _literal_key(stmt.args[0], key)  # type: ignore[attr-defined]
            if setting is not None:
                found.append((stmt.lineno, setting))
    return found


def _updates(node: ast.AST, name: str) -> bool:
    """``name.update(...)``: ``dict.update`` sets the keys of its mapping argument and of its keywords (Python
    library reference, "Mapping Types -- dict": "update([other]) ... with the key/value pairs from other")."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "update" and \
        isinstance(node.func.value, ast.Name) and node.func.value.id == name
