"""``faultlib check resume``: does a training script's resume bring back all of its state?

Two modes::

    faultlib check resume TRAIN.py [--checkpoint CKPT]
    faultlib check resume --probe --steps N --stop-at K --resume-arg '--resume {checkpoint}' -- CMD...

Static (:mod:`faultlib.detect.training.resume`): the script is parsed, never run. JSON fields (besides
``detector``, ``ok``, ``findings``): ``mode`` (``static``), ``file``, ``objects`` (``[{name, kind, line,
function, saved, restored, implicit}]``), ``saves`` and ``loads`` (``[{line, function, call}]``),
``implicit`` (frameworks that save their state themselves: ``lightning``, ``transformers.Trainer``,
``accelerate``), ``complete``; with ``--checkpoint``: ``checkpoint`` (``{path, format, keys: [{key,
holds}]}``, read with the hardened reader, ``weights_only=True``; keys one level deep as ``rng.torch``),
where ``holds`` is ``optimizer``, ``scheduler``, ``grad_scaler``, ``rng``, ``counter``, ``model``,
``group`` or ``other`` (:func:`faultlib.detect.training.checkpoint_state.state_kind`).

Probe (:mod:`faultlib.detect.training.probe`): see ``--help``; fields ``mode`` (``probe``) and the probe's.
"""

from __future__ import annotations

from typing import Any

import click

from faultlib.check.base import CheckResult, check_command, lazy_kinds
from faultlib.readers.options import FiniteFloat

__getattr__ = lazy_kinds("faultlib.detect.training.vocab", extra={
    "resume_diverged": "(probe) the resumed run differs from the straight run at a step: lr, loss scale, loss, "
                       "data or parameters",
    "resume_restarted": "(probe) the resumed run started from the initial parameters: it did not load the "
                        "checkpoint (no resume code, or --resume-arg is not how the script resumes)",
    "probe_failed": "(probe) a run of the command failed or never wrote the checkpoint the probe waited for",
})
__all__ = ["KINDS", "command"]


def _summary(result: CheckResult) -> list[tuple[str, str]]:
    f = result.fields
    if f["mode"] == "probe":
        from faultlib.detect.training.probe import summary_lines
        return summary_lines(f)
    lines = []
    for o in f["objects"]:
        saved = "implicit (" + o["implicit"] + ")" if o["implicit"] else (
            f"saved {','.join(map(str, o['saved'])) or '-'}; restored {','.join(map(str, o['restored'])) or '-'}")
        lines.append((f"{o['kind']} {o['name']}", f"line {o['line']}: {saved}"))
    if f.get("checkpoint"):
        lines.append(("checkpoint holds", ", ".join(f"{k['key'] or '(top level)'}={k['holds']}"
                                                     for k in f["checkpoint"]["keys"]) or "no named keys"))
    if f["implicit"]:
        lines.append(("implicit state", ", ".join(f["implicit"])))
    if not f["implicit"] and not any(o["saved"] or o["restored"] or o["implicit"] for o in f["objects"]):
        lines.append(("checkpointing", "none found: the script saves and restores none of this state, so there is "
                                       "no resume to check (a preempted run starts again from step 0)"))
    return lines


@check_command("resume", summary=_summary, context_settings={"ignore_unknown_options": True},
               help="Check that a training script's resume restores all of its state. Static (TRAIN.py): which "
                    "stateful objects the loop uses (model, optimizers, LR schedulers, GradScaler, EMA, "
                    "generators and global RNGs, epoch/step counters), which the checkpoint code saves and the "
                    "resume code restores, and what is restored before it is created; the script is parsed, never "
                    "run. --checkpoint CKPT also says which state a checkpoint file really holds (weights_only). "
                    "Probe (--probe ... -- CMD...): run CMD straight for --steps optimizer steps, then again "
                    "stopped at --stop-at and resumed in a fresh process with --resume-arg, and name the first "
                    "step where lr, loss scale, loss, first-batch data or parameters differ.")
@click.argument("args", nargs=-1, type=click.UNPROCESSED, metavar="TRAIN.py | -- CMD...")
@click.option("--checkpoint", metavar="CKPT", default=None, help="A checkpoint the script wrote: list what it holds.")
@click.option("--probe", is_flag=True, help="Run the resume-equivalence probe on CMD (after --).")
@click.option("--steps", type=click.IntRange(2, 100_000), default=20, show_default=True,
              help="(probe) optimizer steps of the straight run.")
@click.option("--stop-at", type=click.IntRange(1, 100_000), default=None,
              help="(probe) stop the second run once its checkpoint for this step is on disk (default: steps/2).")
@click.option("--resume-arg", default="--resume {checkpoint}", show_default=True,
              help="(probe) arguments appended to CMD to resume; {checkpoint} is the newest checkpoint file, "
                   "{checkpoint_dir} the folder holding it; '' for a script that resumes from a fixed place.")
@click.option("--output-dir", metavar="DIR", default=None,
              help="(probe) where CMD writes its checkpoints, relative to its working directory; the probe runs "
                   "each run in a temporary copy of the current directory; only this directory is copied when the "
                   "current one holds over 512 MiB.")
@click.option("--timeout", "timeout_s", type=FiniteFloat(1, 86_400, min_open=False), default=600, show_default=True,
              help="(probe) seconds each run may take.")
def command(args: tuple[str, ...], checkpoint: str | None, probe: bool, steps: int, stop_at: int | None,
            resume_arg: str, output_dir: str | None, timeout_s: float) -> CheckResult:
    from faultlib.errors import InputError

    if probe:
        from faultlib.detect.training.probe import probe_resume

        cmd = list(args[1:] if args and args[0] == "--" else args)
        if not cmd:
            raise InputError("--probe needs the command to run after --: faultlib check resume --probe -- python "
                             "train.py ARGS", field="CMD")
        report = probe_resume(cmd, steps=steps, stop_at=stop_at or max(1, steps // 2), resume_arg=resume_arg,
                              output_dir=output_dir, timeout_s=timeout_s)
        return CheckResult("resume", report.findings, {"mode": "probe", **report.fields()})
    if len(args) != 1 or args[0].startswith("-"):
        raise InputError("expects one training script: faultlib check resume TRAIN.py [--checkpoint CKPT] (or "
                         "--probe -- CMD...)", field="TRAIN.py")
    from faultlib.detect.training.resume import analyze_resume_file

    report = analyze_resume_file(args[0])
    fields: dict[str, Any] = {"mode": "static", **report.fields(), "checkpoint": None}
    findings = list(report.findings)
    if checkpoint is not None:
        from faultlib.detect import read_checkpoint
        from faultlib.detect.training.checkpoint_state import checkpoint_coverage

        ckpt = read_checkpoint(checkpoint)
        keys, lacking = checkpoint_coverage(report, ckpt.content, str(checkpoint))
        fields["checkpoint"] = {"path": str(checkpoint), "format": ckpt.format, "keys": keys}
        findings.extend(lacking)
    return CheckResult("resume", findings, fields)
