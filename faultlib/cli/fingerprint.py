"""``faultlib fingerprint [--out FILE] [--json]``: the environment as canonical JSON.

Prints :func:`faultlib.fingerprint.dumps` of :func:`faultlib.fingerprint.collect` on stdout, or
writes it to FILE (atomically: a temporary file beside it, then a rename; a run never sees half a
fingerprint). The same environment gives the same bytes, so two files can be compared with ``cmp``
and read back by ``faultlib regen --since FILE``.

Nothing is written when FILE's directory does not exist or FILE is a directory or a symlink: exit 2
with the path. torch is imported by the command (when installed), never by ``faultlib --help``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.text import Text

from faultlib.console import emit_json, state, stdout
from faultlib.outputs import output_file


@click.command("fingerprint")
@click.option("--out", type=click.Path(path_type=Path), default=None, metavar="FILE",
              help="Write the fingerprint to FILE instead of stdout (a file is replaced atomically, a FIFO or "
                   "device written in place; checked before the work).")
@click.option("--json", "as_json", is_flag=True,
              help='Errors as JSON; with --out, print {"out", "bytes", "packages", "torch"} instead of a sentence.')
def fingerprint(out: Path | None, as_json: bool) -> int:
    """Print the environment's fingerprint: Python, platform, every installed package, torch's build, devices.

    The output is canonical JSON (sorted keys): the same environment gives the same bytes. Every
    run records the same fingerprint in run.json; `faultlib regen --since FILE` diffs against it.
    """
    from faultlib.fingerprint import collect, dumps

    state["json"] = as_json
    target = output_file(out, "--out") if out is not None else None  # before the work: a bad --out costs nothing
    fp = collect()
    text = dumps(fp)
    if target is None:
        sys.stdout.write(text)
        return 0
    size = target.write_text(text)
    torch = (fp.get("torch") or {}).get("version")
    if as_json:
        emit_json({"out": str(out), "bytes": size, "packages": len(fp["packages"]), "torch": torch})
    else:
        stdout.print(Text(f"wrote {out} ({size} bytes): {len(fp['packages'])} packages, Python {fp['python']}, "
                          f"torch {torch or 'not installed'}"))
    return 0
