"""Deployment targets of an ONNX model: what opset, IR version and kernels a runtime release has.

Three forms (``faultlib check onnx --target``):

- ``onnxruntime==X.Y[.Z]``: the installed onnxruntime when its ``X.Y`` matches (its own kernel
  registry, with version ranges and types, is read: nodes ``verified``), else the kernel table shipped for
  that release (:mod:`~faultlib.detect.serving.onnx.registry`: nodes ``likely``; that runtime is never
  imported), else only the opset and IR version of its row of :data:`ORT_RELEASES` (nodes ``unverified``);
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

import re
from dataclasses import dataclass
from typing import Any

from faultlib.detect.serving.onnx.registry import KernelRegistry, installed_registry, table_registry, table_versions
from faultlib.errors import InputError
from faultlib.readers.integers import decimal

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

@dataclass
class Target:
    """Where the model is meant to run.

    Attributes:
        spec: the ``--target`` text (``"installed"`` when none was given).
        kind: ``onnxruntime``, ``triton`` or ``opset``.
        runtime_version: the onnxruntime version (``None`` for ``opset=N``, or a Triton release without one).
        max_opset: ``{domain: newest opset}`` (``""`` is ``ai.onnx``); a domain missing here is not checked.
        max_ir_version: newest IR version it loads (``None``: unknown, probed for the installed runtime).
        registry: the target's kernels: the installed onnxruntime's own registry (``registry.verified``) or a
            shipped release table; ``None`` when neither covers the target.
        source: where the numbers come from.
        has_onnx_backend: ``False`` for a Triton release that ships no ONNX Runtime backend.
    """

    spec: str
    kind: str
    runtime_version: str | None
    max_opset: dict[str, int]
    max_ir_version: int | None
    registry: KernelRegistry | None = None
    source: str = ""
    has_onnx_backend: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"spec": self.spec, "kind": self.kind, "runtime_version": self.runtime_version,
                "max_opset": {(d or "ai.onnx"): v for d, v in self.max_opset.items()},
                "max_ir_version": self.max_ir_version, "kernel_registry": self.registry is not None,
                "kernels": ("installed registry" if self.registry.verified else "release table")
                if self.registry else None,
                "providers": list(self.registry.providers) if self.registry else None,
                "has_onnx_backend": self.has_onnx_backend, "source": self.source}


def _minor(version: str) -> str:
    return ".".join(version.split(".")[:2])


def _ort_target(spec: str, version: str, *, kind: str = "onnxruntime", source_prefix: str = "") -> Target:
    installed = installed_registry()
    row = ORT_RELEASES.get(_minor(version))
    if installed is not None and _minor(installed.version) == _minor(version):
        return Target(spec, kind, installed.version,
                      {d: v for d, v in installed.max_opset.items() if d in ("", "ai.onnx.ml")},
                      installed.max_ir_version or (row.ir_version if row else None), installed,
                      source_prefix + installed.source)
    table = table_registry(version)
    if row is None and table is None:
        known = ", ".join(sorted(ORT_RELEASES, key=lambda v: tuple(map(int, v.split(".")))))
        have = f"; the installed one is {installed.version}" if installed else ""
        raise InputError(f"no data for onnxruntime {version}: the table ({ORT_MATRIX_URL}) knows {known}"
                         f"{have}. Run the check where that release is installed, or pass --target opset=N",
                         field="--target")
    if table is not None:
        limits = {d: v for d, v in table.max_opset.items() if d in ("", "ai.onnx.ml")}
        if row is not None:
            limits = {"": min(limits.get("", row.opset), row.opset), "ai.onnx.ml": row.ml_opset}
        return Target(spec, kind, version, limits, row.ir_version if row else None, table,
                      source_prefix + table.source + (f"; opset and IR version: {ORT_MATRIX_URL}" if row else ""))
    return Target(spec, kind, version, {"": row.opset, "ai.onnx.ml": row.ml_opset}, row.ir_version, None,
                  source_prefix + f"{ORT_MATRIX_URL} (onnxruntime {_minor(version)}: ONNX {row.onnx}, opset "
                                  f"{row.opset}, ML opset {row.ml_opset}, IR {row.ir_version}); no kernel table for "
                                  f"this release (tables: {', '.join(table_versions())}): ops and types unverified")


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
        installed = installed_registry()
        return _ort_target("installed", installed.version) if installed is not None else None
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
        opset = decimal(m.group(1))
        if opset is None or not 1 <= opset <= 1000:
            shown = opset if opset is not None else f"of {len(m.group(1)):,} digits"
            raise InputError(f"opset {shown} is out of range (1 to 1000)", field="--target")
        return Target(spec, "opset", None, {"": opset}, None, None, f"a runtime implementing ai.onnx opset {opset}")
    raise InputError(f"{spec!r} is not a target: use onnxruntime==X.Y, triton==YY.MM or opset=N", field="--target")
