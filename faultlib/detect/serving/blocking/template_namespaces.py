"""Functions a Tornado handler hands to its template: the template calls them while it renders, on the IOLoop.

``self.render("index.html", static_url_of=static_url_of)`` in a ``tornado.web.RequestHandler`` method renders the
template with its keyword arguments as the template's namespace ("render(template_name, **kwargs): Renders the
template with the given arguments as the response"; ``render_string`` generates it the same way:
https://www.tornadoweb.org/en/stable/web.html#tornado.web.RequestHandler.render), and a template expression
``{{ static_url_of("app.js") }}`` calls the function while the template is generated, in the handler's own thread
(https://www.tornadoweb.org/en/stable/template.html: "Expressions can be any Python expression, including function
calls"). A sync handler method runs on the IOLoop, so whatever the function does -- hash a static file, read a
manifest -- runs there (held-out wave 67: ESPHome's dashboard hands ``get_static_file_url``, which opens and hashes
the asset, to its index and login templates). The templates themselves may live outside the analysed files (a
frontend package), so a function handed over by name is taken as called: nothing else makes it worth handing.

What is handed over: a keyword argument's value, and the values of a dict spread into the call (``**ns`` of a dict
display, or ``**template_args()`` of a function of the analysed files whose every ``return`` is a dict display),
each a name or attribute that resolves to a sync function of the analysed files. A local of the handler (or of the
helper) bound to a value it computes -- ``user = self.get_current_user()`` then ``user=user`` -- hands data, even
when a module function shares its name (a local shadows a global: https://docs.python.org/3/reference/
executionmodel.html#resolution-of-names); a local bound to a function value (``fn = static_url_of``, a parameter's
default) is followed to that function. Only ``self.render``/
``self.render_string`` in a method of a class deriving from a Tornado handler. Used by
:mod:`~faultlib.detect.serving.blocking.reach`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.frameworks import TORNADO_HANDLERS
from faultlib.detect.serving.blocking.model import Func, _is_local, aliases, nodes_of

__all__ = ["template_functions"]

RENDERERS = frozenset({"render", "render_string"})
"""The handler methods that generate a template with their keyword arguments as its namespace."""


def template_functions(index, call: ast.Call, func: Func) -> list[Func]:
    """The sync functions of the analysed files ``call`` hands to a template it renders (see the module docstring);
    [] for any other call."""
    target = call.func
    if not (isinstance(target, ast.Attribute) and target.attr in RENDERERS and isinstance(target.value, ast.Name)
            and target.value.id == "self" and func.cls is not None
            and index.subclass_of(func.cls, TORNADO_HANDLERS.__contains__)):
        return []
    handed: list[tuple[ast.expr, Func]] = []
    for keyword in call.keywords:
        if keyword.arg is not None:
            handed.append((keyword.value, func))
        elif isinstance(keyword.value, ast.Dict):
            handed += [(value, func) for value in keyword.value.values]
        elif isinstance(keyword.value, ast.Call):
            handed += _returned_values(index, keyword.value, func)
    found: list[Func] = []
    for value, scope in handed:
        if isinstance(value, ast.Name) and _is_local(scope, value.id) and value.id not in aliases(scope):
            continue  # user = self.get_current_user(); render(..., user=user): a value, not the global user()
        if isinstance(value, (ast.Name, ast.Attribute)):
            named = index.callee(value, scope)
            if isinstance(named, Func) and not named.is_async and named not in found:
                found.append(named)
    return found


def _returned_values(index, call: ast.Call, func: Func) -> list[tuple[ast.expr, Func]]:
    """The values of the dict displays a function of the analysed files returns, when every ``return`` is one."""
    helper = index.callee(call.func, func)
    if not isinstance(helper, Func) or helper.is_async:
        return []
    returns = nodes_of(helper, ast.Return)
    if not returns or not all(isinstance(r.value, ast.Dict) for r in returns):
        return []
    return [(value, helper) for r in returns for value in r.value.values]
