"""Static checks of a case's PromQL: the query parses, and every metric it reads is declared.

Two parsers, for two jobs:

- ``promql-parser`` (PyPI; a Python binding of the Rust ``promql-parser`` crate, the GreptimeDB
  parser that follows Prometheus' grammar) always runs, in-process: it gives the AST, from which
  :func:`metric_names` takes every vector selector's name, including ``{__name__="..."}`` matchers,
  and it reports syntax and type errors (``rate(x)`` on an instant vector) when promtool is absent.
- ``promtool check rules`` (Prometheus' own parser; Debian's ``prometheus`` package), when it is on
  ``PATH``: each query becomes one ``record:``/``expr:`` rule of a temporary rules file (written with
  PyYAML, never formatted from the query text) and promtool's complaint, which names the rule by
  number, is mapped back to the query. Where both parsers see a query, promtool's verdict wins; a
  query promtool accepts but promql-parser cannot read is a note (its metric names go unchecked).

Declared means listed in ``observability.metrics``; for histograms ``x_bucket``, ``x_count`` and
``x_sum`` count as declared by ``x``, and ``x`` by any of them. A ``__name__`` regex must match
at least one declared name. A case without ``observability.metrics`` has nothing to check the
names against: that is a note, not an error. A query that reads no metric at all (``"hello"``, ``1``)
is an error: a panel and the evaluation need series.

Bounds come first: promql-parser's recursive descent overflows the native stack (the process dies
with SIGSEGV, no exception) at about 5,000 chained binary operators or a few thousand nested
parentheses, so a query longer than :data:`MAX_QUERY_CHARS`, nesting deeper than :data:`MAX_NESTING`
or with more than :data:`MAX_OPERATORS` operator characters is refused before any parser sees it. A
subquery that asks for more than :data:`MAX_POINTS` evaluations (``m[30d:1ms]``) is refused too:
Prometheus drops the connection on it, and the case's other queries would go unevaluated.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field

#: what installs promtool (DESIGN: the Debian package, as root in CI)
PROMTOOL_INSTALL = "apt-get install -y --no-install-recommends prometheus"
PROMTOOL_MISSING = (f"promtool not installed ({PROMTOOL_INSTALL}): PromQL syntax checked with promql-parser only")
HISTOGRAM_SUFFIXES = ("_bucket", "_count", "_sum")
#: promtool checks a few dozen rules in ~25 ms; a hung promtool must not hang validate
PROMTOOL_TIMEOUT_S = 60
#: ``r.yml: 7:11: group "case", rule 2, "query_1": could not parse expression: 1:15: parse error: ...``
_PROMTOOL_RULE = re.compile(r'rule (\d+), "[^"]*": (.*)$')
#: bounds checked before parsing (see the module docstring); a real dashboard query is well inside them
MAX_QUERY_CHARS = 4096
MAX_NESTING = 64
MAX_OPERATORS = 256
_OPERATOR_CHARS = frozenset("+-*/%^<>=!")
#: how much of a refused query an error message quotes
QUOTE_CHARS = 200
#: Prometheus refuses a query_range of more points per series than this ("exceeded maximum resolution of
#: 11,000 points per timeseries"); a subquery ``[range:step]`` evaluates its inner query at range/step points
MAX_POINTS = 11_000
#: the step of a subquery written without one (``[1h:]``): Prometheus' default global evaluation interval
DEFAULT_SUBQUERY_STEP_S = 60.0


@dataclass(frozen=True)
class Query:
    """One ``observability.promql`` entry: its position in the list, its id and its text."""

    index: int
    id: str
    text: str


@dataclass(frozen=True)
class Problem:
    """What is wrong with the query at ``observability.promql[index].query``."""

    index: int
    message: str


@dataclass
class Result:
    """Errors (exit 2) and notes (said, not failed) of one case's queries."""

    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Selected:
    """The metrics one query reads: exact names and ``__name__`` regexes."""

    names: frozenset[str]
    patterns: frozenset[str]


def bounds_problem(text: str) -> str | None:
    """Why ``text`` is too large to hand to a parser (see the module docstring), or None.

    Nesting counts ``(``, ``[`` and ``{`` outside string literals; operators count the characters
    ``+-*/%^<>=!`` outside string literals (an upper bound of the binary operators).
    """
    if len(text) > MAX_QUERY_CHARS:
        return f"is {len(text)} characters long; at most {MAX_QUERY_CHARS}"
    depth = deepest = operators = 0
    quote: str | None = None
    escaped = False
    for char in text:
        if quote is not None:
            if escaped:
                escaped = False
            elif char == "\\" and quote != "`":
                escaped = True
            elif char == quote:
                quote = None
        elif char in "\"'`":
            quote = char
        elif char in "([{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in ")]}":
            depth -= 1
        elif char in _OPERATOR_CHARS:
            operators += 1
    if deepest > MAX_NESTING:
        return f"nests brackets {deepest} deep; at most {MAX_NESTING}"
    if operators > MAX_OPERATORS:
        return f"has {operators} operator characters; at most {MAX_OPERATORS}"
    return None


def parse(text: str):
    """promql-parser's AST of ``text``, after :func:`bounds_problem`.

    Raises:
        ValueError: the query is out of bounds, or does not parse (promql-parser's message).
    """
    import promql_parser

    problem = bounds_problem(text)
    if problem:
        raise ValueError(f"the query {problem}")
    return promql_parser.parse(text)


def quoted(text: str) -> str:
    """``text`` for an error message: at most :data:`QUOTE_CHARS` characters."""
    return text if len(text) <= QUOTE_CHARS else f"{text[:QUOTE_CHARS]}... ({len(text)} characters)"


def metric_names(text: str) -> Selected:
    """Every metric name a PromQL query selects, from promql-parser's AST.

    Args:
        text: the query.

    Returns:
        Names of vector selectors (``foo{...}``, ``{__name__="foo"}``, also inside range vectors,
        subqueries, function arguments and ``or`` matcher sets) and ``__name__=~`` regexes.

    Raises:
        ValueError: the query is out of bounds (:func:`bounds_problem`) or does not parse
            (promql-parser's message: ``unclosed left parenthesis``).
    """
    import promql_parser

    names: set[str] = set()
    patterns: set[str] = set()

    def visit(node) -> None:
        if not isinstance(node, promql_parser.VectorSelector):
            return
        if node.name:
            names.add(node.name)
        sets = node.matchers
        for matcher in [*sets.matchers, *(m for group in sets.or_matchers for m in group)]:
            if matcher.name != "__name__":
                continue
            if matcher.op == promql_parser.MatchOp.Equal:
                names.add(matcher.value)
            elif matcher.op == promql_parser.MatchOp.Re:
                patterns.add(matcher.value)

    promql_parser.walk(parse(text), visit)
    return Selected(frozenset(names), frozenset(patterns))


def grouping_labels(text: str) -> list[str]:
    """The ``by (...)`` labels of the first aggregation in ``text`` (pre-order), without ``le``: what
    tells one series of the query's result from another (a panel's legend). Empty when none.

    Raises:
        ValueError: the query is out of bounds or does not parse.
    """
    import promql_parser

    found: list[list[str]] = []

    def visit(node):
        if isinstance(node, promql_parser.AggregateExpr) and node.modifier is not None \
                and node.modifier.type == promql_parser.AggModifierType.By:
            found.append([label for label in node.modifier.labels if label != "le"])
            return False  # the first one is enough
        return None

    promql_parser.walk(parse(text), visit)
    return found[0] if found else []


def _family(name: str) -> str:
    for suffix in HISTOGRAM_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def is_declared(name: str, declared: set[str]) -> bool:
    """``name`` is in ``declared``, or both belong to one histogram family (``x`` and ``x_bucket``)."""
    return name in declared or _family(name) in {_family(d) for d in declared}


def _undeclared(selected: Selected, declared: set[str]) -> list[str]:
    missing = [f"metric {name!r}" for name in sorted(selected.names) if not is_declared(name, declared)]
    for pattern in sorted(selected.patterns):
        try:
            regex = re.compile(pattern)
        except re.error:
            missing.append(f"__name__ regex {pattern!r} (not a regex faultlib can read)")
            continue
        if not any(regex.fullmatch(d) for d in declared):
            missing.append(f"__name__ regex {pattern!r} (matches no declared metric)")
    return missing


def promtool_path() -> str | None:
    """The ``promtool`` on ``PATH``, or None."""
    return shutil.which("promtool")


def promtool_errors(queries: list[Query], promtool: str) -> dict[int, str]:
    """``{query index: promtool's error}`` for the queries Prometheus' own parser rejects.

    Args:
        queries: the queries of one case.
        promtool: path of the ``promtool`` binary.

    Returns:
        Only the rejected queries; ``{}`` when promtool accepts them all.

    Raises:
        OSError: promtool could not be started, or said something that names no rule (the message
            quotes it), or took longer than :data:`PROMTOOL_TIMEOUT_S`.
    """
    import yaml

    if not queries:
        return {}
    rules = {"groups": [{"name": "faultlib", "rules": [{"record": f"query_{n}", "expr": q.text}
                                                       for n, q in enumerate(queries)]}]}
    with tempfile.TemporaryDirectory(prefix="faultlib-promql-") as tmp:
        path = os.path.join(tmp, "rules.yml")
        with open(path, "w", encoding="utf-8") as out:
            yaml.safe_dump(rules, out, sort_keys=False, allow_unicode=True)
        try:
            proc = subprocess.run([promtool, "check", "rules", path], capture_output=True, text=True,
                                  timeout=PROMTOOL_TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired:
            raise OSError(f"promtool check rules took longer than {PROMTOOL_TIMEOUT_S} s") from None
    if proc.returncode == 0:
        return {}
    errors: dict[int, str] = {}
    for line in (proc.stdout + proc.stderr).splitlines():
        match = _PROMTOOL_RULE.search(line)
        if match and 1 <= int(match.group(1)) <= len(queries):
            errors.setdefault(queries[int(match.group(1)) - 1].index, match.group(2).strip())
    if not errors:
        said = (proc.stderr or proc.stdout).strip().replace("\n", " ")[:300]
        raise OSError(f"promtool check rules exited {proc.returncode} without naming a rule: {said}")
    return errors


def subquery_problem(text: str) -> str | None:
    """Why a subquery of ``text`` asks Prometheus for too many points (more than :data:`MAX_POINTS` evaluations of
    its inner query: ``max_over_time(m[30d:1ms])`` is 2.6e9), or None. A query that does not parse: None
    (the parse error is reported on its own)."""
    import promql_parser

    try:
        tree = parse(text)
    except ValueError:
        return None
    found: list[str] = []

    def visit(node) -> None:
        if isinstance(node, promql_parser.SubqueryExpr) and not found:
            range_s = node.range.total_seconds()
            step_s = node.step.total_seconds() if node.step is not None else DEFAULT_SUBQUERY_STEP_S
            points = range_s / step_s if step_s > 0 else float("inf")
            if points > MAX_POINTS:
                step = f"{step_s:g}s" if node.step is not None else f"the default {DEFAULT_SUBQUERY_STEP_S:g}s"
                found.append(f"has a subquery over {range_s:g}s at a step of {step}: {points:,.0f} evaluations, "
                             f"more than Prometheus' {MAX_POINTS:,} points per series (widen the step or shorten "
                             "the range)")

    promql_parser.walk(tree, visit)
    return found[0] if found else None


def check_queries(queries: list[Query], declared: list[str] | None, *, promtool: str | None = None) -> Result:
    """Parse each query and check the metrics it reads against ``declared``.

    Args:
        queries: the case's ``observability.promql`` entries (well-formed ones).
        declared: ``observability.metrics``; None when the case declares none (a note, no check).
        promtool: the promtool binary to confirm syntax with (see the module docstring); None:
            promql-parser alone decides.

    Returns:
        One problem per query that does not parse, or reads a metric that is not declared (naming
        the query's id, the metric, and the query itself).
    """
    result = Result()
    rejected: dict[int, str] = {}
    oversized = {q.index: problem for q in queries if (problem := bounds_problem(q.text))}
    for query in queries:
        if query.index in oversized:
            result.problems.append(Problem(query.index, f"query {query.id!r} {oversized[query.index]}: "
                                                        f"{quoted(query.text)}"))
    queries = [q for q in queries if q.index not in oversized]
    if promtool is not None:
        try:
            rejected = promtool_errors(queries, promtool)
        except OSError as exc:
            result.notes.append(f"promtool could not check the queries ({exc}): PromQL syntax checked with "
                                "promql-parser only")
            promtool = None
    if declared is None and queries:
        result.notes.append("observability.metrics is not declared: the metric names the queries read were "
                            "not checked (list them there to have them checked)")
    names = set(declared or ())
    for query in queries:
        if query.index in rejected:
            result.problems.append(Problem(query.index, f"query {query.id!r} is not valid PromQL (promtool: "
                                                        f"{rejected[query.index]}): {query.text}"))
            continue
        try:
            selected = metric_names(query.text)
        except ValueError as exc:
            if promtool is not None:  # Prometheus itself accepts it: a gap in promql-parser, not in the case
                result.notes.append(f"query {query.id!r}: promql-parser cannot read it ({exc}) though promtool "
                                    "accepts it: its metric names were not checked")
            else:
                result.problems.append(Problem(query.index, f"query {query.id!r} is not valid PromQL "
                                                            f"(promql-parser: {exc}): {query.text}"))
            continue
        heavy = subquery_problem(query.text)
        if heavy:
            result.problems.append(Problem(query.index, f"query {query.id!r} {heavy}: {quoted(query.text)}"))
            continue
        if not selected.names and not selected.patterns:
            result.problems.append(Problem(query.index, f"query {query.id!r} reads no metric (a literal is no "
                                                        f"series for a panel or an evaluation): {query.text}"))
            continue
        if declared is None:
            continue
        missing = _undeclared(selected, names)
        if missing:
            result.problems.append(Problem(query.index, f"query {query.id!r} reads {', '.join(missing)}, not "
                                                        f"declared in observability.metrics: {query.text}"))
    return result
