"""A script that reads a written file together with the modules it runs, for the leakage analysis of files
handed on.

A project's driver (``main.py``, a menu or a ``run_all.py``) reads what a stage wrote and hands it to functions of
its other modules, which split, cross-validate or score it::

    # main.py                                   # ranking.py
    import imputer, ranking                     def best_features(name):
    imputer.impute_all("raw.csv")                   df = pd.read_csv(name); ... loo.split(df) ...
    df = pd.read_csv("_imputed.csv")
    ranking.best_features("_imputed.csv")

The driver itself calls no ``fit``, ``split`` or ``score`` (:func:`~.repofiles.evaluates` is false for it) and
the evaluation sits in a module it imports, so a writer's fit was never joined with it (wave 61). The driver's
*program* is its session (:func:`~.session.session_members`: the modules it imports or needs, run before it); the
driver evaluates when one of them does, and the join runs that whole program after the writer.

Bound: a session has at most :data:`~.session.MAX_MEMBERS` scripts.
"""

from __future__ import annotations

from pathlib import Path


def reader_program(reader: str) -> list[str]:
    """The scripts that run as ``reader``'s program, in run order, ``reader`` last (``[reader]`` when it needs no
    other module)."""
    from faultlib.detect.data.leakage.session import session_members

    return [str(p) for p in session_members(reader)]


def program_evaluates(reader: str, evaluates) -> bool:
    """``reader`` or a module of its program splits, cross-validates, searches, scores or fits (``evaluates``:
    :func:`~.repofiles.evaluates`)."""
    return any(evaluates(p) for p in reader_program(reader))


def joined_program(chain: list[str], relays: list[str], reader: str, writer: str) -> list[str]:
    """The scripts a writer's join runs: ``chain`` (the writer's own session), each relay's program, then
    ``reader``'s program, each script once, where it first runs: a module the writer and the reader both import
    runs before the writer needs it (the writer's ``main`` calls its helpers). Where the writer is one of the
    reader's modules it runs at its place there, under the name ``writer`` the report uses, after the rest of its
    own session."""
    me = Path(writer).resolve()
    program = [writer if Path(p).resolve() == me else p for p in reader_program(reader)]
    if any(Path(p).resolve() == me for p in program):
        taken = {Path(p).resolve() for p in [*relays, *program]}
        return [*(c for c in chain if Path(c).resolve() not in taken), *relays, *program]
    relayed = [m for r in relays for m in reader_program(r)]  # a relay runs with the modules it imports
    firsts: dict[Path, str] = {}
    for p in [*chain, *relayed, *program]:
        firsts.setdefault(Path(p).resolve(), p)
    return list(firsts.values())


__all__ = ["joined_program", "program_evaluates", "reader_program"]
