"""torchrun's command line split without importing torch (importing it costs ~2 s of a trace's start).

The options are torchrun's documented ones (``torch/distributed/run.py``, ``get_args_parser``; the torchrun page of
the PyTorch documentation), each with its ``--dash-name`` and ``--underscore_name`` spelling. Whatever this table
cannot take exactly as argparse would (an option it does not know, such as one a newer torch added or an
abbreviation argparse accepts, a value of the wrong type, a ``--`` right after the script, a ``PET_*`` variable that turns on ``--module``,
``--no-python`` or ``--run-path``) makes :func:`split` answer None, and the caller asks torch's own parser.
"""

from __future__ import annotations

import os
from typing import NamedTuple

__all__ = ["Split", "split"]

#: options that take no value (argparse ``check_env`` actions)
FLAGS = frozenset({"--standalone", "-m", "--module", "--no-python", "--no_python", "--run-path", "--run_path",
                   "--virtual-local-rank", "--virtual_local_rank"})
#: options that take one value -> the type argparse converts it with (None: any string)
_VALUED = {"nnodes": None, "nproc-per-node": None, "rdzv-backend": None, "rdzv-endpoint": None, "rdzv-id": None,
           "rdzv-conf": None, "max-restarts": int, "monitor-interval": float, "start-method": None,
           "event-log-handler": None, "role": None, "log-dir": None, "redirects": None, "tee": None,
           "local-ranks-filter": None, "duplicate-stdout-filters": None, "duplicate-stderr-filters": None,
           "node-rank": int, "master-addr": None, "master-port": int, "local-addr": None, "logs-specs": None,
           "numa-binding": None, "signals-to-handle": None, "shutdown-timeout": int}
VALUED = {**{f"--{name}": kind for name, kind in _VALUED.items()},
          **{f"--{name.replace('-', '_')}": kind for name, kind in _VALUED.items()}, "-r": None, "-t": None}
_REFUSED = {"-m": "module", "--module": "module", "--no-python": "no_python", "--no_python": "no_python",
            "--run-path": "run_path", "--run_path": "run_path"}
_ENV_REFUSED = ("PET_MODULE", "PET_NO_PYTHON", "PET_RUN_PATH")


class Split(NamedTuple):
    """A torchrun command line: ``options`` (as given), the script, its arguments, ``--nproc-per-node`` and
    ``--nnodes`` (given, else their ``PET_*`` variables, else torchrun's defaults ``1`` and ``1:1``), and the
    options trace refuses (``module``, ``no_python``, ``run_path``)."""

    options: list[str]
    script: str
    script_args: list[str]
    nproc_per_node: str
    nnodes: str
    refused: list[str]


def _typed(kind, value: str) -> bool:
    if kind is None:
        return True
    try:
        kind(value)
    except ValueError:
        return False
    return True


def split(argv: list[str]) -> Split | None:
    """Split torchrun's arguments (those after ``torchrun``) as its parser would; None where only torch's parser
    can say (see the module docstring)."""
    if any(os.environ.get(name) for name in _ENV_REFUSED):
        return None
    given: dict[str, str] = {}
    refused: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        if token == "--":  # argparse: what follows is the script and its arguments
            i += 1
            break
        if not token.startswith("-") or token == "-":
            break
        name, eq, value = token.partition("=")
        if name in FLAGS and not eq:
            if name in _REFUSED:
                refused.append(_REFUSED[name])
            i += 1
            continue
        if not eq and name[:2] in ("-r", "-t") and len(name) > 2 and not name.startswith("--"):
            name, eq, value = name[:2], "=", name[2:]  # -t3: a short option with its value attached
        if name not in VALUED:
            return None
        if not eq:
            if i + 1 >= len(argv) or argv[i + 1].startswith("-"):
                return None  # argparse would say the value is missing
            value = argv[i + 1]
            i += 1
        if not _typed(VALUED[name], value):
            return None
        given[name.lstrip("-").replace("_", "-")] = value
        i += 1
    if i >= len(argv) or argv[i + 1:i + 2] == ["--"]:
        return None  # no script (torch's parser says so in its words); a "--" after it (argparse versions differ)
    options = argv[:i - 1] if argv[i - 1:i] == ["--"] else argv[:i]
    return Split(options, argv[i], argv[i + 1:],
                 given.get("nproc-per-node", os.environ.get("PET_NPROC_PER_NODE", "1")),
                 given.get("nnodes", os.environ.get("PET_NNODES", "1:1")), refused)
