"""Reading a user's ``.onnx`` file through the hardened reader, and refusing what is not an ONNX model.

The bytes come from :func:`faultlib.readers.read_bytes` (a regular file, no symlink, bounded) and are
parsed with ``onnx.load_model_from_string``. A file is refused (:class:`~faultlib.errors.InputError`,
exit 2, naming the file) when it does not parse as ``onnx.ModelProto`` (not ONNX, truncated, corrupt),
when it parses but is no model (no graph, no opset import, an IR version of 0: random bytes can
parse), when a node reads a value nothing defines (a graph cut short), when a tensor's declared dims
contradict the data it holds (``[2**31, 2**31]`` with 16 bytes: corrupt, never "ok"), or when a tensor's external
data is missing, too short, or leaves the model's directory (``..``, an absolute path elsewhere, a
symlink: checked with :func:`faultlib.readers.inside`). External data is read only when asked
(``load_external=True``, for running the model), each file through the same reader.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from faultlib.errors import InputError, require
from faultlib.readers import Limits, inside, read_bytes

#: protobuf cannot hold a message of 2 GiB or more, so neither can an .onnx file
MAX_MODEL_BYTES = (2 << 30) - 1
#: one external data file (weights) read for running the model
MAX_EXTERNAL_BYTES = 16 << 30
#: ``TensorProto.DataLocation.EXTERNAL`` (onnx/onnx-ml.proto)
EXTERNAL = 1


@dataclass(frozen=True)
class ExternalRef:
    """One tensor stored outside the ``.onnx`` file."""

    tensor: str
    location: str
    offset: int
    length: int | None

    def to_json(self) -> dict[str, Any]:
        return {"tensor": self.tensor, "location": self.location, "offset": self.offset, "length": self.length}


@dataclass
class LoadedModel:
    """A parsed, structurally sound ONNX model.

    Attributes:
        path: the ``.onnx`` file.
        model: the ``onnx.ModelProto`` (external data not loaded unless asked), or a message of the same schema
            (:attr:`onnx_free`).
        size: bytes of the ``.onnx`` file.
        external: tensors whose data lives in other files of the same directory.
    """

    path: Path
    model: Any
    size: int
    external: list[ExternalRef] = field(default_factory=list)

    @property
    def onnx_free(self) -> bool:
        """Whether ``model`` was parsed without the onnx package (``load_model(onnx_free=True)``): a message of
        the same schema, not an ``onnx.ModelProto`` (shape inference and the version converter refuse it)."""
        from faultlib.detect.serving.onnx.specdata import is_onnx_free

        return is_onnx_free(self.model)

    @property
    def opsets(self) -> dict[str, int]:
        """``{domain: version}`` of the model's opset imports (``""`` is ``ai.onnx``)."""
        return {("" if o.domain in ("", "ai.onnx") else o.domain): int(o.version) for o in self.model.opset_import}


def iter_graphs(graph, prefix: str = "") -> Iterator[tuple[str, Any, set[str]]]:
    """``(path, graph, names visible from outer scopes)`` for the graph and every subgraph (If/Loop/Scan)."""
    stack = [(prefix, graph, set())]
    while stack:
        path, g, outer = stack.pop()
        yield path, g, outer
        local = outer | _defined(g)
        for node in g.node:
            for attr in node.attribute:
                subs = [attr.g] if attr.HasField("g") else list(attr.graphs)
                for i, sub in enumerate(subs):
                    suffix = attr.name if len(subs) == 1 else f"{attr.name}[{i}]"
                    stack.append((f"{path}{node.name or node.op_type}/{suffix}/", sub, local))


def _defined(graph) -> set[str]:
    names = {i.name for i in graph.input} | {t.name for t in graph.initializer}
    names |= {t.values.name for t in graph.sparse_initializer}
    for node in graph.node:
        names.update(o for o in node.output if o)
    return names


def _tensors(model) -> Iterator[Any]:
    for _, graph, _ in iter_graphs(model.graph):
        yield from graph.initializer
        for node in graph.node:
            for attr in node.attribute:
                if attr.HasField("t"):
                    yield attr.t
                yield from attr.tensors


def _structure(model, path: Path) -> None:
    if not model.HasField("graph") or model.ir_version < 1 or not model.opset_import:
        missing = [what for what, ok in (("a graph", model.HasField("graph")), ("an IR version", model.ir_version >= 1),
                                         ("an opset import", bool(model.opset_import))) if not ok]
        raise InputError(f"parses as protobuf but is not an ONNX model: it lacks {' and '.join(missing)} "
                         "(a different file type, or a file cut short)", path=path)
    if not model.graph.output:
        raise InputError("is not a usable ONNX model: its graph has no output", path=path)
    for gpath, graph, outer in iter_graphs(model.graph):
        known = outer | _defined(graph)
        for index, node in enumerate(graph.node):
            if not node.op_type:
                raise InputError(f"node {gpath}{node.name or '#' + str(index)} has no op_type: the model is corrupt",
                                 path=path, field=f"{gpath}{node.name or index}")
            for name in node.input:
                if name and name not in known:
                    raise InputError(f"node {gpath}{node.name or '#' + str(index)} ({node.op_type}) reads {name!r}, "
                                     "which no graph input, initializer or node defines: the model is corrupt or "
                                     "was cut short", path=path, field=f"{gpath}{node.name or index}")
        for out in graph.output:
            if out.name not in known:
                raise InputError(f"graph output {out.name!r} is never produced: the model is corrupt or was cut short",
                                 path=path, field=out.name)


#: bits per element of each TensorProto.DataType whose size is fixed (STRING and unknown types are not checked)
_BITS = {1: 32, 2: 8, 3: 8, 4: 16, 5: 16, 6: 32, 7: 64, 9: 8, 10: 16, 11: 64, 12: 32, 13: 64, 14: 64, 15: 128,
         16: 16, 17: 8, 18: 8, 19: 8, 20: 8, 21: 4, 22: 4, 23: 4, 24: 8}
#: the typed field that holds each DataType's values when raw_data is empty, and values per element
_FIELDS = {1: ("float_data", 1), 14: ("float_data", 2), 11: ("double_data", 1), 15: ("double_data", 2),
           7: ("int64_data", 1), 12: ("uint64_data", 1), 13: ("uint64_data", 1), 8: ("string_data", 1)}
_INT32_FIELD = {2, 3, 4, 5, 6, 9, 10, 16, 17, 18, 19, 20, 24}  # stored one per int32_data entry
_PACKED_4BIT = {21, 22, 23}  # two per int32_data entry


def _size_problem(tensor) -> str | None:
    """Why ``tensor``'s declared dims contradict the data it holds (the ONNX spec's TensorProto rules), or None."""
    if any(d < 0 for d in tensor.dims):
        return f"declares a negative dimension {list(tensor.dims)}"
    count = 1
    for d in tensor.dims:
        count *= d
    dtype = tensor.data_type
    if tensor.data_location == EXTERNAL:
        length = {e.key: e.value for e in tensor.external_data}.get("length")
        if length and dtype in _BITS and str(length).isdigit() and int(length) != (count * _BITS[dtype] + 7) // 8:
            return (f"declares dims {list(tensor.dims)} ({count:,} elements, {(count * _BITS[dtype] + 7) // 8:,} "
                    f"bytes) but its external data length is {int(length):,} bytes")
        return None
    if tensor.raw_data:
        if dtype not in _BITS:
            return None
        expected = (count * _BITS[dtype] + 7) // 8
        if len(tensor.raw_data) != expected:
            return (f"declares dims {list(tensor.dims)} ({count:,} elements, {expected:,} bytes) but holds "
                    f"{len(tensor.raw_data):,} bytes")
        return None
    if dtype in _FIELDS:
        name, per = _FIELDS[dtype]
    elif dtype in _INT32_FIELD:
        name, per = "int32_data", 1
    elif dtype in _PACKED_4BIT:
        name, per = "int32_data", 0.5
    else:
        return None
    held = len(getattr(tensor, name))
    expected = int(count * per + 0.5) if per < 1 else count * per
    if held != expected:
        return f"declares dims {list(tensor.dims)} ({count:,} elements) but holds {held:,} values in {name}"
    return None


def _sizes(model, path: Path) -> None:
    for tensor in _tensors(model):
        problem = _size_problem(tensor)
        if problem:
            raise InputError(f"tensor {tensor.name!r} {problem}: the model is corrupt (its sizes contradict its "
                             "data)", path=path, field=tensor.name)


def _external(model, path: Path) -> list[ExternalRef]:
    refs = []
    directory = path.resolve().parent
    for tensor in _tensors(model):
        if tensor.data_location != EXTERNAL:
            continue
        info = {e.key: e.value for e in tensor.external_data}
        location = info.get("location", "")
        if not location:
            raise InputError(f"tensor {tensor.name!r} is stored externally but names no location", path=path,
                             field=tensor.name)
        try:
            offset = int(info.get("offset", 0) or 0)
            length = int(info["length"]) if info.get("length") else None
        except ValueError:
            raise InputError(f"tensor {tensor.name!r}: external data offset/length are not integers", path=path,
                             field=tensor.name) from None
        if offset < 0 or (length is not None and length < 0):
            raise InputError(f"tensor {tensor.name!r}: negative external data offset or length", path=path,
                             field=tensor.name)
        try:
            target = inside(directory, location)
        except InputError as exc:
            raise InputError(f"tensor {tensor.name!r}: external data {location!r} is refused: {exc.message} "
                             "(external data must be a file in the model's directory or below it)", path=path,
                             field=tensor.name) from None
        try:
            info_stat = os.lstat(target)
        except FileNotFoundError:
            raise InputError(f"tensor {tensor.name!r}: its external data file {location!r} is missing (copy it next "
                             "to the .onnx file)", path=path, field=tensor.name) from None
        if not stat.S_ISREG(info_stat.st_mode):
            raise InputError(f"tensor {tensor.name!r}: external data {location!r} is not a regular file", path=path,
                             field=tensor.name)
        end = offset + (length or 0)
        if end > info_stat.st_size:
            raise InputError(f"tensor {tensor.name!r}: external data {location!r} has {info_stat.st_size} bytes, "
                             f"the model reads up to byte {end}: the file is truncated or not this model's",
                             path=path, field=tensor.name)
        refs.append(ExternalRef(tensor.name, location, offset, length))
    return refs


def load_model(path: Path | str, *, load_external: bool = False, max_bytes: int = MAX_MODEL_BYTES,
               onnx_free: bool = False) -> LoadedModel:
    """Read and parse an ``.onnx`` file, checking what the module docstring lists.

    Args:
        path: the ``.onnx`` file.
        load_external: also read every external data file (bounded, through the hardened reader) into
            the tensors, so the model can run from memory.
        max_bytes: largest ``.onnx`` file accepted (default: protobuf's limit, 2 GiB - 1).
        onnx_free: parse with :func:`~faultlib.detect.serving.onnx.specdata.model_class` (``google.protobuf`` and
            the cached descriptor of onnx-ml.proto: the same parser, no ``import onnx``); the model is then
            not an ``onnx.ModelProto`` (:attr:`LoadedModel.onnx_free`).

    Returns:
        The :class:`LoadedModel`.

    Raises:
        InputError: unreadable, not ONNX, truncated or corrupt (sizes that contradict the data included), or
            external data missing, short or
            outside the model's directory (exit 2, naming the file and the tensor).
        NeedsOnnx: ``onnx_free`` and the bytes do not parse, or ``load_external`` was asked too: load it
            without ``onnx_free`` (which gives the error in onnx's words).
        MissingDependency: ``onnx`` is not installed (``pip install 'faultlib-ml[onnx]'``).
    """
    if onnx_free:
        from faultlib.detect.serving.onnx.specdata import NeedsOnnx, model_class

        if load_external:
            raise NeedsOnnx("external data is loaded into onnx.ModelProto only")
        parse = model_class().FromString
    else:
        parse = require("onnx", "onnx").load_model_from_string
    path = Path(path)
    data = read_bytes(path, limits=Limits(max_bytes=max_bytes))
    if not data:
        raise InputError("is empty, not an ONNX model", path=path)
    try:
        model = parse(data)
    except Exception as exc:  # noqa: BLE001 - protobuf's DecodeError, or a RuntimeError from the C++ parser
        if onnx_free:
            raise NeedsOnnx("does not parse: onnx.load_model_from_string words the error") from None
        raise InputError(f"is not an ONNX model: it does not parse as onnx.ModelProto ({exc}); the file is "
                         "truncated, corrupt or of another type", path=path) from None
    _structure(model, path)
    _sizes(model, path)
    refs = _external(model, path)
    loaded = LoadedModel(path, model, len(data), refs)
    if load_external and refs:
        _load_external(loaded)
    return loaded


def _load_external(loaded: LoadedModel) -> None:
    directory = loaded.path.resolve().parent
    cache: dict[str, bytes] = {}
    for tensor in _tensors(loaded.model):
        if tensor.data_location != EXTERNAL:
            continue
        info = {e.key: e.value for e in tensor.external_data}
        location = info["location"]
        if location not in cache:
            cache[location] = read_bytes(location, root=directory, limits=Limits(max_bytes=MAX_EXTERNAL_BYTES))
        offset = int(info.get("offset", 0) or 0)
        length = int(info["length"]) if info.get("length") else len(cache[location]) - offset
        tensor.raw_data = cache[location][offset:offset + length]
        del tensor.external_data[:]
        tensor.data_location = 0  # TensorProto.DEFAULT
