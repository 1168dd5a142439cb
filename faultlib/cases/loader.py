"""Load a case directory and validate everything before any side effect.

Checks, in order, and all reported together as ``file:line: field: message``:
case.yaml parses; it matches ``schemas/case.schema.json`` (closed: unknown keys are
errors); ``id`` equals the directory name; the repro script, test_case.py and the
compose file exist; every shim is registered and its params match the shim's schema;
every assertion's test function is defined in test_case.py (found by parsing, not importing);
every Grafana panel names a PromQL entry that exists.
"""

from __future__ import annotations

import ast
import difflib
from pathlib import Path

from faultlib import schemas
from faultlib.cases.model import Case
from faultlib.readers import PositionedYaml, dotted, inside, load_yaml_file, read_text
from faultlib.errors import CaseError, CaseValidationError, InjectionError, InputError

CASE_FILE = "case.yaml"


def _schema_problems(doc: PositionedYaml, path: Path) -> list[CaseError]:
    validator = schemas.validator("case")
    problems = []
    for err in sorted(validator.iter_errors(doc.data), key=lambda e: list(map(str, e.absolute_path))):
        loc = list(err.absolute_path)
        if err.validator == "additionalProperties" and isinstance(err.instance, dict):
            known = list(err.schema.get("properties", {}))
            for key in [k for k in err.instance if k not in known]:
                close = difflib.get_close_matches(key, known, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else f"; allowed: {', '.join(known)}"
                problems.append(CaseError(f"unknown key {key!r}{hint} (unknown keys are errors)", path=path,
                                          line=doc.line_of([*loc, key]), field=dotted([*loc, key])))
            continue
        message = err.message + (" at the top level" if err.validator == "required" and loc == [] else "")
        problems.append(CaseError(message, path=path, line=doc.line_of(loc), field=dotted(loc)))
    return problems


def _test_functions(test_file: Path) -> set[str] | CaseError:
    try:
        tree = ast.parse(read_text(test_file), filename=str(test_file))
    except InputError as exc:
        return CaseError(exc.message, path=test_file, line=exc.line)
    except SyntaxError as exc:
        return CaseError(f"syntax error: {exc.msg}", path=test_file, line=exc.lineno)
    except (ValueError, RecursionError, MemoryError) as exc:  # e.g. nested too deeply for the parser
        return CaseError(f"cannot parse ({type(exc).__name__}): simplify the file", path=test_file)
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _semantic_problems(doc: PositionedYaml, case_dir: Path, path: Path) -> list[CaseError]:
    from faultlib.inject.registry import param_errors

    data = doc.data
    problems: list[CaseError] = []

    def problem(message: str, loc: list) -> None:
        problems.append(CaseError(message, path=path, line=doc.line_of(loc), field=dotted(loc)))

    if data["id"] != case_dir.name:
        problem(f"id {data['id']!r} must equal the directory name {case_dir.name!r}", ["id"])
    for loc, what in ((["repro", "script"], "repro script"), (["topology", "compose"], "compose file")):
        name = data[loc[0]][loc[1]]
        try:
            found = inside(case_dir, name)
        except InputError as exc:
            problem(f"{what} {name!r}: {exc.message}", loc)
            continue
        if not found.is_file():
            problem(f"{what} {name} not found in {case_dir}", loc)
    for i, shim in enumerate(data["inject"]["local"]):
        try:
            errors = param_errors(shim["shim"], dict(shim.get("params") or {}))
        except InjectionError as exc:
            problem(str(exc), ["inject", "local", i, "shim"])
            continue
        for sub, message in errors:
            problem(f"shim {shim['shim']!r}: {message}", ["inject", "local", i, "params", *sub])
    query_ids = {q["id"] for q in data["observability"]["promql"]}
    for i, panel in enumerate(data["observability"]["grafana"]["panels"]):
        if panel["query"] not in query_ids:
            problem(f"panel {panel['id']} names query {panel['query']!r}, which is not in observability.promql "
                    f"({sorted(query_ids)})", ["observability", "grafana", "panels", i, "query"])
    test_file = case_dir / "test_case.py"
    if test_file.is_symlink():
        problem("test_case.py is a symbolic link: faultlib does not follow links; put the file itself in the case",
                ["assertions"])
        return problems
    if not test_file.is_file():
        problem(f"assertion suite test_case.py not found in {case_dir}", ["assertions"])
        return problems
    functions = _test_functions(test_file)
    if isinstance(functions, CaseError):
        return problems + [functions]
    for i, assertion in enumerate(data["assertions"]):
        if assertion["test"] not in functions:
            problem(f"test {assertion['test']!r} is not defined in test_case.py", ["assertions", i, "test"])
    return problems


def load_case(case_dir: str | Path) -> Case:
    """Load and fully validate a case directory.

    Args:
        case_dir: directory holding case.yaml, the repro script, test_case.py, compose.yaml.

    Returns:
        The typed :class:`Case`.

    Raises:
        CaseError: the directory or case.yaml is missing or unreadable, or YAML is invalid.
        CaseValidationError: one or more schema or consistency problems (all of them listed).
    """
    case_dir = Path(case_dir).resolve()
    path = case_dir / CASE_FILE
    if not case_dir.is_dir():
        raise CaseError("case directory not found: pass a directory holding case.yaml", path=case_dir)
    if not path.is_file():
        raise CaseError("case.yaml not found in the case directory", path=path)
    doc = load_yaml_file(path, root=case_dir)
    if not isinstance(doc.data, dict):
        raise CaseError("case.yaml must be a mapping of fields (id, version, repro, ...)", path=path, line=1)
    problems = _schema_problems(doc, path)
    if not problems:
        problems = _semantic_problems(doc, case_dir, path)
    if problems:
        raise CaseValidationError(problems)
    return Case.from_data(case_dir, doc.data)


def discover(root: str | Path) -> list[Path]:
    """Case directories under ``root`` (those holding a case.yaml), sorted by name."""
    root = Path(root)
    if (root / CASE_FILE).is_file():
        return [root]
    return sorted(p.parent for p in root.glob(f"*/{CASE_FILE}"))
