"""A parameter whose default is a function holds a function, whatever its annotation names.

``tools_renderer: ToolsRenderer = render_text_description`` annotates the parameter with a library's alias of a
``Callable`` (``ToolsRenderer = Callable[[list[BaseTool]], str]`` in langchain_core.tools); read as a class of the
library, ``tools_renderer(tools)`` looked like a call of that class's instance. The default says what the
parameter holds: a function (a ``def`` of the analysed files, a ``lambda``, or an imported snake_case name that is not
a value the module builds), so calling it runs that function (followed where the call sites' arguments are known,
:mod:`~faultlib.detect.serving.blocking.passed`), not a method of the annotated type. PEP 8 names functions in
lowercase and classes in CapWords (https://peps.python.org/pep-0008/#naming-conventions). Used by
:meth:`~faultlib.detect.serving.blocking.index.Index.local_types`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, dotted

__all__ = ["holds_function"]


def holds_function(index, default: ast.expr | None, func: Func) -> bool:
    """Whether ``default`` (a parameter's default value in ``func``'s signature) is a function."""
    if isinstance(default, ast.Lambda):
        return True
    parts = dotted(default) if isinstance(default, (ast.Name, ast.Attribute)) else None
    if not parts:
        return False
    found = index.resolve_parts(parts, func.module, func.parent)
    if isinstance(found, Func):
        return True
    return (isinstance(found, str) and parts[0] not in func.module.globals
            and found.rpartition(".")[2].islower() and not found.startswith("builtins."))
