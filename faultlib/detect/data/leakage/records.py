"""Record classes whose constructor stores its arguments as fields, for the static leakage analysis.

A project often hands the parts of a split around in a record:

    @dataclass
    class Parts:
        X_train: pd.DataFrame
        X_test: pd.DataFrame
    ...
    return Parts(X_train=a, X_test=b)          # a, b = train_test_split(...)

The class has no ``__init__`` in the source: the decorator (or the base) writes one that stores each argument
under its field's name, in the order the fields are declared (Python documentation, ``dataclasses``:
"``__init__()``... the fields in the order they are defined"; ``typing.NamedTuple``; attrs' ``@define``;
pydantic's ``BaseModel`` takes keywords only). Without that, ``parts.X_test`` is an unknown value and a model
scored on it scores nothing the analysis knows. With it, the field holds the test part the split made, and every
check that reads it (a model scored on it, an objective returning its score) sees the same rows as with plain
names. Fields are the class body's annotated names (``ClassVar`` ones excluded).
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.pyflow.values import ClassVal, Instance

#: decorators that write an ``__init__`` storing the fields (dataclasses, attrs)
_DECORATORS = frozenset({"dataclass", "define", "frozen", "mutable", "s", "attrs", "dataclasses.dataclass",
                         "attr.s", "attr.define", "attrs.define", "attrs.frozen", "attr.frozen"})
#: bases whose subclasses are records (typing's NamedTuple; pydantic models, keywords only)
_BASES = frozenset({"NamedTuple", "BaseModel", "BaseSettings"})


def _decorator_name(d: ast.expr) -> str:
    return ast.unparse(d.func if isinstance(d, ast.Call) else d)


def is_record(cls: ClassVal) -> bool:
    """``cls`` is a dataclass, an attrs class, a ``NamedTuple`` or a pydantic model without an ``__init__`` of its
    own."""
    if "__init__" in cls.methods:
        return False
    return bool(_BASES & cls.bases) or any(_decorator_name(d) in _DECORATORS for d in cls.node.decorator_list)


def record_fields(node: ast.ClassDef) -> list[str]:
    """The field names, in declaration order: annotated names of the class body, ``ClassVar`` ones left out."""
    return [s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
            and "ClassVar" not in ast.unparse(s.annotation)]


class RecordFields:
    """A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`: a record's constructor stores its arguments
    as the instance's fields (see the module docstring)."""

    def _instantiate(self, cls: ClassVal, args: list[Any], kwargs: dict[str, Any], line: int) -> Any:
        out = super()._instantiate(cls, args, kwargs, line)  # type: ignore[misc]
        if isinstance(out, Instance) and is_record(cls):
            fields = record_fields(cls.node)
            for name, value in zip(fields, args):
                out.attrs.setdefault(name, value)
            for name, value in kwargs.items():
                if name in fields:
                    out.attrs.setdefault(name, value)
        return out


__all__ = ["RecordFields", "is_record", "record_fields"]
