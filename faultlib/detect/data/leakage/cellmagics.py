"""A notebook exported as a script (``jupyter nbconvert --to script``, Kaggle's "download code") keeps each
``%%time`` cell as one call: ``get_ipython().run_cell_magic('time', '', "cv = CountVectorizer()\\nX = ...")``.
IPython runs that string as the cell's Python in the user's namespace (IPython, "Built-in magic commands":
``%%time``, ``%%capture``, ...: the same magics :data:`~faultlib.detect.data.leakage.source.PYTHON_CELL_MAGICS`
names for a notebook's ``%%`` cells). Read as a call, the fit or the cross-validation inside is invisible.

:func:`inline_cell_magics` puts the body's statements in place of the call: every node of the body gets the
call's line (the script's lines keep their numbers; a finding inside the body names the line of the call). A
body that does not parse (after :func:`~faultlib.detect.data.leakage.source.clean_lines` turns its own
``!shell`` and ``%magic`` lines into no-ops) leaves the call as it is; so does a magic that does not run its body
as Python (``%%bash``, ``%%writefile``, ``%%html``), also when it opens the body of one that does: IPython
transforms a ``%%time`` body as a cell of its own, so ``'%%script false --no-raise-error\\n...'`` under
``%%time`` hands the code to the shell command ``false`` and none of it runs (the usual way to switch a cell off).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Collection

from faultlib.errors import InputError
from faultlib.readers.pysource import parse_python


def _body(stmt: ast.stmt, magics: Collection[str]) -> str | None:
    """The Python text a statement ``get_ipython().run_cell_magic(name, line, body)`` runs (``name`` one of
    ``magics``), else ``None``."""
    call = stmt.value if isinstance(stmt, ast.Expr) else None
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
            and call.func.attr == "run_cell_magic" and len(call.args) == 3):
        return None
    receiver = call.func.value
    if not (isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name)
            and receiver.func.id == "get_ipython"):
        return None
    name, body = call.args[0], call.args[2]
    if not (isinstance(name, ast.Constant) and name.value in magics
            and isinstance(body, ast.Constant) and isinstance(body.value, str)):
        return None
    return body.value if opens_python(body.value.split("\n"), magics) else None


def opens_python(lines: list[str], magics: Collection[str]) -> bool:
    """Each ``%%`` line at the top of ``lines`` (a cell, or a cell magic's body) names one of ``magics``, the cell
    magics that run their body as Python: ``%%time`` then ``%%script false`` runs none of it (IPython transforms
    the ``%%time`` body as a cell of its own)."""
    for line in lines:
        if not line.lstrip().startswith("%%"):
            break
        words = line.strip()[2:].split()
        if not (words and words[0] in magics):
            return False
    return True


def _statements(text: str, line: int, clean: Callable[[list[str]], list[str]]) -> list[ast.stmt] | None:
    """``text`` parsed after ``clean``, every node placed on ``line`` (column offsets kept); ``None`` when it does
    not parse."""
    try:  # the static checks' shared reader: a body in newer syntax (Python 3.12, 3.14) is read too
        module = parse_python("\n".join(clean(text.split("\n"))), "<cell magic>", keep_syntax_errors=True)
    except (SyntaxError, InputError):
        return None
    for node in ast.walk(module):
        if hasattr(node, "lineno"):
            node.lineno = node.end_lineno = line
    return module.body or None


def inline_cell_magics(tree: ast.Module, magics: Collection[str],
                       clean: Callable[[list[str]], list[str]]) -> ast.Module:
    """``tree`` with each statement-level ``get_ipython().run_cell_magic(...)`` of one of ``magics`` (the cell
    magics that run their body as Python) replaced by the statements of its body, each body first passed
    through ``clean`` (IPython-only lines to no-ops). Changes ``tree`` in place and returns it."""
    for node in ast.walk(tree):
        for attr in ("body", "orelse", "finalbody"):
            stmts = getattr(node, attr, None)
            if not isinstance(stmts, list) or not any(_body(s, magics) is not None for s in stmts if isinstance(s, ast.stmt)):
                continue
            out: list[ast.stmt] = []
            for stmt in stmts:
                text = _body(stmt, magics) if isinstance(stmt, ast.stmt) else None
                inner = _statements(text, stmt.lineno, clean) if text is not None else None
                out.extend(inner if inner else [stmt])
            setattr(node, attr, out)
    return tree
