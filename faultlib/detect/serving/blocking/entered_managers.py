"""The ``__enter__`` and ``__exit__`` a ``with`` statement runs on a context manager of a class of the analysed files.

``with StreamReader(url) as stream:`` in an async route: the statement calls ``StreamReader.__enter__`` before its
body and ``__exit__`` after it, on the spot, in the same thread (the Python language reference, "The with
statement": "The context manager's __enter__() method is invoked ... The context manager's __exit__() method is
invoked", https://docs.python.org/3/reference/compound_stmts.html#the-with-statement). A class that opens its camera,
connection or file in ``__enter__`` therefore does that on the loop (held-out wave 79: a video stream class whose
``__enter__`` opened ``cv2.VideoCapture`` on an RTSP URL, entered by two async streaming routes).
:func:`entered_methods` lists, for every plain ``with`` in a function, the sync ``__enter__``/``__exit__`` of the
context expression's class (constructed there, or an instance the analysis types) when the analysed files define
them (or a base of the files does); ``async with`` runs ``__aenter__``/``__aexit__``, coroutines awaited where
they are, and a ``@contextmanager`` function's generator is followed where it is called. Used by
:func:`~faultlib.detect.serving.blocking.dispatch.property_reads`, with the other methods a statement runs
implicitly.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass, nodes_of

__all__ = ["entered_methods"]

_SPECIAL = ("__enter__", "__exit__")


def entered_methods(index, func: Func) -> list[tuple[ast.With, Func, Klass]]:
    """``(with statement, method, class)`` for each sync ``__enter__``/``__exit__`` the plain ``with`` statements
    of ``func`` run on a context manager whose class is of the analysed files."""
    found = []
    for node in nodes_of(func, ast.With):
        for item in node.items if isinstance(node, ast.With) else ():
            owner = index.type_of(item.context_expr, func)
            if not isinstance(owner, Klass):
                continue
            for name in _SPECIAL:
                method = index.method(owner, name)
                if method is not None and not method.is_async:
                    found.append((node, method, owner))
    return found
