"""Attributes the analysed code hangs on a third-party object and reads back through another reference to it.

A bot framework hands the same object to every extension: discord.py builds one ``commands.Bot``, and each cog gets it
in its constructor (``def __init__(self, bot): self.bot = bot``; https://discordpy.readthedocs.io/en/stable/ext/
commands/cogs.html). Services shared by the cogs are commonly hung on that object in the startup hook (``bot.api =
API()``, ``bot.db = Database()``; discord.py's own example keeps its pool and HTTP session on the bot:
https://github.com/Rapptz/discord.py/blob/master/examples/advanced_startup.py), and read back as
``self.bot.api.get_role(...)`` in a cog, where the type of ``self.bot`` is often unknown (an unannotated parameter the
framework fills). Python objects accept new attributes (https://docs.python.org/3/reference/datamodel.html
#custom-classes: "class instances ... have a namespace implemented as a dictionary"), so the read gives what was
stored.

:func:`hung_attribute` types ``<receiver>.<name>`` from the stores of ``<x>.<name> = value`` in the analysed files,
when every such store puts it on an object of one third-party class and all stored values have one type; the read's
receiver must be of that class, or of unknown type and named like the stores' receivers (``self.bot``, ``ctx.bot``
and ``bot`` for ``bot.api = ...``). A store on an object of the analysed files' own classes, or on one of unknown
type, leaves the name unknown; the classes' own ``self.<name> = ...`` do not count (an instance of such a class is
typed, and its attributes are read from the class). Used by
:meth:`~faultlib.detect.serving.blocking.typeof.TypeOf.type_of`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Type, dotted

__all__ = ["hung_attribute"]

MAX_STORES = 16
"""Stores of one attribute name looked at; more: the name is taken as unknown (a generic name used everywhere)."""


def hung_attribute(index, expr: ast.Attribute, func: Func, owner: Type | None) -> Type | None:
    """The type of ``expr`` (``<receiver>.<name>``, read in ``func``; ``owner``: the receiver's type, None when
    unknown) when the analysed files hang ``<name>`` on one third-party class's objects (see the module docstring),
    else None."""
    hung = _hung(index, expr.attr)
    if hung is None:
        return None
    on, names, typed = hung
    if owner is not None:
        return typed if owner == on else None
    parts = dotted(expr.value)
    return typed if parts and parts[-1] in names else None


def _hung(index, name: str) -> tuple[str, frozenset[str], Type] | None:
    """``(receiver class, receiver names, value type)`` for the attribute ``name`` (memoised per index and name)."""
    memo = index.__dict__.setdefault("_hung_attrs", {})
    if name in memo:
        return memo[name]
    memo[name] = None  # asked again while answering: not hung
    writes = [w for w in _writes(index).get(name, []) if dotted(w[0].value) not in (["self"], ["cls"])]
    if not writes or len(writes) > MAX_STORES:
        return None  # only the classes' own attributes (read through their instances' types), or a generic name
    receivers = {index.type_of(t.value, f) for t, _, f in writes}
    values = {index.type_of(v, f) for _, v, f in writes}
    if len(receivers) != 1 or len(values) != 1:
        return None
    on, typed = next(iter(receivers)), next(iter(values))
    if isinstance(on, str) and typed is not None:
        memo[name] = (on, frozenset(dotted(t.value)[-1] for t, _, _ in writes), typed)
    return memo[name]


def _writes(index) -> dict[str, list[tuple[ast.Attribute, ast.expr, Func]]]:
    """``{name: [(target, value, scope)]}`` for the plain ``<dotted>.<name> = value`` stores of the analysed files
    (not typed; memoised per index)."""
    found = index.__dict__.get("_hung_writes")
    if found is None:
        index.__dict__["_hung_writes"] = found = {}
        for module in index.distinct_modules():
            for target, value, position, func in module.attr_writes:
                if position is None and dotted(target.value) is not None:
                    found.setdefault(target.attr, []).append((target, value, func or index.infer.module_func(module)))
    return found
