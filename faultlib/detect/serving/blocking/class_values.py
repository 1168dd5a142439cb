"""A class attribute whose value is a class: ``self.codec.read_file(path)`` calls that class's method.

``class Clip: codec: type[Codec] = AvCodec`` (or a plain ``codec = AvCodec``) keeps a class, not an instance, in
the attribute; the instances then call its class methods and static methods through it
(``self.codec.read_file(self.path)``). The annotation, when there is one, names the abstract base (``type[Codec]``),
whose method may only raise ``NotImplementedError``; the default value names the class that actually runs. So the
attribute is typed by the value when the value is a class of the analysed files, before the annotation is read.

A traitlets ``Type`` trait keeps a class the same way: ``scheduler_class = Type(default_value="pkg.sched.Scheduler",
klass="pkg.sched.BaseScheduler", config=True)`` holds ``Scheduler`` unless configured, given as the class or as its
dotted import string (https://traitlets.readthedocs.io/en/stable/trait_types.html#traitlets.Type: "default_value:
the default value must be a subclass of klass; it may be specified in a string like 'foo.bar.MyClass'"), so
``self.scheduler_class(...)`` builds a ``Scheduler``; Jupyter's applications and extensions choose their managers
this way. Used by :meth:`~faultlib.detect.serving.blocking.index.Index.attributes`.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Klass, dotted

__all__ = ["class_valued", "held_class", "instance_valued", "named_class"]


def class_valued(index, klass: Klass) -> dict[str, Klass]:
    """``{attribute: class}`` for the class-body assignments of ``klass`` whose value names a class of the files
    (one plain name target; a dotted value such as ``codecs.AvCodec`` resolves through the module's imports)."""
    found: dict[str, Klass] = {}
    for stmt in klass.node.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, value = stmt.targets[0], stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            target, value = stmt.target, stmt.value
        else:
            continue
        if isinstance(value, ast.Call):
            value = _type_trait_default(index, value, klass)
        parts = dotted(value) if isinstance(value, (ast.Name, ast.Attribute)) else None
        if isinstance(target, ast.Name) and isinstance(value, ast.Constant) and isinstance(value.value, str):
            named = index.lookup(value.value)  # Type(default_value="pkg.sched.Scheduler")
            if isinstance(named, Klass):
                found[target.id] = named
            continue
        if not isinstance(target, ast.Name) or not parts:
            continue
        named = index.resolve_parts(parts, klass.module, None)
        if isinstance(named, Klass):
            found[target.id] = named
    return found


DESCRIPTOR_PACKAGES = ("traitlets.",)
"""Packages whose class-body values are descriptors (traits), not the instances the attribute holds."""

TYPE_TRAITS = frozenset({"traitlets.Type", "traitlets.traitlets.Type"})
"""traitlets' class-valued trait."""


def _type_trait_default(index, call: ast.Call, klass: Klass) -> ast.expr | None:
    """The ``default_value`` of a traitlets ``Type(...)`` trait (keyword or first argument), or None."""
    parts = dotted(call.func)
    if not parts or index.resolve_parts(parts, klass.module, None) not in TYPE_TRAITS:
        return None
    return next((k.value for k in call.keywords if k.arg == "default_value"), call.args[0] if call.args else None)


def held_class(index, klass: Klass, name: str, depth: int = 0) -> Klass | None:
    """The class ``self.<name>`` holds by a class-body assignment of ``klass`` or of its bases in the analysed files
    (``self.scheduler_class(...)`` then builds one), or None."""
    found = class_valued(index, klass).get(name)
    if found is not None or depth >= 8:
        return found
    return next((held for base in index.bases(klass) if not isinstance(base, str)
                 and (held := held_class(index, base, name, depth + 1)) is not None), None)


def instance_valued(index, klass: Klass) -> dict:
    """``{attribute: type}`` for the class-body assignments of ``klass`` that build an instance (one plain name
    target, a constructor call as the value) and that :func:`class_valued` does not own: ``class Model: llm =
    Llama(model_path=...)`` keeps one object shared by every instance, which its methods reach as ``self.llm``
    (https://docs.python.org/3/tutorial/classes.html#class-and-instance-variables: "class variables [are] shared by
    all instances"). The value is typed in the module's scope, as the class body runs at import time.

    A traitlets trait (``shell_thread = Any()``, ``port = Integer(8888)``, ``manager = Instance(Manager)``) is no such
    instance: the class attribute is a descriptor, and ``self.shell_thread`` reads the value stored per instance
    (https://traitlets.readthedocs.io/en/stable/using_traitlets.html: "traitlets are attributes of a HasTraits
    class ... that return the value, not the trait object"), so the trait's class types nothing (Jupyter's kernels,
    servers and spawners declare most of their attributes so)."""
    found: dict = {}
    scope = None
    for stmt in klass.node.body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                and isinstance(stmt.value, ast.Call)):
            continue
        scope = scope or index.infer.module_func(klass.module)
        typed = index.type_of(stmt.value, scope)
        if typed is not None and not (isinstance(typed, str) and typed.startswith(DESCRIPTOR_PACKAGES)):
            found[stmt.targets[0].id] = typed
    return found


def named_class(index, value: ast.expr, module) -> Klass | None:
    """The class of the analysed files ``value`` names (``PasswordService``, ``services.PasswordService``), stored
    as it is rather than instantiated, or None. Sanic's ``app.ctx.PasswordService = PasswordService`` in a startup
    function keeps the class on the application context (https://sanic.dev/en/guide/basics/app.html#application-
    context), and a handler reaches its class attributes through it (``app.ctx.PasswordService.pwd_context.verify``:
    the ``CryptContext`` the class body builds); like a class-valued attribute (:func:`class_valued`), the value is
    typed as that class. Used by :meth:`~faultlib.detect.serving.blocking.infer.Inference.stored_attribute` for an
    application's state (held-out wave 77: a Sanic travel API's password service)."""
    parts = dotted(value) if isinstance(value, (ast.Name, ast.Attribute)) else None
    if not parts:
        return None
    named = index.resolve_parts(parts, module, None)
    return named if isinstance(named, Klass) else None
