"""A module global whose type is declared where it is set: an annotation without a value at the top of the file
(``client: docker.DockerClient``), or a parameter of the function that sets it (``def serve(made: DockerClient):
global client; client = made``; unannotated, ``def set_database(database): global _database; _database = database``,
what the setter's callers pass: held-out wave 79, a router module handed the server's database at startup).

Servers that build their client in ``main`` or a start-up function and hand it to the module often declare the global
with its type and no value (PEP 526, "Global and local variable annotations": "an annotation without an initial
value ... declares the type of the variable", https://peps.python.org/pep-0526/#global-and-local-variable-annotations)
and assign it under ``global``. The value stored then is a name of the setting function, meaningless at module scope;
its type is the annotation, or that function's annotated parameter.
"""

from __future__ import annotations

import ast

from faultlib.detect.serving.blocking.model import Func, Module, Type


def declared_global(index, name: str, module: Module) -> Type | None:
    """The type of the module global ``name`` from its bare annotation, or from the annotated parameter of the
    function that sets it under ``global``; None when neither says."""
    note = module.global_annotations.get(name)
    if note is not None:
        found = index.annotation_type(note, module)
        if found is not None:
            return found
    for value, scope in module.global_values.get(name, []):
        if isinstance(scope, Func) and isinstance(value, ast.Name) and _param(scope, value.id):
            found = index.type_of(value, scope)
            if found is not None:
                return found
    return None


def _param(func: Func, name: str) -> bool:
    args = func.node.args
    return any(a.arg == name for a in (*args.posonlyargs, *args.args, *args.kwonlyargs))
