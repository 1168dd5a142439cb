"""``faultlib fingerprint [--out FILE] [--json]``: the environment as canonical JSON.

Prints :func:`faultlib.fingerprint.dumps` of :func:`faultlib.fingerprint.collect` on stdout, or
writes it to FILE (atomically: a temporary file beside it, then a rename; a run never sees half a
fingerprint). The same environment gives the same bytes, so two files can be compared with ``cmp``
and read back by ``faultlib regen --since FILE``.

Nothing is written when FILE's directory does not exist or FILE is a directory or a symlink: exit 2
with the path. torch is imported by the command (when installed), never by ``faultlib --help``.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import click
from rich.text import Text

from faultlib.cli.root import app
from faultlib.console import emit_json, state, stdout
from faultlib.errors import InputError


def write(path: Path, text: str) -> int:
    """Write ``text`` (UTF-8) to ``path`` atomically; returns the bytes written.

    Raises:
        InputError: the parent directory does not exist, ``path`` is a directory or a symlink, or the
            file cannot be written (the OS error says why).
    """
    parent = path.parent
    if not parent.is_dir():
        what = "is not a directory" if os.path.lexists(parent) else "does not exist"
        raise InputError(f"{parent} {what}: create the directory first, or choose another --out",
                         path=str(path), field="--out")
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        info = None
    if info is not None and not stat.S_ISREG(info.st_mode):
        kind = ("a symbolic link" if stat.S_ISLNK(info.st_mode) else "a directory" if stat.S_ISDIR(info.st_mode)
                else "not a regular file (a FIFO, socket or device)")
        raise InputError(f"is {kind}: --out must name a regular file or a new one (never replaced or written "
                         "through)", path=str(path), field="--out")
    if info is not None and not info.st_mode & 0o222:  # mode bits, not access(): root may write anything
        raise InputError("is read-only: not replaced", path=str(path), field="--out")
    data = text.encode("utf-8")
    tmp = parent / f".{path.name}.tmp-{os.getpid()}"
    try:
        with open(tmp, "xb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise InputError(f"cannot be written: {exc.strerror}", path=str(path), field="--out") from None
    return len(data)


@app.command("fingerprint")
@click.option("--out", type=click.Path(path_type=Path), default=None, metavar="FILE",
              help="Write the fingerprint to FILE instead of stdout (replaced atomically).")
@click.option("--json", "as_json", is_flag=True,
              help='Errors as JSON; with --out, print {"out", "bytes", "packages", "torch"} instead of a sentence.')
def fingerprint(out: Path | None, as_json: bool) -> int:
    """Print the environment's fingerprint: Python, platform, every installed package, torch's build, devices.

    The output is canonical JSON (sorted keys): the same environment gives the same bytes. Every
    run records the same fingerprint in run.json; `faultlib regen --since FILE` diffs against it.
    """
    from faultlib.fingerprint import collect, dumps

    state["json"] = as_json
    fp = collect()
    text = dumps(fp)
    if out is None:
        sys.stdout.write(text)
        return 0
    size = write(out, text)
    torch = (fp.get("torch") or {}).get("version")
    if as_json:
        emit_json({"out": str(out), "bytes": size, "packages": len(fp["packages"]), "torch": torch})
    else:
        stdout.print(Text(f"wrote {out} ({size} bytes): {len(fp['packages'])} packages, Python {fp['python']}, "
                          f"torch {torch or 'not installed'}"))
    return 0
