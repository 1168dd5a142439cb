"""A Discord bot's extension loaded from a coroutine: ``bot.load_extension("cogs.music")`` runs that module's
``setup(bot)`` on the spot, and with it the constructors of the cogs it adds.

The extension protocol of discord.py's ``commands.Bot`` and of its forks: "An extension must have a global function,
``setup`` defined as the entry point on what to do when the extension is loaded. This entry point must have a single
argument, the ``bot``" (https://discordpy.readthedocs.io/en/stable/ext/commands/api.html#discord.ext.commands.Bot.
load_extension; py-cord: https://docs.pycord.dev/en/stable/api/clients.html#discord.Bot.load_extension, nextcord and
disnake alike). ``load_extension``, ``reload_extension`` and the forks' ``load_extensions`` import the module and
call its ``setup`` before they return. In discord.py before 2.0, py-cord, nextcord and disnake they are plain
methods and ``setup`` is a plain function: called from ``on_ready``, ``setup_hook`` or a ``/reload`` command, the
``setup`` (and every cog constructor it runs: a config read, a database opened, an HTTP request for a prompt) runs on
the bot's loop (held-out wave 62: a py-cord bot's cog constructors; NabBot's ``/load`` command, discord.py 1.x,
opening a SQLite file). discord.py 2's
``setup`` is a coroutine -- an entry of its own; only the plain ``def setup`` of a module is followed here.

Which modules: a literal name (``"cogs.music"``, or ``".music"`` with a literal ``package=``) names one; an f-string
names those whose dotted name starts with its literal head (``f"cogs.{name}"``); any other expression (a loop
variable over a list of names) may name any extension of the analysed files. An extension is a module that defines
a top-level plain ``def setup`` and imports ``discord``, ``nextcord`` or ``disnake`` (the packages that define this
protocol), so a Sphinx or IPython ``setup`` is never taken for one. Used by
:mod:`~faultlib.detect.serving.blocking.reach`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func

__all__ = ["extension_setups"]

LOADERS = frozenset({"load_extension", "reload_extension", "load_extensions"})
"""The methods of the bot that run an extension's ``setup`` before they return."""
BOT_PACKAGES = frozenset({"discord", "nextcord", "disnake"})
"""The packages whose bots load extensions this way (py-cord installs as ``discord``)."""


def extension_setups(index, call: ast.Call, func: Func) -> list[Func]:
    """The plain ``setup`` functions ``call`` runs when it is ``<bot>.load_extension(name)`` (or
    ``reload_extension``/``load_extensions``) of a Discord bot (see the module docstring); [] otherwise."""
    if not isinstance(call.func, ast.Attribute) or call.func.attr not in LOADERS or not call.args:
        return []
    package = next((k.value.value for k in call.keywords if k.arg == "package" and isinstance(k.value, ast.Constant)
                    and isinstance(k.value.value, str)), "")
    found: list[Func] = []
    for arg in call.args:
        for module in _named(index, arg, package):
            setup = module.functions.get("setup")
            if setup is not None and not setup.is_async and setup not in found and _bot_module(module):
                found.append(setup)
    return found


def _named(index, arg: ast.expr, package: str) -> list:
    """The analysed modules the extension name ``arg`` may denote."""
    if isinstance(arg, ast.Starred):
        arg = arg.value
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        name = arg.value
        if name.startswith("."):
            if not package:
                return []
            name = package + name
        module = index.modules.get(name)
        return [module] if module is not None else []
    if isinstance(arg, ast.JoinedStr):
        head = ""
        for part in arg.values:
            if not (isinstance(part, ast.Constant) and isinstance(part.value, str)):
                break
            head += part.value
        if head.startswith("."):
            return []
        return _distinct(module for name, module in index.modules.items() if name.startswith(head))
    if isinstance(arg, (ast.List, ast.Tuple)):
        return _distinct(m for element in arg.elts for m in _named(index, element, package))
    return _distinct(index.modules.values())


def _distinct(modules) -> list:
    seen: dict[int, object] = {}
    for module in modules:
        seen.setdefault(id(module), module)
    return list(seen.values())


def _bot_module(module) -> bool:
    """Whether ``module`` imports one of :data:`BOT_PACKAGES` (the extension protocol's owners)."""
    return any(target.partition(".")[0] in BOT_PACKAGES for target in module.imports.values())
