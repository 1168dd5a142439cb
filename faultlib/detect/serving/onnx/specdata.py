"""What ``check onnx`` needs from the installed ``onnx`` package, kept on disk so a warm check never imports it.

``import onnx`` costs ~0.8 s (ml_dtypes, numpy, the C++ extension), more than the rest of a check. Two things
come from it, both fixed for one ``onnx`` release, so both are read from it once and cached per version
(``<cache_dir>/onnx/onnx-<version>.json``, :func:`faultlib.cache.cache_dir`; written
atomically, a corrupt or foreign file is rebuilt):

- every operator schema's fields the check reads (:class:`SpecSchema`: since_version, deprecated, attributes
  and whether each is required, input count range, formal inputs/outputs, type constraints, whether the op is
  a function), from ``onnx.defs.get_all_schemas_with_history()``;
- the protobuf descriptor of ``onnx/onnx-ml.proto`` (``onnx.onnx_ml_pb2.DESCRIPTOR.serialized_pb``), from which
  :func:`model_class` builds a ``ModelProto`` class with ``google.protobuf`` alone, in a private descriptor
  pool: the same schema and the same parser (upb) as ``onnx.load_model_from_string``, so a file parses to
  the same fields, or fails, exactly as it does there.

Shape inference, the version converter, function bodies and the inliner are onnx's C++ code:
:func:`onnx_extension` loads that extension alone (the same functions the package's wrappers call, on the
same serialized bytes; the messages around them built as ``onnx.helper`` builds them, :class:`Messages`).
The installed version is read with ``importlib.metadata`` (no import). :class:`NeedsOnnx` says a check must
go the way that imports the package (bytes that do not parse, an extension that does not load by itself).
"""

from __future__ import annotations

import base64
import functools
from dataclasses import dataclass
from typing import Any

from faultlib.cache import cache_dir, read_json
from faultlib.detect.serving.onnx.registry import Param, write_atomic

#: version of the cache file layout; another value is rebuilt
CACHE_FORMAT = 1


class NeedsOnnx(Exception):
    """This model needs the ``onnx`` package itself (bytes that do not parse: onnx words the error; onnx's C++
    extension does not load by itself): check it on the path that imports onnx."""


@dataclass(frozen=True)
class SpecAttribute:
    """An attribute of an operator schema."""

    required: bool


@dataclass(frozen=True)
class TypeConstraint:
    """A type parameter (``T``) and the types it may be bound to (``tensor(float)``...)."""

    type_param_str: str
    allowed_type_strs: tuple[str, ...]


@dataclass(frozen=True)
class SpecSchema:
    """The fields of an ``onnx.defs.OpSchema`` that the check reads, same names."""

    domain: str
    name: str
    since_version: int
    deprecated: bool
    attributes: dict[str, SpecAttribute]
    min_input: int
    max_input: int
    inputs: tuple[Param, ...]
    outputs: tuple[Param, ...]
    type_constraints: tuple[TypeConstraint, ...]
    has_function: bool
    has_context_dependent_function: bool

    def to_json(self) -> list[Any]:
        return [self.domain, self.name, self.since_version, self.deprecated,
                {n: a.required for n, a in self.attributes.items()}, self.min_input, self.max_input,
                [list(p.__dict__.values()) for p in self.inputs], [list(p.__dict__.values()) for p in self.outputs],
                [[c.type_param_str, list(c.allowed_type_strs)] for c in self.type_constraints], self.has_function,
                self.has_context_dependent_function]

    @classmethod
    def from_json(cls, row: list[Any]) -> "SpecSchema":
        (domain, name, since, deprecated, attributes, min_input, max_input, inputs, outputs, constraints, function,
         context_function) = row
        return cls(str(domain), str(name), int(since), bool(deprecated),
                   {str(n): SpecAttribute(bool(r)) for n, r in attributes.items()}, int(min_input), int(max_input),
                   tuple(Param(*p) for p in inputs), tuple(Param(*p) for p in outputs),
                   tuple(TypeConstraint(str(p), tuple(t)) for p, t in constraints), bool(function),
                   bool(context_function))


def _param(p: Any) -> Param:
    return Param(p.name, p.type_str, str(p.option), bool(p.is_homogeneous))


def from_onnx(schema: Any) -> SpecSchema:
    """The :class:`SpecSchema` of an ``onnx.defs.OpSchema``."""
    return SpecSchema(schema.domain, schema.name, int(schema.since_version), bool(schema.deprecated),
                      {n: SpecAttribute(bool(a.required)) for n, a in schema.attributes.items()},
                      int(schema.min_input), int(schema.max_input), tuple(_param(p) for p in schema.inputs),
                      tuple(_param(p) for p in schema.outputs),
                      tuple(TypeConstraint(c.type_param_str, tuple(c.allowed_type_strs))
                            for c in schema.type_constraints),
                      bool(getattr(schema, "has_function", False)),
                      bool(getattr(schema, "has_context_dependent_function", False)))


def onnx_version() -> str | None:
    """The installed ``onnx`` distribution's version, read without importing it (``None``: not installed)."""
    from importlib import metadata

    try:
        return metadata.version("onnx")
    except metadata.PackageNotFoundError:
        return None


def _build(version: str) -> dict[str, Any]:
    from faultlib.errors import require

    onnx = require("onnx", "onnx")
    import onnx.defs
    from onnx import onnx_ml_pb2

    return {"format": CACHE_FORMAT, "onnx": version, "installed_as": onnx.__version__,
            "descriptor": base64.b64encode(onnx_ml_pb2.DESCRIPTOR.serialized_pb).decode("ascii"),
            "schemas": [from_onnx(s).to_json() for s in onnx.defs.get_all_schemas_with_history()]}


@functools.cache
def spec_data() -> dict[str, Any]:
    """The cached data of the installed ``onnx`` (built and written on first use, which imports onnx).

    Raises:
        MissingDependency: ``onnx`` is not installed (``pip install 'faultlib-ml[onnx]'``).
    """
    from faultlib.errors import MissingDependency

    version = onnx_version()
    if version is None:
        raise MissingDependency("onnx", "onnx")
    root = cache_dir()
    path = root / "onnx" / f"onnx-{version}.json" if root else None
    try:
        if path is None:
            raise OSError("no cache directory (no home directory)")
        data = read_json(path)  # bounded, no symbolic link; None for anything that is not whole JSON
        if isinstance(data, dict) and data.get("format") == CACHE_FORMAT and data.get("onnx") == version:
            return {"schemas": [SpecSchema.from_json(row) for row in data["schemas"]],
                    "descriptor": _descriptor(data["descriptor"])}
    except (OSError, ValueError, KeyError, TypeError):
        pass  # missing, corrupt, or another layout: rebuilt below
    data = _build(version)
    if path:
        write_atomic(path, data)
    return {"schemas": [SpecSchema.from_json(row) for row in data["schemas"]],
            "descriptor": _descriptor(data["descriptor"])}


def _descriptor(text: str) -> Any:
    """The ``FileDescriptorProto`` of onnx-ml.proto from its cached base64 text.

    Raises:
        ValueError: not base64, not a file descriptor, or not onnx-ml.proto's.
    """
    from google.protobuf import descriptor_pb2
    from google.protobuf.message import DecodeError

    try:
        proto = descriptor_pb2.FileDescriptorProto.FromString(base64.b64decode(text, validate=True))
    except DecodeError as exc:
        raise ValueError(str(exc)) from None
    if proto.package != "onnx" or "ModelProto" not in {m.name for m in proto.message_type}:
        raise ValueError("not the descriptor of onnx-ml.proto")
    return proto


def spec_schemas() -> list[SpecSchema]:
    """Every version of every operator schema the installed ``onnx`` defines."""
    return spec_data()["schemas"]


_POOL: list[Any] = []  # the private descriptor pool, once built


@functools.cache
def model_class() -> type:
    """``onnx.ModelProto`` built from the cached descriptor with ``google.protobuf`` (no onnx import), in its own
    descriptor pool (so it never clashes with onnx's classes when onnx is imported too)."""
    from google.protobuf import descriptor_pool, message_factory

    pool = descriptor_pool.DescriptorPool()
    pool.Add(spec_data()["descriptor"])
    _POOL.append(pool)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("onnx.ModelProto"))


def is_onnx_free(message: Any) -> bool:
    """Whether ``message`` is of :func:`model_class`'s pool, not one of the onnx package's classes."""
    return bool(_POOL) and message.DESCRIPTOR.file.pool is _POOL[0]


_EXTENSION = "onnx.onnx_cpp2py_export"


@functools.cache
def onnx_extension() -> Any:
    """onnx's C++ extension (``onnx.onnx_cpp2py_export``: ``shape_inference.infer_shapes`` and
    ``version_converter.convert_version`` on serialized models, what ``onnx.shape_inference.infer_shapes`` and
    ``onnx.version_converter.convert_version`` call), loaded by itself: ~5 ms, against ~0.8 s for the package,
    whose ``__init__`` imports numpy, ml_dtypes and every helper. It is registered under its own name, so a later
    ``import onnx`` uses this same module.

    Raises:
        NeedsOnnx: the extension is not where this onnx release keeps it, or does not load.
    """
    import importlib.machinery
    import importlib.util
    import sys
    from pathlib import Path

    if _EXTENSION in sys.modules:
        return sys.modules[_EXTENSION]
    found = importlib.util.find_spec("onnx")
    folders = list(found.submodule_search_locations or []) if found is not None else []
    paths = [Path(d) / f"onnx_cpp2py_export{suffix}" for d in folders for suffix in importlib.machinery.EXTENSION_SUFFIXES]
    path = next((p for p in paths if p.is_file()), None)
    if path is None:
        raise NeedsOnnx("onnx's C++ extension was not found beside the package")
    try:
        loader = importlib.machinery.ExtensionFileLoader(_EXTENSION, str(path))
        module = importlib.util.module_from_spec(importlib.util.spec_from_file_location(_EXTENSION, path,
                                                                                          loader=loader))
        loader.exec_module(module)
        module.shape_inference.infer_shapes, module.version_converter.convert_version  # noqa: B018 - both there
    except (ImportError, AttributeError, OSError) as exc:
        raise NeedsOnnx(f"onnx's C++ extension does not load by itself ({exc})") from None
    sys.modules[_EXTENSION] = module
    return module


class Messages:
    """The ONNX message classes of one descriptor pool (onnx's own, or :func:`model_class`'s): ``.TypeProto``,
    ``.FunctionProto``... by name, ``data_types`` (``TensorProto.DataType``, an ``EnumTypeWrapper`` like
    ``onnx.TensorProto.DataType``) and ``ir_version`` (``onnx.IR_VERSION``)."""

    def __init__(self, pool: Any):
        from google.protobuf.internal.enum_type_wrapper import EnumTypeWrapper

        self.pool = pool
        self.data_types = EnumTypeWrapper(pool.FindEnumTypeByName("onnx.TensorProto.DataType"))
        self.ir_version = pool.FindEnumTypeByName("onnx.Version").values_by_name["IR_VERSION"].number

    def __getattr__(self, name: str) -> type:
        from google.protobuf import message_factory

        if not name.endswith("Proto"):
            raise AttributeError(name)
        cls = message_factory.GetMessageClass(self.pool.FindMessageTypeByName(f"onnx.{name}"))
        setattr(self, name, cls)
        return cls


@functools.cache
def _messages_of(pool: Any) -> Messages:
    return Messages(pool)


def messages(message: Any | None = None) -> Messages:
    """The :class:`Messages` of ``message``'s pool; without one, the onnx package's own (imports onnx)."""
    if message is None:
        import onnx

        message = onnx.TypeProto()
    return _messages_of(message.DESCRIPTOR.file.pool)


def data_type_name(message: Any, data_type: int) -> str:
    """The ``TensorProto.DataType`` name of ``data_type`` (``FLOAT``), from ``message``'s own descriptor pool.

    Raises:
        ValueError: no such data type (as ``onnx.TensorProto.DataType.Name`` raises).
    """
    return messages(message).data_types.Name(data_type)
