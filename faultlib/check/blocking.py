"""``faultlib check blocking FILE.py|DIR``: blocking calls reachable from asyncio code, found statically.

Every ``async def`` (and every sync function handed to the loop as a callback) is followed into the
sync functions, methods and constructors of the file, or of every ``.py`` file under DIR where
imports resolve statically; each blocking call it reaches without leaving the loop is a finding at
the call (file, line, column, qualified function), of a kind in :data:`KINDS`. The code is parsed,
never imported or run (:mod:`faultlib.detect.serving.blocking`).

JSON fields (besides ``detector``, ``ok``, ``findings``): ``path`` (as given), ``files`` (the files
analysed), ``async_functions`` (how many ``async def``), ``loop_callbacks`` (sync functions the loop
runs as callbacks), ``offloaded`` (``[{function, via, file, line, in_function}]``: functions handed to
``asyncio.to_thread``/``run_in_executor``/``submit``, which run off the loop), ``skipped`` (files
left out, e.g. symbolic links), ``complete`` (false when the analysis stopped at its budget), ``added`` (files
read from outside DIR: the repository's own packages its code imports, found beside DIR or above it up to the git
repository's root), ``not_followed`` (for a single FILE: the imports of its own project it names, not followed),
``libraries`` (``[{name, version, files, calls, complete}]``: the installed libraries whose source was read to judge
the calls into them) and ``not_installed`` (top-level packages called on the loop that no rule knows and no site
directory holds: their calls were not judged).
Each finding's ``evidence``: ``call`` (the source of the call), ``calls`` (what it calls,
canonically: ``time.sleep``, ``requests.Session.get``), ``entry``/``entry_kind``/``entry_file``/
``entry_line`` (the ``async def`` or loop callback it is reached from, and the line of its first
call on the way), ``chain`` (``[{function, file, line}]`` from the entry to the call),
``entries`` (every entry that reaches it) and ``entry_calls`` (``[{function, file, line}]``: each line
where an entry calls into the way to the blocker, up to 32: where a fix at the caller goes), and ``guess``
only when no vocabulary entry documents the call and the verdict is guessed (a third-party class whose name
ends in ``Client``/``Session``/``Connection``): what it is guessed from, also said in the message; ``library`` only
for a call into an installed library whose source reaches a blocker: ``{distribution, version, chain, blocker_file,
blocker_line}`` (``chain``: ``nordpool.elspot.Prices.fetch -> nordpool.elspot.Prices._fetch_json -> requests.get``).

Installed libraries: a call into a package the vocabulary does not describe is judged by reading that package's
source where it is installed (:mod:`faultlib.detect.serving.blocking.installed`): the site directories of the Python
running faultlib and of the active virtual environment (``VIRTUAL_ENV``), or those ``--site-packages`` names.
``--no-follow-installed`` turns this off (such calls are then not judged, as when the library is not installed).
"""

from __future__ import annotations

import click

from faultlib.check.base import CheckResult, check_command, lazy_kinds

__getattr__ = lazy_kinds("faultlib.detect.serving.blocking")
__all__ = ["KINDS", "command"]


def _summary(result: CheckResult) -> list[tuple[str, str]]:
    f = result.fields
    lines = [("analysed", f"{len(f['files'])} file(s), {f['async_functions']} async def, "
                          f"{f['loop_callbacks']} loop callback(s)")]
    for off in f["offloaded"]:
        lines.append(("off the loop", f"{off['function']} via {off['via']} ({off['file']}:{off['line']})"))
    for skipped in f["skipped"]:
        lines.append(("skipped", skipped))
    if f.get("added"):
        lines.append(("also read", f"{len(f['added'])} file(s) of the repository's own packages outside "
                                   f"{f['path']} that its code imports: " + ", ".join(f["added"][:8])
                      + (", ..." if len(f["added"]) > 8 else "")))
    if f.get("libraries"):
        lines.append(("libraries read", ", ".join(f"{lib['name']} {lib['version']}" + (
            "" if lib["complete"] else " (cut at its bounds)") for lib in f["libraries"])))
    if f.get("not_installed"):
        lines.append(("not installed", "packages called on the loop, not judged (install them where faultlib runs, "
                                       "or pass --site-packages): " + ", ".join(f["not_installed"])))
    if f.get("not_followed"):
        lines.append(("not followed", "imports of its own project (a single file is analysed alone; pass the "
                                      "directory to follow them): " + ", ".join(f["not_followed"])))
    return lines


@check_command("blocking", summary=_summary,
               help="Find blocking calls (time.sleep, synchronous HTTP and SDK clients such as boto3 or the sync "
                    "OpenAI client, database drivers and ORMs, Celery result waits, file and socket I/O, "
                    "subprocesses, model inference) reachable from async def code without leaving the event loop, "
                    "following calls into sync helpers and methods across FILE.py, or across the files of DIR. "
                    "Functions handed to asyncio.to_thread, run_in_executor, anyio or run_in_threadpool are off "
                    "the loop; plain def FastAPI endpoints run in its thread pool. The code is parsed, never run. "
                    "Packages extend the vocabulary through the entry-point group faultlib.blocking_calls. "
                    "A call into an installed library the vocabulary does not know is judged from that library's "
                    "source (the site-packages of this Python and of the active virtualenv).")
@click.argument("path", metavar="FILE.py|DIR")
@click.option("--site-packages", "site_packages", multiple=True, metavar="DIR",
              type=click.Path(exists=True, file_okay=False),
              help="Read installed libraries from DIR (repeatable; e.g. the project's .venv/lib/python3.X/"
                   "site-packages) instead of this Python's site directories.")
@click.option("--no-follow-installed", is_flag=True,
              help="Do not read installed libraries: calls into packages the vocabulary does not know are not judged.")
def command(path: str, site_packages: tuple[str, ...], no_follow_installed: bool) -> CheckResult:
    from faultlib.detect.serving.blocking import analyze_path

    report = analyze_path(path, follow_installed=not no_follow_installed, site_dirs=list(site_packages) or None)
    return CheckResult("blocking", report.findings, {"path": path, **report.fields()})
