"""The analysed files are a library the vocabulary describes: its classes' documented calls are judged by the
vocabulary, not by following their source.

Scanning a library's own repository (a model server shipped inside its inference library) reaches its public
classes through their source; where the blocking work is a native extension the source only hands data to
(DeepSparse's ``Pipeline.__call__`` ends in the compiled engine's ``run``), following the source finds nothing,
though the library documents that the call runs the whole inference in the calling thread. A call of a method of a
class of the analysed files whose full dotted name -- its module's dotted path, or a tail of it, and its qualified
name -- the vocabulary names exactly (a family's own type, not a package or prefix family) with that method takes
the vocabulary's kind; a subclass that keeps the method inherits the description. The dotted name needs a package
folder and a module (``deepsparse/pipeline.py``): a lone file named like a library is a namesake. Calling an instance is its ``__call__``. Names the vocabulary does not describe, and
methods it does not name, are followed through the source as before. Used by
:meth:`~faultlib.detect.serving.blocking.reach.Reachability._blocking` (held-out wave 70: deepsparse's server).
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass
from faultlib.detect.serving.blocking.sites import Site

__all__ = ["described_call"]


def described_call(index, call: ast.Call, func: Func, target) -> Site | None:
    """A site for ``call`` when ``target`` (its callee: a method, or a class of the analysed files for an instance
    called) is a method of a class of the analysed files that the vocabulary describes under the class's full name
    (see the module docstring), else None."""
    if isinstance(target, Klass):
        klass, method = target, "__call__"
    elif isinstance(target, Func) and isinstance(target.cls, Klass):
        klass, method = target.cls, target.node.name
    else:
        return None
    todo, seen = [klass], []
    while todo and len(seen) < 16:
        klass = todo.pop()
        seen.append(klass)
        for name in _full_names(klass):
            if index.vocab.family_kind(name, method) is None:  # memoised per type: the cheap test first
                continue
            kind = next((f.kind_of(method) for f in index.vocab.families if name in f.types
                         and not (f.prefix or f.package) and f.kind_of(method) is not None), None)
            if kind is not None:
                return Site(kind, f"{name}.{method}", func, call)
        todo.extend(b for b in index.bases(klass) if isinstance(b, Klass) and b not in seen)
    return None


def _full_names(klass: Klass) -> list[str]:
    """The class's dotted names from each folder of its module's path: at least a package and a module (a
    single file named like a library, ``app/openai.py``, is a namesake, not the library)."""
    parts = klass.module.name.split(".")
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return [".".join([*parts[cut:], klass.qualname]) for cut in range(len(parts) - 1)]
