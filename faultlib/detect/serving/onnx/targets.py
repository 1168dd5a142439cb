"""Deployment targets of an ONNX model: what opset, IR version and kernels a runtime release has.

Three forms (``faultlib check onnx --target``):

- ``onnxruntime==X.Y[.Z]``: the installed onnxruntime when its ``X.Y`` matches (its own kernel
  registry, with version ranges and types, is read), else a row of :data:`ORT_RELEASES`;
- ``triton==YY.MM``: the onnxruntime release that Triton container ships (:data:`TRITON_RELEASES`),
  then that release's row;
- ``opset=N``: any runtime that implements the standard ``ai.onnx`` operator set up to ``N``.

Without ``--target`` the installed onnxruntime is the target (static checks only when it is absent).

Sources of the tables (checked 2026-11-30; a release missing here is an error that names the
known ones, never a guess):

- :data:`ORT_RELEASES`: the version matrix of "ONNX Runtime compatibility",
  https://onnxruntime.ai/docs/reference/compatibility.html (``docs/reference/compatibility.md`` of
  microsoft/onnxruntime, gh-pages): onnxruntime release -> ONNX release, opset, ML opset, IR version.
  The opset column was measured against the real wheels where Python 3.11 has one: onnxruntime
  1.20.1's kernel registry and schemas top out at ``ai.onnx`` 21 and it refuses an opset-22 model.
  (Its schema registry already lists ``ai.onnx.ml`` 5 where the matrix says 4; the matrix is kept.)
- :data:`TRITON_RELEASES`: ``TRITON_VERSION_MAP`` in triton-inference-server/server ``build.py`` on
  each release branch (ORT version), and the server issues cited per row.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

from faultlib.errors import InputError

ORT_MATRIX_URL = "https://onnxruntime.ai/docs/reference/compatibility.html"
TRITON_BUILD_URL = "https://github.com/triton-inference-server/server/blob/r{release}/build.py"


@dataclass(frozen=True)
class OrtRelease:
    """One row of the onnxruntime version matrix.

    Attributes:
        onnx: the ONNX release it implements.
        opset: newest ``ai.onnx`` opset it implements (models stamped 7..opset load).
        ml_opset: newest ``ai.onnx.ml`` opset.
        ir_version: newest ONNX IR version it loads.
    """

    onnx: str
    opset: int
    ml_opset: int
    ir_version: int


#: onnxruntime ``MAJOR.MINOR`` -> what it implements; source: :data:`ORT_MATRIX_URL`
ORT_RELEASES: dict[str, OrtRelease] = {
    "1.20": OrtRelease("1.16.1", 21, 4, 10), "1.19": OrtRelease("1.16.1", 21, 4, 10),
    "1.18": OrtRelease("1.16", 21, 4, 10), "1.17": OrtRelease("1.15", 20, 4, 9),
    "1.16": OrtRelease("1.14.1", 19, 3, 9), "1.15": OrtRelease("1.14", 19, 3, 8),
    "1.14": OrtRelease("1.13", 18, 3, 8), "1.13": OrtRelease("1.12", 17, 3, 8),
    "1.12": OrtRelease("1.12", 17, 3, 8), "1.11": OrtRelease("1.11", 16, 2, 8),
    "1.10": OrtRelease("1.10", 15, 2, 8), "1.9": OrtRelease("1.10", 15, 2, 8),
    "1.8": OrtRelease("1.9", 14, 2, 7), "1.7": OrtRelease("1.8", 13, 2, 7), "1.6": OrtRelease("1.8", 13, 2, 7),
    "1.5": OrtRelease("1.7", 12, 2, 7), "1.4": OrtRelease("1.7", 12, 2, 7), "1.3": OrtRelease("1.7", 12, 2, 7),
    "1.2": OrtRelease("1.6", 11, 2, 6), "1.1": OrtRelease("1.6", 11, 2, 6), "1.0": OrtRelease("1.6", 11, 2, 6),
    "0.5": OrtRelease("1.5", 10, 1, 5), "0.4": OrtRelease("1.5", 10, 1, 5), "0.3": OrtRelease("1.4", 9, 1, 3),
    "0.2": OrtRelease("1.3", 8, 1, 3), "0.1": OrtRelease("1.3", 8, 1, 3),
}

#: Triton container release -> (onnxruntime version it ships or ``None`` when it ships no ONNX Runtime
#: backend, source)
TRITON_RELEASES: dict[str, tuple[str | None, str]] = {
    "20.12": ("1.5.3", TRITON_BUILD_URL.format(release="20.12") + " (TRITON_VERSION_MAP '2.6.0')"),
    "21.02": ("1.6.0", TRITON_BUILD_URL.format(release="21.02") + " (TRITON_VERSION_MAP '2.7.0')"),
    "21.07": ("1.8.0", TRITON_BUILD_URL.format(release="21.07") + " (TRITON_VERSION_MAP '2.12.0')"),
    "22.04": ("1.10.0", TRITON_BUILD_URL.format(release="22.04") + " (TRITON_VERSION_MAP '2.21.0')"),
    "23.04": ("1.14.1", "https://github.com/triton-inference-server/server/issues/5730 and "
                        "https://github.com/triton-inference-server/onnxruntime_backend/pull/184"),
    "23.12": ("1.16.3", TRITON_BUILD_URL.format(release="23.12") + " (TRITON_VERSION_MAP '2.41.0')"),
    "24.02": (None, "https://github.com/triton-inference-server/server/issues/6991 (24.02 shipped without the "
                    "ONNX Runtime backend: cuDNN 9 was not supported yet)"),
    "25.03": ("1.20.1", TRITON_BUILD_URL.format(release="25.03") + " (DEFAULT_TRITON_VERSION_MAP '2.56.0')"),
}

DEFAULT_PROVIDERS = ("CPUExecutionProvider",)


@dataclass(frozen=True)
class Kernel:
    """One kernel of an onnxruntime build: op ``[start, end]`` versions, for the listed types."""

    domain: str
    op: str
    start: int
    end: int
    types: dict[str, tuple[str, ...]]
    provider: str


@dataclass
class KernelRegistry:
    """What the installed onnxruntime implements, from its own registries (private API:
    ``onnxruntime.capi._pybind_state.get_all_opkernel_def`` and ``get_all_operator_schema``).

    Attributes:
        version: ``onnxruntime.__version__``.
        providers: the execution providers whose kernels count.
        kernels: ``{(domain, op): [Kernel, ...]}`` (domain ``""`` is ``ai.onnx``).
        schemas: ``{(domain, op): [(since_version, schema), ...]}`` ascending: how onnxruntime itself
            resolves a node's version.
        max_opset: ``{domain: newest since_version}`` of its schemas (``ai.onnx`` 21 for 1.20.1).
    """

    version: str
    providers: tuple[str, ...]
    kernels: dict[tuple[str, str], list[Kernel]]
    schemas: dict[tuple[str, str], list[tuple[int, Any]]]
    max_opset: dict[str, int]
    _ir_probe: dict[int, bool] = field(default_factory=dict)

    def accepts_ir(self, ir_version: int) -> bool:
        """Whether this onnxruntime loads a one-node ``Identity`` model stamped ``ir_version`` (probed once)."""
        if ir_version not in self._ir_probe:
            import onnxruntime as ort
            from onnx import TensorProto, helper

            graph = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "probe",
                                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
            probe = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=ir_version)
            try:
                ort.InferenceSession(probe.SerializeToString(), providers=["CPUExecutionProvider"])
                self._ir_probe[ir_version] = True
            except Exception:  # noqa: BLE001 - onnxruntime raises its own Fail/InvalidArgument types
                self._ir_probe[ir_version] = False
        return self._ir_probe[ir_version]


def _domain(domain: str) -> str:
    return "" if domain in ("", "ai.onnx") else domain


@functools.cache
def installed_registry(providers: tuple[str, ...] = DEFAULT_PROVIDERS) -> KernelRegistry | None:
    """The installed onnxruntime's :class:`KernelRegistry`, or ``None`` when onnxruntime is not installed."""
    try:
        import onnxruntime as ort
        from onnxruntime.capi import _pybind_state as C
    except ImportError:
        return None
    kernels: dict[tuple[str, str], list[Kernel]] = {}
    for k in C.get_all_opkernel_def():
        if k.provider not in providers:
            continue
        start, end = k.version_range
        kernels.setdefault((_domain(k.domain), k.op_name), []).append(
            Kernel(_domain(k.domain), k.op_name, int(start), int(end),
                   {p: tuple(t) for p, t in k.type_constraints.items()}, k.provider))
    schemas: dict[tuple[str, str], list[tuple[int, Any]]] = {}
    max_opset: dict[str, int] = {}
    for s in C.get_all_operator_schema():
        d = _domain(s.domain)
        schemas.setdefault((d, s.name), []).append((int(s.since_version), s))
        max_opset[d] = max(max_opset.get(d, 0), int(s.since_version))
    for versions in schemas.values():
        versions.sort(key=lambda v: v[0])
    return KernelRegistry(ort.__version__, tuple(providers), kernels, schemas, max_opset)


@dataclass
class Target:
    """Where the model is meant to run.

    Attributes:
        spec: the ``--target`` text (``"installed"`` when none was given).
        kind: ``onnxruntime``, ``triton`` or ``opset``.
        runtime_version: the onnxruntime version (``None`` for ``opset=N``, or a Triton release without one).
        max_opset: ``{domain: newest opset}`` (``""`` is ``ai.onnx``); a domain missing here is not checked.
        max_ir_version: newest IR version it loads (``None``: unknown, probed for the installed runtime).
        registry: the installed onnxruntime's kernels, when the target is that runtime.
        source: where the numbers come from.
        has_onnx_backend: ``False`` for a Triton release that ships no ONNX Runtime backend.
        min_opset: ``{domain: oldest opset it loads}``: every onnxruntime release loads ai.onnx 7 and newer
            (:data:`ORT_MATRIX_URL`, "ONNX opset support").
    """

    spec: str
    kind: str
    runtime_version: str | None
    max_opset: dict[str, int]
    max_ir_version: int | None
    registry: KernelRegistry | None = None
    source: str = ""
    has_onnx_backend: bool = True
    min_opset: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"spec": self.spec, "kind": self.kind, "runtime_version": self.runtime_version,
                "max_opset": {(d or "ai.onnx"): v for d, v in self.max_opset.items()},
                "max_ir_version": self.max_ir_version, "kernel_registry": self.registry is not None,
                "providers": list(self.registry.providers) if self.registry else None,
                "min_opset": {(d or "ai.onnx"): v for d, v in self.min_opset.items()},
                "has_onnx_backend": self.has_onnx_backend, "source": self.source}


def _minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


def _ort_target(spec: str, version: str, *, kind: str = "onnxruntime", source_prefix: str = "") -> Target:
    registry = installed_registry()
    row = ORT_RELEASES.get(_minor(version))
    if registry is not None and _minor(registry.version) == _minor(version):
        return Target(spec, kind, registry.version,
                      {d: v for d, v in registry.max_opset.items() if d in ("", "ai.onnx.ml")},
                      row.ir_version if row else None, registry,
                      source_prefix + f"the installed onnxruntime {registry.version}'s own kernel registry "
                                      "(onnxruntime.capi._pybind_state.get_all_opkernel_def)", min_opset={"": 7})
    if row is None:
        known = ", ".join(sorted(ORT_RELEASES, key=lambda v: tuple(map(int, v.split(".")))))
        installed = f"; the installed one is {registry.version}" if registry else ""
        raise InputError(f"no data for onnxruntime {version}: the table ({ORT_MATRIX_URL}) knows {known}"
                         f"{installed}. Run the check where that release is installed, or pass --target opset=N",
                         field="--target")
    return Target(spec, kind, version, {"": row.opset, "ai.onnx.ml": row.ml_opset}, row.ir_version, None,
                  source_prefix + f"{ORT_MATRIX_URL} (onnxruntime {_minor(version)}: ONNX {row.onnx}, opset "
                                  f"{row.opset}, ML opset {row.ml_opset}, IR {row.ir_version})", min_opset={"": 7})


_ORT = re.compile(r"onnxruntime(?:-gpu)?==(\d+\.\d+(?:\.\d+)?)")
_TRITON = re.compile(r"triton==(\d\d\.\d\d)")
_OPSET = re.compile(r"opset=(\d+)")


def parse_target(spec: str | None) -> Target | None:
    """The :class:`Target` of a ``--target`` value, or the installed onnxruntime when ``spec`` is ``None``
    (``None`` when it is not installed either).

    Args:
        spec: ``onnxruntime==X.Y[.Z]``, ``triton==YY.MM`` or ``opset=N``.

    Raises:
        InputError: another form, or a release the tables do not know (the message lists the known ones).
    """
    if spec is None:
        registry = installed_registry()
        return _ort_target("installed", registry.version) if registry is not None else None
    text = spec.strip().replace(" ", "")
    if m := _ORT.fullmatch(text):
        return _ort_target(spec, m.group(1))
    if m := _TRITON.fullmatch(text):
        release = m.group(1)
        if release not in TRITON_RELEASES:
            known = ", ".join(sorted(TRITON_RELEASES))
            raise InputError(f"no data for Triton {release}: the table knows {known}. Look up the ONNX Runtime "
                             "version in that release's notes (Frameworks Support Matrix) and pass "
                             "--target onnxruntime==X.Y", field="--target")
        ort_version, source = TRITON_RELEASES[release]
        if ort_version is None:
            return Target(spec, "triton", None, {}, None, None, source, has_onnx_backend=False)
        return _ort_target(spec, ort_version, kind="triton",
                           source_prefix=f"Triton {release} ships onnxruntime {ort_version} ({source}); ")
    if m := _OPSET.fullmatch(text):
        opset = int(m.group(1))
        if not 1 <= opset <= 1000:
            raise InputError(f"opset {opset} is out of range", field="--target")
        return Target(spec, "opset", None, {"": opset}, None, None, f"a runtime implementing ai.onnx opset {opset}")
    raise InputError(f"{spec!r} is not a target: use onnxruntime==X.Y, triton==YY.MM or opset=N", field="--target")
