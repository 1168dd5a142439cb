"""Load a case directory and validate everything before any side effect.

Checks, in order, and all reported together as ``file:line: field: message``:
case.yaml parses; it matches ``schemas/case.schema.json`` (closed: unknown keys are
errors); ``id`` equals the directory name; the repro script, test_case.py and the
compose file exist; every shim is registered and its params match the shim's schema;
every assertion's test function is defined in test_case.py (found by parsing, not importing);
every Grafana panel names a PromQL entry that exists; every PromQL query parses (promql-parser)
and reads only metrics declared in ``observability.metrics``; the compose file's project name and
``FAULTLIB_CASE_ID`` / ``OTEL_SERVICE_NAME`` name this case (a copied case keeps the old ones).
The consistency checks run on whatever is well-formed, so one pass reports every problem.

:func:`validate_case` (``faultlib validate``) adds the proof of the observability block, which
needs more than the case directory: ``promtool check rules`` on the queries when promtool is
installed, the checked-in Grafana dashboards beside the catalog (each panel exists with the case's
query; panel ids unique within a family), and the case's last archived run (every span and metric
named was emitted). What cannot be checked (no promtool, no dashboards, no run) is a note, not an error.
"""

from __future__ import annotations

import ast
import difflib
from dataclasses import dataclass, field
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
        top = " at the top level" if err.validator == "required" and loc == [] else ""
        message = schemas.error_message(err) + top
        problems.append(CaseError(message, path=path, line=doc.line_of(loc), field=dotted(loc)))
    return problems


def _test_functions(test_file: Path) -> dict[str, int] | CaseError:
    """``{function name: line}`` of the module-level functions of ``test_file`` (parsed, never imported)."""
    from faultlib.readers.pysource import parse_python

    try:  # the static checks' reader: a syntax error or a file too deep for the parser in the same words
        tree = parse_python(read_text(test_file), str(test_file))
    except InputError as exc:
        return CaseError(exc.message, path=test_file, line=exc.line)
    return {n.name: n.lineno for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


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


def _promql_problems(data, problem, *, promtool: str | None, notes: list[str]) -> None:
    """Each query parses and reads only declared metrics (see :mod:`faultlib.observability.promql_check`)."""
    from faultlib.observability.promql_check import Query, check_queries

    queries = [Query(i, q["id"], q["query"]) for i, q in _items(data, "observability", "promql")
               if isinstance(q, dict) and isinstance(q.get("id"), str) and isinstance(q.get("query"), str)]
    declared = _get(data, "observability", "metrics")
    declared = [m for m in declared if isinstance(m, str)] if isinstance(declared, list) else None
    result = check_queries(queries, declared, promtool=promtool)
    for found in result.problems:
        problem(found.message, ["observability", "promql", found.index, "query"])
    notes.extend(result.notes)


def _requires_problems(data, problem) -> None:
    """``requires``: each package a distribution name and each version a PEP 440 specifier (``packaging``), so
    that a case that names ``--index-url`` or ``>=2; os.system(1)`` is refused when validated, not when run."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    from packaging.utils import InvalidName, canonicalize_name

    def spec(value, loc) -> None:
        if isinstance(value, str):
            try:
                SpecifierSet(value)
            except InvalidSpecifier:
                problem(f"{value!r} is not a PEP 440 version specifier (e.g. '>=2.3,<3')", loc)

    spec(_get(data, "requires", "python"), ["requires", "python"])
    packages = _get(data, "requires", "packages")
    for name, value in packages.items() if isinstance(packages, dict) else []:
        try:
            canonicalize_name(name, validate=True)
        except InvalidName:
            problem(f"{name!r} is not a package (distribution) name: letters, digits, '.', '-' and '_', starting "
                    "and ending with a letter or digit", ["requires", "packages", name])
            continue
        spec(value, ["requires", "packages", name])


def _semantic_problems(doc: PositionedYaml, case_dir: Path, path: Path, *, promtool: str | None = None,
                       notes: list[str] | None = None) -> list[CaseError]:
    """Consistency checks across fields and files; each runs on whatever parts are well-formed,
    so that one pass reports every problem alongside the schema's. ``promtool``: also parse the
    queries with Prometheus' own parser; ``notes`` receives what was not checked, and why."""
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
    _requires_problems(data, problem)
    query_ids = {_get(q, "id") for _, q in _items(data, "observability", "promql")}
    for i, panel in _items(data, "observability", "grafana", "panels"):
        query = _get(panel, "query")
        if isinstance(query, str) and query not in query_ids:
            problem(f"panel {_get(panel, 'id')} names query {query!r}, which is not in observability.promql "
                    f"({sorted(map(str, query_ids))})", ["observability", "grafana", "panels", i, "query"])
    _promql_problems(data, problem, promtool=promtool, notes=[] if notes is None else notes)
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
    declared = set()
    for i, assertion in _items(data, "assertions"):
        test = _get(assertion, "test")
        declared.add(test)
        if isinstance(test, str) and test not in functions:
            problem(f"test {test!r} is not defined in test_case.py", ["assertions", i, "test"])
    for name, line in functions.items():
        if name.startswith("test") and name not in declared:  # what pytest collects (python_functions = test*)
            problems.append(CaseError(
                f"{name} is not declared in case.yaml assertions: pytest runs it, but run, regress and JUnit "
                f"report only declared assertions; add an assertion with test: {name}, or rename a helper so "
                "it does not start with 'test'", path=test_file, line=line))
    return problems


def _read(case_dir: str | Path) -> tuple[Path, Path, PositionedYaml]:
    """``(case_dir, case.yaml, document)``: the directory resolved and case.yaml parsed (a mapping).

    Raises:
        CaseError: the directory or case.yaml is missing or unreadable, or the YAML is invalid.
    """
    case_dir = Path(case_dir).resolve()
    path = case_dir / CASE_FILE
    if case_dir.name == CASE_FILE and case_dir.is_file():  # `faultlib run cases/x/case.yaml`: the file, not its folder
        raise CaseError(f"is the case's {CASE_FILE}: pass the directory holding it ({case_dir.parent})", path=case_dir)
    if case_dir.exists() and not case_dir.is_dir():
        raise CaseError(f"is a file, not a case directory: pass a directory holding {CASE_FILE} "
                        "(faultlib list shows the catalog's)", path=case_dir)
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
    return case_dir, path, doc


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
    case_dir, path, doc = _read(case_dir)
    problems = _schema_problems(doc, path) + _semantic_problems(doc, case_dir, path)
    if problems:
        raise CaseValidationError(problems)
    return Case.from_data(case_dir, doc.data)


class ValidationContext:
    """What ``faultlib validate`` proves beyond :func:`load_case`, shared by every case it validates.

    Args:
        archive: URI of the archive whose last run of each case is checked (None: the default
            ``file://.faultlib/runs``, where a missing archive is a note rather than an error).
        promtool: the ``promtool`` binary; True (default): the one on ``PATH``, if any.

    Attributes:
        notes: things not checked, each said once per command (no promtool, no dashboards beside a
            catalog, no archive).
    """

    def __init__(self, archive: str | None = None, *, promtool: str | bool | None = True):
        from faultlib.archive import open_archive
        from faultlib.observability.archived import RunIndex
        from faultlib.observability.promql_check import PROMTOOL_MISSING, promtool_path

        self.promtool = promtool_path() if promtool is True else (promtool or None)
        self.runs = RunIndex(open_archive(archive), explicit=archive is not None)
        self.notes: list[str] = []
        self._catalogs: dict[Path, tuple] = {}
        if self.promtool is None:
            self.once(PROMTOOL_MISSING)

    def once(self, note: str) -> None:
        if note not in self.notes:
            self.notes.append(note)

    def catalog(self, catalog: Path):
        """``(checked-in dashboards or None, panel-id claims, collisions)`` of a catalog directory, read once."""
        from faultlib.observability import dashboards

        if catalog not in self._catalogs:
            folder = dashboards.dashboards_dir(catalog)
            if folder.is_dir():
                claims = dashboards.catalog_claims(discover(catalog))
                found = (dashboards.load_checked_in(folder), claims, dashboards.collisions(claims))
            else:
                found = (None, [], {})
                self.once(f"{catalog} has no compose/grafana/dashboards beside it (not in a repository with "
                          "dashboards): Grafana panels were not checked against dashboards")
            self._catalogs[catalog] = found
        return self._catalogs[catalog]


@dataclass
class CaseReport:
    """The outcome of :func:`validate_case`: the case (None when it did not load), every problem, and
    notes on what was not checked or what it was checked against."""

    path: Path
    case: Case | None
    problems: list[CaseError] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict:
        return {"path": str(self.path), "ok": self.ok, "problems": [p.to_json() for p in self.problems],
                "notes": self.notes}


def _observability_proof(doc: PositionedYaml, case_dir: Path, path: Path, context: ValidationContext,
                         notes: list[str]) -> list[CaseError]:
    """The case's panels exist in the checked-in dashboards with its queries, no other case of its family
    claims its panel ids, and its last archived run emitted its spans and metrics."""
    from faultlib.observability.archived import seen_problems
    from faultlib.observability.dashboards import collision_message, next_free_id, panel_problems

    found: list[tuple[list, str]] = []
    checked_in, claimed, collisions = context.catalog(case_dir.parent)
    if checked_in is not None:
        found += panel_problems(doc.data, checked_in)
        for claims in collisions.values():
            for claim in (c for c in claims if c.path == path):
                others = [c for c in claims if c is not claim]
                found.append((["observability", "grafana", "panels", claim.index, "id"],
                              collision_message(claim, others, next_free_id(claimed, claim.family))))
    case_id = doc.data.get("id") if isinstance(doc.data.get("id"), str) else case_dir.name
    last = context.runs.last_run(case_id)
    if context.runs.note:
        context.once(context.runs.note)
    unchecked = context.runs.unchecked(case_id)
    if unchecked:
        archive = f" --archive {context.runs.archive.uri}" if context.runs.explicit else ""
        context.once(f"{unchecked}: faultlib run {case_dir}{archive}")
    if last is None:
        notes.append(f"no passed run of {case_id} in {context.runs.archive.uri}: spans and metrics were not "
                     "checked against a run")
    else:
        notes.append(f"spans and metrics checked against the last archived run {last.label}")
        found += seen_problems(doc.data, last)
    return [CaseError(message, path=path, line=doc.line_of(loc), field=dotted(loc)) for loc, message in found]


def validate_case(case_dir: str | Path, context: ValidationContext) -> CaseReport:
    """Everything :func:`load_case` checks, plus the proof of the case's observability block: its
    queries also pass ``promtool`` (when installed), its Grafana panels exist in the checked-in
    dashboards with its queries and have ids unique in its family, and its last archived run
    emitted every span and metric it names. Every problem of the case is reported in one pass.

    Args:
        case_dir: the case directory.
        context: what the cases of one ``faultlib validate`` share (archive, dashboards, promtool).

    Returns:
        A :class:`CaseReport`; ``problems`` holds each error as ``file:line: field: message``.

    Raises:
        ArchiveError: the archive named in ``context`` is missing or a run cannot be fetched.
        ArchiveUnavailable: the archive's store could not be reached (exit 3).
    """
    try:
        case_dir, path, doc = _read(case_dir)
    except CaseError as exc:
        return CaseReport(Path(case_dir), None, [exc])
    notes: list[str] = []
    problems = (_schema_problems(doc, path)
                + _semantic_problems(doc, case_dir, path, promtool=context.promtool, notes=notes)
                + _observability_proof(doc, case_dir, path, context, notes))
    return CaseReport(case_dir, None if problems else Case.from_data(case_dir, doc.data), problems, notes)


#: what `list` and `regress` say of a folder without any case directory (the wrong folder, most likely)
NO_CASES = "no case directories (folders holding case.yaml) here: pass the catalog, e.g. cases/"


def discover(root: str | Path) -> list[Path]:
    """Case directories under ``root`` (those holding a case.yaml), sorted by name."""
    root = Path(root)
    if (root / CASE_FILE).is_file():
        return [root]
    return sorted(p.parent for p in root.glob(f"*/{CASE_FILE}"))
