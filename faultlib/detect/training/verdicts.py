"""``check resume``'s findings from the objects the analysis found (:mod:`~faultlib.detect.training.resume`):
what is never saved, saved but never restored, or restored and then reset by a later creation."""

from __future__ import annotations

import ast

from faultlib.detect.training.source import Scope
from faultlib.detect.training.state import ResumeReport, StateObject
from faultlib.detect.training.vocab import DETECTOR, SEVERITY, WHY
from faultlib.findings import Finding, Severity


def judge(objects: dict[str, StateObject], report: ResumeReport,
          creations: dict[str, list[tuple[int, Scope]]], *, claims_resume: bool = False) -> None:
    """Add the findings to ``report``: nothing under Lightning or the HF Trainer (their state is implicit);
    ``no_resume_path`` when checkpoints are written and nothing is restored; else, for each object,
    ``state_not_saved`` / ``state_not_restored`` and the order findings of :func:`order`. A script that
    restores only its weights is judged as resuming when it says so (``claims_resume``: the restore sits under
    ``if args.resume:``); restoring weights under another name (``--load``, fine-tuning) is not a resume."""
    path = report.file
    objs = objects.values()
    framework = next((f for f in report.implicit if f != "accelerate"), None)
    if framework:
        for obj in objs:
            obj.implicit = obj.implicit or framework
        return
    checkpointing = any(o.saved for o in objs if o.kind in ("optimizer", "counter", "scheduler", "grad_scaler"))
    resuming = any(o.restored for o in objs if o.kind in ("optimizer", "scheduler", "grad_scaler", "ema")) or (
        report.loads and any(o.kind == "counter" and o.restored for o in objs)) or claims_resume
    if not checkpointing and not resuming:
        return
    add = report.findings.append
    if checkpointing and not resuming:
        first = report.saves[0]
        add(Finding(DETECTOR, Severity.INFO, "the script writes training checkpoints but nothing loads them back "
                    "(no load_state_dict of an optimizer, scheduler or scaler): a preempted run restarts from 0",
                    {"file": path, "line": first["line"], "function": first["function"]},
                    {"saved": sorted(o.name for o in objs if o.saved)}, kind="no_resume_path"))
        return
    load_at = next(iter(sorted(report.loads, key=lambda e: e["line"])), None)
    found_order = order(objects, creations, path)
    named = {f.evidence["object"] for f in found_order}
    for obj in sorted(objs, key=lambda o: o.line):
        if obj.name in named:
            continue
        severity = SEVERITY.get(obj.kind, Severity.WARNING)
        loc = {"file": path, "line": obj.line, "function": obj.function}
        evidence = {"object": obj.name, "object_kind": obj.kind, "saved": obj.saved, "restored": obj.restored}
        if not obj.saved and not obj.restored:  # restored from elsewhere: scheduler.last_epoch = epoch
            add(Finding(DETECTOR, severity, f"{obj.kind} {obj.name!r} is in no checkpoint and never "
                        f"restored: after a resume, "
                        f"{WHY[obj.kind]}", loc, evidence, kind="state_not_saved"))
        elif not obj.restored:
            at = {"file": path, "line": load_at["line"], "function": load_at["function"]} if load_at else loc
            add(Finding(DETECTOR, severity, f"{obj.kind} {obj.name!r} is saved (line {obj.saved[0]}) but the "
                        f"resume path never restores it: {WHY[obj.kind]}", at, evidence,
                        kind="state_not_restored"))
    report.findings.extend(found_order)


def order(objects: dict[str, StateObject], creations: dict[str, list[tuple[int, Scope]]],
          path: str) -> list[Finding]:
    """Objects restored and then created again; schedulers created after their optimizer's load and
    never restored (their constructor starts the schedule over: lr back at its first value)."""
    found: list[Finding] = []
    optimizers = {n: o for n, o in objects.items() if o.kind == "optimizer"}
    for name, obj in objects.items():
        for line, scope in creations.get(name, []):
            before = [r for r in obj.restored if r < line and _in(r, scope)]
            after = [r for r in obj.restored if r > line and _in(r, scope)]
            if after:
                continue
            if before:
                found.append(Finding(
                    DETECTOR, Severity.WARNING, f"{obj.kind} {name!r} is restored at line {before[-1]} and then "
                    f"created again at line {line}: the new object starts fresh, {WHY.get(obj.kind, '')}",
                    {"file": path, "line": line, "function": scope.name},
                    {"object": name, "object_kind": obj.kind, "restored": before, "created": line},
                    kind="restored_before_created"))
                continue
            if obj.kind != "scheduler" or obj.restored:
                continue
            for opt_name, opt in optimizers.items():
                loaded = [r for r in opt.restored if r < line and _in(r, scope)]
                if loaded:
                    found.append(Finding(
                        DETECTOR, Severity.WARNING, f"scheduler {name!r} is created at line {line}, after "
                        f"optimizer {opt_name!r} was restored (line {loaded[-1]}), and never restored itself: "
                        "it starts its schedule over (warm-up again, no decay so far) on the resumed optimizer; "
                        "save scheduler.state_dict() and load it after creating the scheduler",
                        {"file": path, "line": line, "function": scope.name},
                        {"object": name, "object_kind": "scheduler", "optimizer": opt_name,
                         "optimizer_restored": loaded[-1], "created": line}, kind="restored_before_created"))
                    break
    return found


def _in(line: int, scope: Scope) -> bool:
    node = scope.node
    end = getattr(node, "end_lineno", None)
    return isinstance(node, ast.Module) or (node.lineno <= line <= (end or line))
