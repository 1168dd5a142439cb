"""Load a case directory and validate everything before any side effect.

Checks, in order, and all reported together as ``file:line: field: message``:
case.yaml parses; it matches ``schemas/case.schema.json`` (closed: unknown keys are
errors); ``id`` equals the directory name; the repro script, test_case.py and the
compose file exist; every shim is registered and its params match the shim's schema;
every assertion's test function is defined in test_case.py (found by parsing, not importing);
every Grafana panel names a PromQL entry that exists; the compose file's project name and
``FAULTLIB_CASE_ID`` / ``OTEL_SERVICE_NAME`` name this case (a copied case keeps the old ones).
The consistency checks run on whatever is well-formed, so one pass reports every problem.
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


def _get(data, *keys):
    """``data[k0][k1]...`` or None when a level is missing or of the wrong type (the schema reports that)."""
    for key in keys:
        if isinstance(key, int):
            data = data[key] if isinstance(data, list) and -len(data) <= key < len(data) else None
        else:
            data = data.get(key) if isinstance(data, dict) else None
        if data is None:
            return None
    return data


def _items(data, *keys) -> list:
    found = _get(data, *keys)
    return list(enumerate(found)) if isinstance(found, list) else []


def _compose_ids(compose: Path, case_id: str, problem) -> None:
    """The ids a copied case keeps from its original: the project name and each service's
    ``FAULTLIB_CASE_ID`` / ``OTEL_SERVICE_NAME`` must name this case."""
    try:
        doc = load_yaml_file(compose, root=compose.parent)
    except InputError as exc:
        problem(f"compose file: {exc}", ["topology", "compose"])
        return
    data = doc.data if isinstance(doc.data, dict) else {}
    project = f"faultlib-{case_id.replace('_', '-')}"
    if "name" in data and data["name"] != project:
        problem(f"{compose.name}:{doc.line_of(['name'])}: project name {data['name']!r} should be {project!r} "
                "(copied from another case?)", ["topology", "compose"])
    for service, body in (data.get("services") or {}).items() if isinstance(data.get("services"), dict) else []:
        env = body.get("environment") if isinstance(body, dict) else None
        if isinstance(env, list):  # ["KEY=value", ...]
            env = dict(item.split("=", 1) for item in env if isinstance(item, str) and "=" in item)
        for key in ("FAULTLIB_CASE_ID", "OTEL_SERVICE_NAME"):
            value = env.get(key) if isinstance(env, dict) else None
            if value is not None and value != case_id:
                line = doc.line_of(["services", service, "environment", key])
                problem(f"{compose.name}:{line}: services.{service}.environment.{key} is {value!r}, but the case id "
                        f"is {case_id!r} (copied from another case?)", ["topology", "compose"])


def _semantic_problems(doc: PositionedYaml, case_dir: Path, path: Path) -> list[CaseError]:
    """Consistency checks across fields and files; each runs on whatever parts are well-formed,
    so that one pass reports every problem alongside the schema's."""
    from faultlib.inject.registry import param_errors

    data = doc.data
    problems: list[CaseError] = []

    def problem(message: str, loc: list) -> None:
        problems.append(CaseError(message, path=path, line=doc.line_of(loc), field=dotted(loc)))

    case_id = _get(data, "id")
    if isinstance(case_id, str) and case_id != case_dir.name:
        problem(f"id {case_id!r} must equal the directory name {case_dir.name!r}", ["id"])
    for loc, what in ((["repro", "script"], "repro script"), (["topology", "compose"], "compose file")):
        name = _get(data, *loc)
        if not isinstance(name, str):
            continue
        try:
            found = inside(case_dir, name)
        except InputError as exc:
            problem(f"{what} {name!r}: {exc.message}", loc)
            continue
        if not found.is_file():
            problem(f"{what} {name} not found in {case_dir}", loc)
        elif what == "compose file":
            _compose_ids(found, case_dir.name, problem)
    for i, shim in _items(data, "inject", "local"):
        if not isinstance(shim, dict) or not isinstance(shim.get("shim"), str):
            continue
        params = shim.get("params") or {}
        try:
            errors = param_errors(shim["shim"], dict(params) if isinstance(params, dict) else {})
        except InjectionError as exc:
            problem(str(exc), ["inject", "local", i, "shim"])
            continue
        for sub, message in errors:
            problem(f"shim {shim['shim']!r}: {message}", ["inject", "local", i, "params", *sub])
    query_ids = {_get(q, "id") for _, q in _items(data, "observability", "promql")}
    for i, panel in _items(data, "observability", "grafana", "panels"):
        query = _get(panel, "query")
        if isinstance(query, str) and query not in query_ids:
            problem(f"panel {_get(panel, 'id')} names query {query!r}, which is not in observability.promql "
                    f"({sorted(map(str, query_ids))})", ["observability", "grafana", "panels", i, "query"])
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
    for i, assertion in _items(data, "assertions"):
        test = _get(assertion, "test")
        if isinstance(test, str) and test not in functions:
            problem(f"test {test!r} is not defined in test_case.py", ["assertions", i, "test"])
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
    try:
        doc = load_yaml_file(path, root=case_dir)
    except InputError as exc:
        if isinstance(exc, CaseError):
            raise
        raise CaseError(exc.message, path=exc.path, line=exc.line, field=exc.field) from None
    if not isinstance(doc.data, dict):
        raise CaseError("case.yaml must be a mapping of fields (id, version, repro, ...)", path=path, line=1)
    problems = _schema_problems(doc, path) + _semantic_problems(doc, case_dir, path)
    if problems:
        raise CaseValidationError(problems)
    return Case.from_data(case_dir, doc.data)


def discover(root: str | Path) -> list[Path]:
    """Case directories under ``root`` (those holding a case.yaml), sorted by name."""
    root = Path(root)
    if (root / CASE_FILE).is_file():
        return [root]
    return sorted(p.parent for p in root.glob(f"*/{CASE_FILE}"))
