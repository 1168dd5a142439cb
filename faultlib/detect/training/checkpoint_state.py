"""What a checkpoint file really holds, against the stateful objects a training script uses
(``faultlib check resume TRAIN.py --checkpoint CKPT``).

The file is read by the caller through the hardened checkpoint reader (``weights_only=True``); here each
value is classified by its shape (:func:`state_kind`) and compared with the objects of a
:class:`~faultlib.detect.training.state.ResumeReport`.
"""

from __future__ import annotations

from typing import Any

from faultlib.detect.training.state import ResumeReport
from faultlib.detect.training.vocab import DETECTOR, SEVERITY, WHY
from faultlib.findings import Finding, Severity



WANTS = {"optimizer": "optimizer", "scheduler": "scheduler", "grad_scaler": "grad_scaler", "ema": "model",
         "model": "model", "counter": "counter", "generator": "rng", "rng_torch": "rng", "rng_numpy": "rng",
         "rng_python": "rng", "rng_cuda": "rng"}


def state_kind(value: Any) -> str:
    """What a checkpoint value holds: ``optimizer`` (``state`` + ``param_groups``), ``scheduler``
    (``last_epoch``/``base_lrs``), ``grad_scaler`` (``scale`` + ``growth_factor``), ``model`` (a dict of
    tensors), ``rng`` (a uint8 state tensor, ``random.getstate()``/``np.random.get_state()`` tuples),
    ``counter`` (a number), ``group`` (a dict of such values) or ``other``."""
    import torch

    if isinstance(value, dict):
        keys = set(value)
        if {"state", "param_groups"} <= keys:
            return "optimizer"
        if keys & {"last_epoch", "base_lrs", "_last_lr"}:
            return "scheduler"
        if {"scale", "growth_factor"} <= keys:
            return "grad_scaler"
        if value and all(isinstance(v, torch.Tensor) for v in value.values()):
            return "model"
        return "group" if value else "other"
    if isinstance(value, torch.Tensor):
        return "rng" if value.dtype == torch.uint8 and value.dim() == 1 else "other"
    if isinstance(value, (tuple, list)) and value and (
            all(isinstance(v, torch.Tensor) and v.dtype == torch.uint8 for v in value)
            or (isinstance(value[0], (int, str)) and len(value) in (3, 5))):
        return "rng"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return "counter"
    return "other"


def checkpoint_keys(content: Any, *, depth: int = 2) -> list[dict[str, str]]:
    """``[{key, holds}]`` for a loaded checkpoint: top-level keys, and the keys of a ``group`` one level down
    (``rng.torch``); a bare state_dict is one entry with key ``""``."""
    if not isinstance(content, dict) or state_kind(content) != "group":
        return [{"key": "", "holds": state_kind(content)}]
    out: list[dict[str, str]] = []
    for key, value in content.items():
        holds = state_kind(value)
        if holds == "group" and depth > 1:
            out.extend({"key": f"{key}.{k['key']}", "holds": k["holds"]} for k in checkpoint_keys(value, depth=1)
                       if k["key"])
        else:
            out.append({"key": str(key), "holds": holds})
    return out


def checkpoint_coverage(report: ResumeReport, content: Any, path: str) -> tuple[list[dict[str, str]], list[Finding]]:
    """Compare the objects the loop uses with what one loaded checkpoint holds.

    An object is covered when a key holds its kind of state (for a ``torch.Generator`` and the global RNGs:
    an ``rng`` key; for a generator, one whose path names it). Objects a framework saves implicitly are
    not judged.

    Args:
        report: :func:`analyze_resume_source`'s report of the script that wrote the checkpoint.
        content: the checkpoint as loaded with ``weights_only=True``.
        path: the checkpoint's name, for locations and messages.

    Returns:
        ``(keys, findings)``: :func:`checkpoint_keys` and one ``checkpoint_lacks_state`` finding per object
        not covered (warning; info for the global RNGs).
    """
    keys = checkpoint_keys(content)
    findings: list[Finding] = []
    for obj in report.objects:
        wanted = WANTS.get(obj.kind)
        if wanted is None or obj.implicit:
            continue
        matching = [k["key"] for k in keys if k["holds"] == wanted]
        if obj.kind == "generator":
            matching = [k for k in matching if obj.name.lower() in k.lower()]
        if matching:
            continue
        findings.append(Finding(DETECTOR, SEVERITY.get(obj.kind, Severity.WARNING),
                                f"{path} holds no {wanted} state for {obj.kind} {obj.name!r} (line {obj.line}), "
                                f"which the loop uses: after a resume from this file, {WHY[obj.kind]}",
                                {"file": path}, {"object": obj.name, "object_kind": obj.kind,
                                                 "keys": [k["key"] for k in keys]}, kind="checkpoint_lacks_state"))
    return keys, findings
