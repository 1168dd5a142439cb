"""Kedro pipelines run as one program, for the static leakage analysis of a project's ``nodes.py``.

A Kedro project keeps each step in a function of a ``nodes.py`` and joins the steps in ``pipeline.py`` by the names
of the datasets they read and write (Kedro documentation, "Nodes and pipelines": ``node(func, inputs, outputs)``,
inputs a dataset name, a list of them (positional arguments) or a dict (keyword arguments); outputs the same for
the function's return value, a list unpacked in order, a dict by key; ``params:...`` names a parameter, not data)::

    node(normalize, "clean_table", "normalized_table")
    node(split_data, "normalized_table", ["X_train", "X_test", "y_train", "y_test"])
    node(train_and_score, ["X_train", "y_train", "X_test", "y_test"], None)

Read alone, ``normalize`` takes the min and max of every row and no split follows, and ``split_data`` splits a
table it was handed: the leak is in neither function (wave 59: a PCA node feeding a classification pipeline;
wave 61: a min-max node before the split node). :func:`kedro_program` writes the pipelines' nodes as the calls
Kedro makes, in the order the datasets allow, after the node modules' own text: the nodes of the script asked about
and every node downstream of them (what their outputs reach), each call on a line of its own at the end, after a
read of each dataset no node of the program makes (the catalog's own files, loaded by Kedro as tables).

Bounds: at most :data:`MAX_PIPELINES` ``pipeline.py`` files and :data:`MAX_NODES` node calls; a node whose function,
inputs or outputs are not literal (built at run time) is left out, and so is a node whose module the hardened
reader refuses (a symbolic link, too large, not text: :mod:`faultlib.readers`); namespaces and dataset renames of modular
pipelines are not applied (the names are read as written).
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass
from keyword import iskeyword
from pathlib import Path

#: the most ``pipeline.py`` files read for one project
MAX_PIPELINES = 40
#: the most node calls written into one program
MAX_NODES = 60
#: folders above a ``nodes.py`` searched for the project's ``pipelines`` folder
MAX_UP = 3


@dataclass(frozen=True)
class KedroNode:
    """One ``node(...)`` call: the function's file and name, its inputs (``list``: positional, ``dict``: keyword)
    and outputs (``str``, ``list``, ``dict`` or ``None``)."""

    module: Path
    func: str
    inputs: tuple | dict | None
    outputs: str | tuple | dict | None
    line: int
    pipeline: Path


def _parse(path: Path) -> ast.Module | None:
    from faultlib.detect.data.leakage.session import _parsed

    return _parsed(path)


def _imports_kedro(tree: ast.Module) -> bool:
    return any(isinstance(n, ast.ImportFrom) and (n.module or "").startswith("kedro") for n in tree.body)


def pipeline_files(path: str | Path) -> list[Path]:
    """The ``pipeline.py`` files (importing ``kedro``) of the project a script is in: those under the nearest
    ``pipelines`` folder at or above it, else the one beside it; ``[]`` when it is not in a Kedro project."""
    folder = Path(path).resolve().parent
    for up in [folder, *folder.parents][:MAX_UP + 1]:
        if up.name == "pipelines":
            found = sorted(up.rglob("pipeline.py"))[:MAX_PIPELINES]
            return [p for p in found if (t := _parse(p)) is not None and _imports_kedro(t)]
    beside = folder / "pipeline.py"
    tree = _parse(beside) if beside.is_file() else None
    return [beside] if tree is not None and _imports_kedro(tree) else []


def _names(value: ast.expr | None) -> tuple | dict | str | None:
    """A literal dataset spec: a name, a list/tuple of names, a dict of names; ``...`` (Ellipsis) when not literal."""
    if value is None or isinstance(value, ast.Constant) and value.value is None:
        return None
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return value.value
    if isinstance(value, (ast.List, ast.Tuple)) and all(isinstance(e, ast.Constant) and isinstance(e.value, str)
                                                        for e in value.elts):
        return tuple(e.value for e in value.elts)
    if isinstance(value, ast.Dict) and all(isinstance(k, ast.Constant) and isinstance(v, ast.Constant)
                                           for k, v in zip(value.keys, value.values)):
        return {k.value: v.value for k, v in zip(value.keys, value.values)}
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict" and \
            not value.args and all(isinstance(k.value, ast.Constant) for k in value.keywords):
        return {k.arg: k.value.value for k in value.keywords}
    return ...


def _functions(tree: ast.Module, pipeline: Path) -> dict[str, tuple[Path, str]]:
    """The functions a ``pipeline.py`` imports from the project: ``{local name: (module file, name there)}``."""
    from faultlib.detect.data.leakage.projimports import resolve_from

    out: dict[str, tuple[Path, str]] = {}
    for n in tree.body:
        if isinstance(n, ast.ImportFrom) and not (n.module or "").startswith("kedro"):
            for mod in resolve_from(n, pipeline.parent, [], _parse)[:1]:
                for a in n.names:
                    if a.name != "*":
                        out[a.asname or a.name] = (mod, a.name)
                    elif (t := _parse(mod)) is not None:
                        out.update({d.name: (mod, d.name) for d in t.body if isinstance(d, ast.FunctionDef)})
    return out


def _nodes(pipeline: Path) -> list[KedroNode]:
    tree = _parse(pipeline)
    if tree is None:
        return []
    funcs = _functions(tree, pipeline)
    out = []
    for call in ast.walk(tree):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in ("node", "Node")):
            continue
        kw = {k.arg: k.value for k in call.keywords if k.arg}
        func, inputs, outputs = (kw.get(name, call.args[i] if len(call.args) > i else None)
                                 for i, name in enumerate(("func", "inputs", "outputs")))
        spec_in, spec_out = _names(inputs), _names(outputs)
        if isinstance(spec_in, dict) and not all(isinstance(k, str) and k.isidentifier() and not iskeyword(k)
                                                 for k in spec_in):
            continue  # keyword names go into the written call: only a Python identifier is taken, as Kedro binds it
        if isinstance(func, ast.Name) and func.id in funcs and spec_in is not ... and spec_out is not ...:
            module, name = funcs[func.id]
            # absolute, not resolved: a node module that is a symbolic link stays one, and is not read (_read)
            out.append(KedroNode(Path(os.path.abspath(module)), name, spec_in, spec_out, call.lineno, pipeline))
    return sorted(out, key=lambda n: (str(n.pipeline), n.line))


def _produced(node: KedroNode) -> set[str]:
    outs = node.outputs
    names = [] if outs is None else [outs] if isinstance(outs, str) else list(outs.values()) if isinstance(
        outs, dict) else list(outs)
    return {_dataset(n) for n in names}


def _consumed(node: KedroNode) -> set[str]:
    ins = node.inputs
    names = [] if ins is None else [ins] if isinstance(ins, str) else list(ins.values()) if isinstance(
        ins, dict) else list(ins)
    return {_dataset(n) for n in names if not _is_parameter(n)}


def _dataset(name: str) -> str:
    return name.split("@")[0]  # transcoding: "table@pandas" and "table@spark" are one dataset


def _is_parameter(name: str) -> bool:
    return name == "parameters" or name.startswith("params:")


def _variable(name: str) -> str:
    return "ds_" + re.sub(r"\W", "_", _dataset(name))


def _downstream(nodes: list[KedroNode], script: Path) -> list[KedroNode]:
    """The nodes of ``script`` and every node their outputs reach, in an order the datasets allow."""
    chosen = [n for n in nodes if n.module == script]
    reached = set().union(*(_produced(n) for n in chosen)) if chosen else set()
    grew = True
    while grew and len(chosen) < MAX_NODES:
        grew = False
        for n in nodes:
            if n not in chosen and _consumed(n) & reached:
                chosen.append(n)
                reached |= _produced(n)
                grew = True
    ordered: list[KedroNode] = []
    made_here = set().union(*(_produced(n) for n in chosen)) if chosen else set()
    ready: set[str] = set()
    todo = list(chosen[:MAX_NODES])
    while todo:
        nxt = next((n for n in todo if not (_consumed(n) & made_here - ready)), todo[0])  # a cycle: file order
        todo.remove(nxt)
        ordered.append(nxt)
        ready |= _produced(nxt)
    return ordered


def _call(node: KedroNode, name: str) -> str:
    def arg(spec: str) -> str:
        return "{}" if _is_parameter(spec) else _variable(spec)

    ins = node.inputs
    args = "" if ins is None else arg(ins) if isinstance(ins, str) else ", ".join(
        f"{k}={arg(v)}" for k, v in ins.items()) if isinstance(ins, dict) else ", ".join(arg(v) for v in ins)
    outs = node.outputs
    if outs is None:
        return f"{name}({args})"
    if isinstance(outs, str):
        return f"{_variable(outs)} = {name}({args})"
    if isinstance(outs, dict):
        return "; ".join([f"_out = {name}({args})", *(f"{_variable(v)} = _out[{k!r}]" for k, v in outs.items())])
    return f"{', '.join(_variable(v) for v in outs)}{',' if len(outs) == 1 else ''} = {name}({args})"


def kedro_program(path: str | Path) -> tuple[str, object] | None:
    """The program Kedro runs for the nodes of ``path`` and those downstream (see the module docstring): its text
    and :class:`~faultlib.detect.data.leakage.source.SourceMap` (the node modules' lines in place, then the calls,
    mapped to the ``pipeline.py`` beside ``path`` or the first one); ``None`` when ``path`` is no Kedro node
    module or nothing is downstream of its nodes."""
    from faultlib.detect.data.leakage.session import _raw
    from faultlib.detect.data.leakage.source import SourceMap, clean_lines
    from faultlib.readers import read_text

    script = Path(path).resolve()
    pipes = pipeline_files(script)
    nodes = [n for p in pipes for n in _nodes(p)]
    program = _downstream(nodes, script)
    # the other node modules through the hardened reader: one that is a link, too large or not text is left out
    texts = {m: raw for m in dict.fromkeys(n.module for n in program) if m != script and (raw := _raw(m)) is not None}
    program = [n for n in program if n.module == script or n.module in texts]
    if not any(n.module != script for n in program) and len(program) < 2:
        return None
    modules = list(dict.fromkeys([script, *(n.module for n in program)]))
    owners: dict[str, list[Path]] = {}
    for n in program:
        if n.module not in owners.setdefault(n.func, []):
            owners[n.func].append(n.module)
    renamed = {(m, f): f if i == 0 else f"{f}__{i}" for f, ms in owners.items() for i, m in enumerate(ms)}
    lines: list[str] = []
    files: list[tuple[str, int, int]] = []
    for m in modules:
        text = clean_lines((read_text(str(path)) if m == script else texts[m]).split("\n"))
        for (owner, f), new in renamed.items():
            if owner == m and new != f:  # one name defined by two node modules: each keeps its own function
                text = [re.sub(rf"^def {re.escape(f)}\b", f"def {new}", t) for t in text]
        files.append((str(path) if m == script else str(m), len(lines) + 1, len(text)))
        lines.extend(text)
    made = set().union(*(_produced(n) for n in program))
    raw = sorted(set().union(*(_consumed(n) for n in program)) - made)
    # the catalog's own datasets: tables Kedro loads (a csv, a parquet, ...), read here as a file's rows
    calls = ["import pandas as _catalog", *(f"{_variable(d)} = _catalog.read_csv({d + '.csv'!r})" for d in raw),
             *(_call(n, renamed[(n.module, n.func)]) for n in program)]
    beside = next((p for p in pipes if p.parent == script.parent), pipes[0])
    files.append((str(beside), len(lines) + 1, len(calls)))
    lines.extend(calls)
    return "\n".join(lines) + "\n", SourceMap(str(path), None, files=files)


__all__ = ["KedroNode", "kedro_program", "pipeline_files"]
