"""``faultlib check checkpoints DIR|FILE...``: which checkpoints load, why the others do not, where to resume.

Every file given, and every checkpoint-named file of each directory given (``*.pt``, ``*.pth``,
``*.ckpt``, ``*.bin``, ``*.safetensors``, ``*.tar``, ``*.pkl``, temporary files of interrupted writes
included; not below), is read with the one safe reader (:mod:`faultlib.detect.checkpoints.reader`:
bytes identified first, then ``torch.load(weights_only=True)`` or the safetensors parser; a pickle's
globals are listed statically, never unpickled).

JSON fields (besides ``detector``, ``ok``, ``findings``): ``files`` (newest first: ``[{file, loads,
format, bytes, kind, message, unsafe_globals, step, saved_step}]``), ``order`` (``step`` when every
name states a step, else ``mtime``), ``newest`` (file) and ``newest_loadable`` (``{file, step,
saved_step}`` or ``null``): the checkpoint to resume from.

Exit codes: 0 when every file loads, 1 when one does not (a finding of its ``kind``: ``empty_file``,
``truncated``, ``not_a_checkpoint``, ``unsafe_globals``, ``corrupt``, ``unreadable``; plus
``newest_not_loadable`` or ``no_loadable_checkpoint``), 2 when a path does not exist or a directory
holds no checkpoint file.
"""

from __future__ import annotations

import click

from faultlib.check.base import CheckResult, check_command, lazy_kinds

__getattr__ = lazy_kinds("faultlib.detect.checkpoints.scan")
__all__ = ["KINDS", "command"]


def _summary(result: CheckResult) -> list[tuple[str, str]]:
    f = result.fields
    loads = sum(1 for s in f["files"] if s["loads"])
    best = f["newest_loadable"]
    return [("files", f"{loads} of {len(f['files'])} load (newest first, by {f['order']})"),
            ("resume from", f"{best['file']}" + (f" (step {best['step']})" if best and best["step"] is not None else "")
             if best else "nothing loads")]


@check_command("checkpoints", summary=_summary,
               help="Which checkpoint files load (torch.load weights_only=True, or safetensors) and why the others "
                    "do not (empty, truncated, not a checkpoint, unsafe pickle globals, corrupt), and the newest "
                    "one to resume from. Takes files and directories.")
@click.argument("paths", nargs=-1, required=True, metavar="DIR|FILE...")
def command(paths: tuple[str, ...]) -> CheckResult:
    """Check every file (see the module docstring).

    Raises:
        InputError: a path does not exist, or a directory holds no checkpoint file (exit 2).
    """
    from faultlib.detect.checkpoints.scan import scan

    result = scan(paths)
    return CheckResult("checkpoints", result.findings(), result.fields())
