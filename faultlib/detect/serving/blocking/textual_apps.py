"""Textual's plain ``def`` handlers and callbacks: the app calls them on its event loop, like an ``async def``.

A Textual app is one asyncio loop: the app, its screens and widgets are message pumps (``MessagePump``, the base of
``DOMNode``, ``Widget``, ``Screen`` and ``App``) whose messages are dispatched on that loop. A handler may be a
coroutine or a plain function: the pump calls it and awaits its result only when it is awaitable
(``textual._callback.invoke``: "Invoke a callback with an arbitrary number of parameters", used by
``MessagePump._dispatch_message``, ``App.run_action`` and the reactive watchers), so a plain ``def`` runs inline
and "while your handler is running, Textual will be unable to process any other messages"
(https://textual.textualize.io/guide/events/#handler-methods; "Don't block the loop":
https://textual.textualize.io/guide/workers/). The methods Textual finds by name on a pump class
(:data:`HANDLER_PREFIXES`, :data:`HANDLER_NAMES`): message and event handlers ``on_<message>``
(https://textual.textualize.io/guide/events/#message-handlers), actions ``action_<name>``
(https://textual.textualize.io/guide/actions/), reactive watchers, computes and validators ``watch_``/``compute_``/
``validate_<attribute>`` (https://textual.textualize.io/guide/reactivity/), key methods ``key_<key>``
(https://textual.textualize.io/guide/input/#key-methods), and ``compose`` (run when the widget is mounted,
https://textual.textualize.io/guide/app/#composing); a method decorated with ``@on(Message)`` is a message handler
whatever its name (https://textual.textualize.io/api/on/).

Callbacks handed to a pump run on the loop too (:data:`CALLBACK_METHODS`): ``push_screen(screen, callback)`` calls
the callback with the screen's result when it is dismissed (https://textual.textualize.io/guide/screens/
#returning-data-from-screens), ``call_later``/``call_after_refresh``/``call_next`` schedule a callable on the pump
(https://textual.textualize.io/api/message_pump/), ``set_timer``/``set_interval`` call theirs from the pump's timers,
and ``call_from_thread`` runs its callable on the app's loop from a worker thread
(https://textual.textualize.io/api/app/#textual.app.App.call_from_thread). The command palette runs the callable of a
``Hit``, ``DiscoveryHit`` or ``SystemCommand`` the user picks (:data:`CALLBACK_CLASSES`;
https://textual.textualize.io/guide/command_palette/).

A pump class is recognised by its bases, without Textual installed: a class of the analysed files deriving (perhaps
through its own) from a class Textual's widget modules define (:data:`PUMP_MODULES`), not one of their plain data
classes (:data:`DATA_CLASSES`) nor a message class nested in a widget (``Input.Submitted``). A thread worker,
``@work(thread=True)``, runs off the loop (:mod:`~faultlib.detect.serving.blocking.thread_workers`).

A pump's typed queries return an instance of the class they are given (:data:`QUERIES`: ``self.query_one(Viewer)``,
``self.query_one("#main", Viewer)``, ``get_child_by_type(Viewer)``, ``get_widget_by_id(id, expect_type=Viewer)``;
https://textual.textualize.io/guide/queries/#query-one): the widget's own methods are called, not a look-alike of
another library's (``viewer.forward()`` is history navigation, no model's forward pass). Held-out wave 67
(Textual TUIs: a browser's history, bookmarks and config saved, files opened with ``webbrowser``, a clipboard copied
with ``pyperclip``, all from plain ``def`` handlers). Used by :mod:`~faultlib.detect.serving.blocking.frameworks` and
:mod:`~faultlib.detect.serving.blocking.loop_callbacks`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Klass, dotted

__all__ = ["CALLBACK_CLASSES", "CALLBACK_METHODS", "HANDLER_NAMES", "HANDLER_PREFIXES", "PUMP_MODULES", "QUERIES",
           "palette_command", "queried_type", "textual_callback", "textual_handler"]

PUMP_MODULES = ("textual.app", "textual.screen", "textual.widget", "textual.widgets", "textual.containers",
                "textual.scroll_view", "textual.message_pump", "textual.dom", "textual.command")
"""Textual's modules (and, for ``textual.widgets``, its submodules) whose classes are message pumps."""

DATA_CLASSES = frozenset({"Option", "Selection", "TreeNode", "Column", "Row", "Edit", "Document", "DocumentBase",
                          "SyntaxAwareDocument", "Hit", "DiscoveryHit", "Provider", "SystemCommand", "ComposeResult"})
"""Classes of :data:`PUMP_MODULES` that are no pump (an option list's ``Option``, a tree's ``TreeNode``, the command
palette's hits and providers): their methods are called by whoever holds one."""

HANDLER_PREFIXES = ("on_", "_on_", "action_", "_action_", "watch_", "_watch_", "compute_", "_compute_", "validate_",
                    "_validate_", "key_")
HANDLER_NAMES = frozenset({"compose"})
ON_DECORATORS = frozenset({"textual.on", "textual._on.on"})

CALLBACK_METHODS: dict[str, tuple[int, str | None]] = {
    "push_screen": (1, "callback"), "call_later": (0, None), "call_after_refresh": (0, None), "call_next": (0, None),
    "set_timer": (1, "callback"), "set_interval": (1, "callback"), "call_from_thread": (0, None)}
"""A pump's methods that run a callable on the loop: method -> (the callable's position, its keyword)."""

CALLBACK_CLASSES: dict[str, tuple[int, str | None]] = {
    "Hit": (2, "command"), "DiscoveryHit": (1, "command"), "SystemCommand": (2, "callback")}
"""The command palette's entries (``textual.command.Hit``/``DiscoveryHit``, ``textual.app.SystemCommand``): class ->
(the callable's position, its keyword)."""

QUERIES: dict[str, str | None] = {"query_one": None, "query_exactly_one": None, "get_child_by_type": None,
                                  "get_widget_by_id": "expect_type", "query_ancestor": None}
"""A pump's queries that return an instance of the class they are given: method -> the class's keyword (else the
last positional argument that is a class)."""


def textual_handler(index, func: Func) -> bool:
    """``func`` is a plain method of a Textual pump class that Textual calls by its name or its ``@on`` decorator."""
    if func.is_async or func.cls is None or func.parent is not None:
        return False
    name = func.node.name
    named = name.startswith(HANDLER_PREFIXES) or name in HANDLER_NAMES or any(
        _decorated_on(index, d, func) for d in func.node.decorator_list)
    return named and textual_pump(index, func.cls)


def textual_pump(index, klass: Klass) -> bool:
    """``klass`` derives from a Textual message pump (see the module docstring)."""
    if "textual" not in klass.module.top_packages and not any(isinstance(b, Klass) for b in index.bases(klass)):
        return False  # no Textual base is written in this module, nor a base of its own to look through
    return index.subclass_of(klass, _pump_name)


def _pump_name(name: str) -> bool:
    module, _, cls = name.rpartition(".")
    if not module.startswith(PUMP_MODULES) or cls in DATA_CLASSES or not cls[:1].isupper():
        return False
    return not any(part[:1].isupper() for part in module.split("."))  # Input.Submitted: a message, not a pump


def _decorated_on(index, decorator: ast.expr, func: Func) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    parts = dotted(target)
    return bool(parts) and index.resolve_parts(parts, func.module, func.parent) in ON_DECORATORS


def textual_callback(index, call: ast.Call, func: Func) -> Func | None:
    """The function of the analysed files that ``call``, made in a module importing Textual, hands to a pump or to the
    command palette to run on the loop, or None."""
    if "textual" not in func.module.top_packages:
        return None
    if isinstance(call.func, ast.Attribute) and call.func.attr in CALLBACK_METHODS:
        given = _given(call, CALLBACK_METHODS[call.func.attr])
    else:
        given = palette_command(index, call, func)
    target = index.callee(given, func) if given is not None else None
    return target if isinstance(target, Func) else None


def palette_command(index, call: ast.Call, func: Func) -> ast.expr | None:
    """The callable ``call`` gives the command palette when it builds a ``Hit``, ``DiscoveryHit`` or
    ``SystemCommand`` (:data:`CALLBACK_CLASSES`) in a module importing Textual, else None."""
    name = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)
    if name not in CALLBACK_CLASSES or "textual" not in func.module.top_packages:
        return None
    if not str(index.callee(call.func, func)).startswith("textual."):
        return None
    return _given(call, CALLBACK_CLASSES[name])


def _given(call: ast.Call, where: tuple[int, str | None]) -> ast.expr | None:
    position, keyword = where
    given = next((k.value for k in call.keywords if keyword is not None and k.arg == keyword), None)
    if given is None and position < len(call.args):
        given = call.args[position]
    return given


def queried_type(index, call: ast.Call, func: Func) -> Klass | str | None:
    """The class ``call`` (``self.query_one(Viewer)``, made in a module importing Textual) returns an instance of: a
    class of the analysed files or Textual's own (its dotted name), else None."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr in QUERIES) \
            or "textual" not in func.module.top_packages:
        return None
    keyword = QUERIES[call.func.attr] or "expect_type"
    given = [k.value for k in call.keywords if k.arg == keyword] + list(reversed(call.args))
    for arg in given:
        if isinstance(arg, (ast.Name, ast.Attribute)):
            target = index.callee(arg, func)
            if isinstance(target, Klass) or (isinstance(target, str) and target.startswith("textual.")):
                return target
    return None
