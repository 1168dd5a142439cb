"""What an onnxruntime release implements: its kernels (op, version range, types) and its own op schemas.

Two sources, one form (:class:`KernelRegistry`):

- the installed onnxruntime's own registries (``verified``), read once per onnxruntime version and kept
  on disk in the user's cache directory (:func:`faultlib.cache.cache_dir`). A cache file is written to a temporary name
  and renamed into place (:func:`faultlib.cache.write_json`, the name ``write_atomic`` here: atomic on POSIX,
  concurrent writers each leave a whole file); one that does not
  parse or is of another format or version is rebuilt;
- a release table shipped with faultlib (``likely``): ``tables/onnxruntime-X.Y.Z.json.gz``, measured by
  running :func:`faultlib.detect.serving.onnx.probe.dump_registry` (``python probe.py --registry``) under
  that release (``pip install onnxruntime==X.Y.Z 'numpy<2'`` in its own virtual environment). Checking
  against a table never imports that runtime.

Kernel matching is onnxruntime's own (``KernelRegistry::VerifyKernelDef``,
onnxruntime/core/framework/kernel_registry.cc): a kernel ``[start, end]`` serves a node whose resolved
schema version is ``v`` when ``start == v``, or when it has an end version (``end != INT_MAX``) and
``start <= v <= end``. A kernel registered without an end version does **not** serve later versions of
the op.
"""

from __future__ import annotations

import functools
import gzip
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from faultlib.cache import cache_dir, read_json
from faultlib.cache import write_json as write_atomic

#: ``INT_MAX``: the end version of a kernel registered without one
OPEN_END = 2**31 - 1
#: version of the cache file layout; another value is rebuilt
CACHE_FORMAT = 1
DEFAULT_PROVIDERS = ("CPUExecutionProvider",)
TABLES = Path(__file__).with_name("tables")
KERNEL_REGISTRY_SOURCE = ("onnxruntime/core/framework/kernel_registry.cc (KernelRegistry::VerifyKernelDef): "
                          "start == version, or end != INT_MAX and start <= version <= end")


@dataclass(frozen=True)
class Param:
    """A formal input or output of an op schema: ``type_str`` is a type parameter (``T``) or a type."""

    name: str
    type_str: str
    option: str
    is_homogeneous: bool = True


@dataclass(frozen=True)
class OpSchemaLite:
    """The part of a runtime's op schema that kernel matching needs."""

    domain: str
    name: str
    since_version: int
    inputs: tuple[Param, ...]
    outputs: tuple[Param, ...]


@dataclass(frozen=True)
class Kernel:
    """One kernel of an onnxruntime build: op ``[start, end]`` versions, for the listed types."""

    domain: str
    op: str
    start: int
    end: int
    types: dict[str, tuple[str, ...]]
    provider: str

    def serves(self, version: int) -> bool:
        """Whether this kernel serves a node resolved to schema ``version`` (see the module docstring)."""
        return self.start == version or (self.end != OPEN_END and self.start <= version <= self.end)


@dataclass
class KernelRegistry:
    """What one onnxruntime release implements.

    Attributes:
        version: the onnxruntime version.
        providers: the execution providers whose kernels count.
        kernels: ``{(domain, op): [Kernel, ...]}`` (domain ``""`` is ``ai.onnx``).
        schemas: ``{(domain, op): [(since_version, OpSchemaLite), ...]}`` ascending: how that onnxruntime
            resolves a node's version.
        max_opset: ``{domain: newest since_version}`` of its schemas.
        verified: ``True`` for the installed runtime's own registry, ``False`` for a shipped table.
        source: where it comes from.
        max_ir_version: newest IR version it loads (probed for the installed one; ``None``: unknown).
    """

    version: str
    providers: tuple[str, ...]
    kernels: dict[tuple[str, str], list[Kernel]]
    schemas: dict[tuple[str, str], list[tuple[int, OpSchemaLite]]]
    max_opset: dict[str, int]
    verified: bool
    source: str
    max_ir_version: int | None = None
    _data: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_data(cls, data: dict[str, Any], *, verified: bool, source: str) -> "KernelRegistry":
        """From :func:`~faultlib.detect.serving.onnx.probe.dump_registry`'s JSON data.

        Raises:
            KeyError, TypeError, ValueError: the data is not of that form.
        """
        kernels: dict[tuple[str, str], list[Kernel]] = {}
        for domain, op, start, end, types, provider in data["kernels"]:
            kernels.setdefault((domain, op), []).append(
                Kernel(domain, op, int(start), int(end), {p: tuple(t) for p, t in types.items()}, provider))
        schemas: dict[tuple[str, str], list[tuple[int, OpSchemaLite]]] = {}
        max_opset: dict[str, int] = {}
        for domain, name, since, inputs, outputs in data["schemas"]:
            lite = OpSchemaLite(domain, name, int(since), tuple(Param(*p) for p in inputs),
                                tuple(Param(*p) for p in outputs))
            schemas.setdefault((domain, name), []).append((int(since), lite))
            max_opset[domain] = max(max_opset.get(domain, 0), int(since))
        for versions in schemas.values():
            versions.sort(key=lambda v: v[0])
        return cls(str(data["onnxruntime"]), tuple(data["providers"]), kernels, schemas, max_opset, verified, source,
                   data.get("max_ir_version"), data)

    def resolve(self, domain: str, op: str, opset: int) -> OpSchemaLite | None:
        """The runtime's schema a node of ``op`` resolves to at ``opset`` (``None``: none that old)."""
        found = None
        for version, schema in self.schemas.get((domain, op), []):
            if version > opset:
                break
            found = schema
        return found

    def serving(self, domain: str, op: str, version: int) -> list[Kernel]:
        """The kernels that serve ``op`` resolved to schema ``version``."""
        return [k for k in self.kernels.get((domain, op), []) if k.serves(version)]


def _read_cache(path: Path, version: str, providers: tuple[str, ...]) -> dict[str, Any] | None:
    data = read_json(path)  # bounded, no symbolic link; None for anything that is not whole JSON
    if not isinstance(data, dict) or data.get("format") != CACHE_FORMAT or data.get("onnxruntime") != version \
            or data.get("providers") != list(providers):
        return None
    return data


def _installed_version() -> str | None:
    from importlib import metadata, util

    if util.find_spec("onnxruntime") is None:
        return None
    for dist in ("onnxruntime", "onnxruntime-gpu"):
        try:
            return metadata.version(dist)
        except metadata.PackageNotFoundError:
            continue
    import onnxruntime

    return onnxruntime.__version__


def _probe_max_ir() -> int | None:
    """The newest IR version the installed onnxruntime loads a one-node ``Identity`` model at (3..15 tried)."""
    import onnxruntime as ort
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "probe",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
    newest = None
    for ir in range(3, 16):
        probe = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=ir)
        try:
            ort.InferenceSession(probe.SerializeToString(), providers=["CPUExecutionProvider"])
            newest = ir
        except Exception:  # noqa: BLE001 - onnxruntime refuses with its own exception types
            break
    return newest


@functools.cache
def installed_registry(providers: tuple[str, ...] = DEFAULT_PROVIDERS) -> KernelRegistry | None:
    """The installed onnxruntime's :class:`KernelRegistry` (``None`` when it is not installed), from the disk
    cache when it holds this version's, else read from onnxruntime and cached."""
    version = _installed_version()
    if version is None:
        return None
    root = cache_dir()
    path = root / "onnx" / f"onnxruntime-{version}-{'-'.join(providers)}.json" if root else None
    data = _read_cache(path, version, providers) if path else None
    if data is None:
        from faultlib.detect.serving.onnx.probe import dump_registry

        data = {"format": CACHE_FORMAT, **dump_registry(providers), "max_ir_version": _probe_max_ir()}
        if path:
            write_atomic(path, data)
    source = (f"the installed onnxruntime {version}'s own kernel registry "
              "(onnxruntime.capi._pybind_state.get_all_opkernel_def)")
    try:
        return KernelRegistry.from_data(data, verified=True, source=source)
    except (KeyError, TypeError, ValueError):
        if path:
            path.unlink(missing_ok=True)
        installed_registry.cache_clear()
        raise


def table_versions() -> list[str]:
    """The onnxruntime releases that have a shipped kernel table."""
    return sorted(p.name[len("onnxruntime-"):-len(".json.gz")] for p in TABLES.glob("onnxruntime-*.json.gz"))


@functools.cache
def table_registry(version: str) -> KernelRegistry | None:
    """The shipped kernel table of onnxruntime ``version`` (``X.Y.Z``, or ``X.Y`` for the newest ``X.Y.*``
    table), ``None`` when there is none."""
    matches = [v for v in table_versions() if v == version or v.rsplit(".", 1)[0] == version
               or (version.count(".") == 2 and v.rsplit(".", 1)[0] == version.rsplit(".", 1)[0])]
    if not matches:
        return None
    chosen = version if version in matches else matches[-1]
    path = TABLES / f"onnxruntime-{chosen}.json.gz"
    data = json.loads(gzip.decompress(path.read_bytes()))
    source = (f"faultlib's kernel table of onnxruntime {chosen} (tables/{path.name}: measured from that release's "
              "own registry, CPUExecutionProvider, with `python probe.py --registry`)")
    return KernelRegistry.from_data(data, verified=False, source=source)
