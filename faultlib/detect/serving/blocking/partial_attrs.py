"""Local types read off a class whose attribute types are still being worked out are asked again afterwards.

:meth:`~faultlib.detect.serving.blocking.index.Index.attributes` types ``self.X`` from the stores in a class's
methods, and a store's value is typed in its method, whose local types (memoised per function) may in turn read
``self.Y`` of that same class before ``Y``'s store has been typed: ``self.engine = None``, then ``self.engine =
create_engine(url)``, and ``with self.engine.connect() as conn`` beneath it in ``__init__``. Typed while the class's
attributes were half known, ``conn`` stayed unknown for good, and whether it did depended on which handler happened
to ask first (held-out wave 64: a research agent's database wrapper, whose ``conn.execute`` was found behind one
endpoint and lost behind another that typed a local from the wrapper's methods first). :class:`PartialAttributes`
notes the functions whose locals read such half-typed attributes (directly or through another function's locals
that did) and forgets their local types once the outermost attribute typing is over, so the next question types
them against the finished attributes; answers in between stay as provisional as before (``Index._inferring``).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.model import Func, Klass

__all__ = ["PartialAttributes"]


class PartialAttributes:
    """The bookkeeping of one index (see the module docstring)."""

    def __init__(self) -> None:
        self._open: set[int] = set()  # classes whose attributes are being typed
        self._read = False  # the locals being typed now read attributes of one of them
        self._stale: list[Func] = []  # functions whose memoised locals did

    def opening(self, klass: Klass) -> None:
        self._open.add(id(klass))

    def closing(self, klass: Klass) -> None:
        """``klass``'s attributes are typed; when no other class's are still open, forget the stale locals."""
        self._open.discard(id(klass))
        if not self._open:
            for func in self._stale:
                func._types = None
            self._stale.clear()
            self._read = False

    def read(self, klass: Klass) -> None:
        """``klass``'s attributes are read (finished or not)."""
        if id(klass) in self._open:
            self._read = True

    def locals_started(self) -> bool:
        """Start typing a function's locals; the flag of the enclosing typing, to hand back to :meth:`locals_done`."""
        outer, self._read = self._read, False
        return outer

    def locals_done(self, func: Func, outer: bool) -> None:
        """``func``'s locals are typed: stale if they read half-typed attributes; the enclosing typing is then too."""
        if self._read and self._open:
            self._stale.append(func)
        self._read = outer or self._read
