"""Library classes a conditional expression picks between, taken for one: ``DemoClient if demo else Client``.

A package's demo/live or sandbox/production classes are twins of one API (capitalcom-python's ``client_demo.Client``
and ``client.Client`` differ only in the server they call), so an instance built from the expression has the
methods either class has and they are judged the same way; library classes of different packages are left
untyped. Used by :meth:`~faultlib.detect.serving.blocking.index.Index.callee` (``(A if x else B)(...)``) and
:mod:`~faultlib.detect.serving.blocking.stored_callables` (``self.cls = A if x else B``, then ``self.cls(...)``).
"""

from __future__ import annotations

__all__ = ["library_twin"]


def library_twin(sides: list) -> str | None:
    """The first of library classes a conditional expression picks between (``DemoClient if demo else Client``,
    ``SandboxApi if test else Api``) when all are classes of the same third-party package, or None. A package's
    demo/live or sandbox/production classes are twins of one API (capitalcom-python's ``client_demo.Client`` and
    ``client.Client`` differ only in the server they call), so the instance has the methods either class has and
    they are judged the same way; classes of different packages are left untyped."""
    if len(sides) < 2 or not all(isinstance(s, str) and "." in s and s.rpartition(".")[2][:1].isupper() for s in sides):
        return None
    return sides[0] if len({s.partition(".")[0] for s in sides}) == 1 else None
