"""``faultlib check onnx MODEL.onnx... [--target ...] [--compare-torch FILE.py:FACTORY --input SAMPLE.npy]``.

Will the exported model load, and compute the same, on the runtime it ships to? The graph is parsed
statically (no session): per node (``location.node`` = the node's name, ``location.op`` = its op type)
ops newer than the model's imported opset, attributes and inputs its schema at that opset does not have,
a model opset or IR version newer than the target's, ops and types the target has no kernel for. See
:mod:`faultlib.detect.serving.onnx` for the kinds and :mod:`faultlib.detect.serving.onnx.targets` for the targets and
the sources of their tables.

``--compare-torch FILE.py:FACTORY --input SAMPLE.npy`` also runs the sample through ``FACTORY()`` (the
torch model; importing the user's file is what this option is for: it is read through the hardened
reader, must be a ``.py`` file, and runs with its directory first on ``sys.path``) and through the
installed onnxruntime, and reports the max abs/rel error per output. The ``.npy`` is loaded with
``allow_pickle=False``.

Each node and the model get a level: ``blocked`` (the target refuses it: an error finding), ``unverified``
(nothing covers it: a warning finding says why), ``likely`` (a release table shipped with faultlib, or the
specification for ``opset=N``), ``verified`` (the installed onnxruntime's own kernel registry).

Once the specification and the kernel registry are cached (first run), a check imports neither onnx nor
onnxruntime (:func:`faultlib.detect.serving.onnx.check_file`: ``google.protobuf`` and onnx's C++ extension
alone): ~0.25 s for a 400-node model (``benchmarks/onnx_speed.py``).

Several models (``check onnx a.onnx b.onnx``): one summary row per model; JSON ``{"detector": "onnx",
"ok", "findings": [every finding, the model as ``location.file``], "models": [{file, level, worst, findings,
...the fields below}]}``; exit 1 when any model has a finding at ``--fail-on``.

JSON fields of one model (besides ``detector``, ``ok``, ``findings``): ``level``, ``levels`` (nodes per
level), ``nodes`` (``[{node, op, domain, level}]``), ``model`` (file, bytes, ir_version, producer,
opset_import, nodes, ops, external_data), ``target`` (spec, kind, runtime_version, max_opset,
max_ir_version, kernel_registry, providers, has_onnx_backend, source; ``null`` without a target and
without onnxruntime), ``nodes_checked``, ``fix`` (``{opset, version_converter: {ok, error}, advice}``
when the model's opset is newer than the target's, else ``null``) and ``comparison`` (``{runtime,
input, atol, rtol, max_abs_error, max_rel_error, ok, outputs: [{name, shape, torch_shape,
max_abs_error, max_rel_error, allclose, nonfinite_mismatch}]}`` or ``null``).

Exit codes: 0 no finding at or above ``--fail-on``; 1 one is; 2 bad usage, or a file that is not what
it claims (not ONNX, truncated or corrupt, external data leaving the model's directory, a factory file
that is not ``.py`` or does not import, a sample that is not a numeric ``.npy``), the message naming it.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import click

from faultlib.check.base import CheckResult, check_command, lazy_kinds
from faultlib.errors import InputError
from faultlib.readers.options import FiniteFloat

__getattr__ = lazy_kinds("faultlib.detect.serving.onnx.check")


def _nodes(count: int) -> str:
    return f"{count:,} node{'' if count == 1 else 's'}"


def _summary(result: CheckResult) -> list[tuple[str, str]]:
    if "models" in result.fields:
        return _models_summary(result)
    f = result.fields
    model = f["model"]
    opsets = ", ".join(f"{d} {v}" for d, v in model["opset_import"].items())
    lines = [("model", f"{model['file']}: IR {model['ir_version']}, opset {opsets}, {_nodes(model['nodes'])}"
                       f"{' (' + model['producer'] + ')' if model['producer'] else ''}")]
    target = f["target"]
    if target:
        limits = ", ".join(f"{d} {v}" for d, v in target["max_opset"].items()) or "none"
        lines.append(("target", f"{target['spec']} (opset up to {limits}; "
                                f"{'kernel registry' if target['kernel_registry'] else 'table'}: {target['source']})"))
    else:
        lines.append(("target", "none (onnxruntime is not installed): specification checks only"))
    counts = ", ".join(f"{n} {name}" for name, n in f["levels"].items() if n)
    lines.append(("level", f"{f['level']} ({counts or 'no nodes'}; {_LEVEL_HELP[f['level']]})"))
    if f["fix"]:
        lines.append(("fix", f["fix"]["advice"]))
    if f["comparison"]:
        c = f["comparison"]
        if c["max_abs_error"] is not None:
            lines.append(("torch vs onnxruntime", f"max abs error {c['max_abs_error']:.3g}, max rel error "
                                                  f"{c['max_rel_error']:.3g} on {c['input']['shape']} "
                                                  f"({c['runtime']}, atol {c['atol']:g}, rtol {c['rtol']:g})"))
    return lines



_LEVEL_HELP = {"blocked": "the target refuses it", "unverified": "nothing covers part of it: see the warnings",
               "likely": "covered by a release table or the specification only",
               "verified": "the installed onnxruntime's own kernel registry"}


def _models_summary(result: CheckResult) -> list[tuple[str, str]]:
    """One line per model: level, opset, nodes, findings."""
    lines = []
    for m in result.fields["models"]:
        opsets = ", ".join(f"{d} {v}" for d, v in m["model"]["opset_import"].items())
        worst = f", worst {m['worst']}" if m["worst"] else ""
        lines.append((m["model"]["file"], f"{m['level']}: IR {m['model']['ir_version']}, opset {opsets}, "
                                          f"{_nodes(m['model']['nodes'])}, {len(m['findings'])} finding(s){worst}"))
    target = result.fields["models"][0]["target"] if result.fields["models"] else None
    if target:
        lines.append(("target", f"{target['spec']} ({target['kernels'] or 'opset table'}: {target['source']})"))
    return lines


def _factory(target: str):
    """``FILE.py:FACTORY`` loaded (the hardened reader, importlib; see :func:`faultlib.check.batching.load_module`)
    and called: the torch model.

    Raises:
        InputError: not ``FILE.py:NAME``, not a ``.py`` file, missing, does not import, no such name, or the
            factory raised or returned something that is not callable (exit 2).
    """
    from faultlib.readers.pymodule import load_module, resolve, user_code, user_line

    path_text, sep, name = target.rpartition(":")
    if not sep or not path_text or not name:
        raise InputError(f"--compare-torch must be FILE.py:FACTORY, got {target!r}", field="--compare-torch")
    path = Path(path_text)
    if path.suffix != ".py":
        raise InputError("--compare-torch: not a Python file (expected FILE.py:FACTORY)", path=path)
    with user_code(path):
        module = load_module(path, option="--compare-torch")
        factory = resolve(module, path, name, "--compare-torch")
        if not callable(factory):
            raise InputError(f"--compare-torch: {name} is a {type(factory).__name__}, not a factory", path=path,
                             field=name)
        try:
            model = factory()
        except Exception as exc:  # noqa: BLE001 - the user's factory
            raise InputError(f"{name}() raised {type(exc).__name__}: {exc}", path=path, line=user_line(exc, path),
                             field=name) from None
    if not callable(model):
        raise InputError(f"{name}() returned a {type(model).__name__}, not a torch model", path=path, field=name)
    return model


@check_command("onnx", summary=_summary,
               help="Will each MODEL.onnx load and compute the same on the target runtime? Per node: ops newer "
                    "than the imported opset, attributes/inputs the schema at that opset lacks, opset or IR version "
                    "newer than the target's, ops and types without a kernel (function bodies checked node by "
                    "node). Each node and model gets a level: blocked (error) / unverified (warning, says why) / "
                    "likely (a release table) / verified (the installed onnxruntime's own registry). --target "
                    "onnxruntime==X.Y | triton==YY.MM | opset=N (default: the installed onnxruntime). Several "
                    "models: one row each, --json gives models: [one report per model]. --compare-torch "
                    "FILE.py:FACTORY --input SAMPLE.npy compares outputs with torch (one model).")
@click.argument("model_paths", metavar="MODEL.onnx...", nargs=-1, required=True)
@click.option("--target", "target_spec", metavar="SPEC", default=None,
              help="onnxruntime==X.Y[.Z], triton==YY.MM or opset=N (default: the installed onnxruntime).")
@click.option("--compare-torch", "factory", metavar="FILE.py:FACTORY", default=None,
              help="A zero-argument function in FILE.py returning the torch model the ONNX file was exported from.")
@click.option("--input", "sample", metavar="SAMPLE.npy", default=None,
              help="A real input (.npy, loaded with allow_pickle=False) for --compare-torch.")
@click.option("--atol", type=FiniteFloat(0, min_open=False), default=None, help="Absolute tolerance (default 1e-5).")
@click.option("--rtol", type=FiniteFloat(0, min_open=False), default=None, help="Relative tolerance (default 1e-3).")
def command(model_paths: tuple[str, ...], target_spec: str | None, factory: str | None, sample: str | None,
            atol: float | None, rtol: float | None) -> CheckResult:
    """Check MODEL.onnx (see the module docstring).

    Raises:
        InputError: a file that is not what it claims, a bad --target, or --compare-torch without --input
            (or the reverse) (exit 2).
        MissingDependency: onnx (or, for --compare-torch, onnxruntime and torch) is not installed.
    """
    from faultlib.detect.serving.onnx import (
        DEFAULT_ATOL, DEFAULT_RTOL, check_file, check_model, compare_outputs, load_model, load_sample, parse_target)
    from faultlib.detect.serving.onnx.check import unverified_kernels

    if (factory is None) != (sample is None):
        raise InputError("--compare-torch FILE.py:FACTORY and --input SAMPLE.npy go together", field="--compare-torch")
    if factory is not None and len(model_paths) > 1:
        raise InputError("--compare-torch compares one model: give one MODEL.onnx", field="--compare-torch")
    target = parse_target(target_spec)
    reports = []
    for model_path in model_paths:
        if factory is None:
            loaded, report = check_file(Path(model_path), target)
        else:
            loaded = load_model(Path(model_path), load_external=True)
            report = check_model(loaded, target)
        if target is None:
            report.findings.insert(0, unverified_kernels("onnxruntime is not installed and no --target was given",
                                                         None))
        reports.append((loaded, report))
    if len(reports) > 1:
        return _several(reports)
    loaded, report = reports[0]
    findings = list(report.findings)
    comparison = None
    if factory is not None:
        array = load_sample(sample)
        torch_model = _factory(factory)
        with contextlib.redirect_stdout(sys.stderr):  # the user's forward() may print too
            result = compare_outputs(loaded, torch_model, array, atol=DEFAULT_ATOL if atol is None else atol,
                                     rtol=DEFAULT_RTOL if rtol is None else rtol)
        findings.extend(result.findings)
        comparison = result.to_json()
    return CheckResult("onnx", findings, {**report.fields(), "comparison": comparison})


def _several(reports: list) -> CheckResult:
    """Several models: every finding with the model as ``location.file`` (its node named first in the message),
    and ``models``: one report per model."""
    from faultlib.findings import Finding

    findings, models = [], []
    for loaded, report in reports:
        name = str(loaded.path)
        findings.extend(Finding(f.detector, f.severity, (f"node {f.location['node']} ({f.location.get('op')}): "
                                                         if "node" in f.location else "") + f.message,
                                {"file": name, **f.location}, f.evidence, kind=f.kind) for f in report.findings)
        worst = max((f.severity for f in report.findings), default=None)
        models.append({"file": name, "level": report.level, "worst": worst.value if worst else None,
                       "findings": [f.to_json() for f in report.findings], **report.fields()})
    return CheckResult("onnx", findings, {"models": models})
