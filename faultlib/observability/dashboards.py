"""Grafana dashboards generated from the catalog, and the checks that keep cases and dashboards in step.

One dashboard per fault-class family (the first dotted part of ``fault_class``: ``numerics``,
``model``, ``data``, ``serving``, ``infra``), uid ``faultlib-<family>``, file
``faultlib-<family>.json``. Cases appear in id order, each as a row panel followed by one
timeseries panel per entry of its ``observability.grafana.panels``: the id and title the case
gives, the query it names as the single target (``refId`` A), that query's description, the
panel's ``unit`` (default ``short``), its ``thresholds`` as lines, and a legend of the query's
``by (...)`` labels. Panels are
laid out two per line, 12 x 8 grid units each; row panels are 24 x 1. A row's id is the first
multiple of 100 above every case panel id of the family plus its case's first panel id (102 for a
case whose panels are 2-5), so it never collides with an id a case names and adding a case does
not renumber the other rows. The Prometheus datasource is the one
provisioned in ``compose/grafana/provisioning/datasources`` beside the catalog (by uid); without
one, panels use ``${DS_PROMETHEUS}``, a datasource variable of the dashboard.

Output is deterministic (keys sorted, two-space indent, a trailing newline): the checked-in files
are exactly :func:`render`'s output, which ``faultlib dashboards --check`` and the tests compare.

Grafana's dashboard model has no JSON Schema on PyPI (``grafana-foundation-sdk`` ships typed
Python models, not a schema), so :func:`required_field_problems` checks the fields Grafana needs
to load a dashboard: ``uid``, ``title``, ``schemaVersion``, and per panel ``id``, ``type``,
``gridPos`` {h, w, x, y}, a ``datasource``, and ``targets`` with ``refId`` and ``expr``; panel ids
unique.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from faultlib.readers import Limits, load_json, load_yaml_file, read_bytes
from faultlib.errors import InputError
from faultlib.outputs import output_file

UID_PREFIX = "faultlib-"
SCHEMA_VERSION = 39
PANEL_W, PANEL_H, ROW_W = 12, 8, 24
DEFAULT_UNIT = "short"
DS_VARIABLE = "DS_PROMETHEUS"
#: colours of the bands a panel's ``thresholds`` (1 to 3 values) divide it into, lowest first
THRESHOLD_COLORS = {1: ("green", "red"), 2: ("green", "yellow", "red"), 3: ("green", "yellow", "orange", "red")}
#: generated files are named after their uid; only these are ever replaced or removed in ``--out``
FILE_PATTERN = re.compile(r"^faultlib-[A-Za-z0-9_-]+\.json$")
#: a family dashboard is tens of KB
BOARD_LIMITS = Limits(max_bytes=8 << 20, max_depth=32)
REGENERATE = "run faultlib dashboards"


def family_of(fault_class: str) -> str:
    """``numerics.fp16_overflow`` -> ``numerics``."""
    return fault_class.split(".", 1)[0]


def dashboard_uid(family: str) -> str:
    """The uid (and file stem) of a family's dashboard: ``faultlib-numerics``."""
    return f"{UID_PREFIX}{family}"


def dashboards_dir(catalog: Path) -> Path:
    """Where a catalog's dashboards are checked in: ``compose/grafana/dashboards`` beside ``cases/``."""
    return Path(catalog).resolve().parent / "compose" / "grafana" / "dashboards"


@dataclass(frozen=True)
class CasePanel:
    """One well-formed ``observability.grafana.panels[index]`` entry, with the query it names."""

    index: int
    id: int
    title: str
    query_id: str
    query: str | None
    description: str
    unit: str
    thresholds: tuple[float, ...] = ()


def case_panels(data: Any) -> list[CasePanel]:
    """The well-formed panel entries of a case.yaml document (anything else is the schema's to report)."""
    obs = data.get("observability") if isinstance(data, dict) else None
    obs = obs if isinstance(obs, dict) else {}
    queries = {q.get("id"): q for q in obs.get("promql") or [] if isinstance(q, dict)} \
        if isinstance(obs.get("promql"), list) else {}
    grafana = obs.get("grafana") if isinstance(obs.get("grafana"), dict) else {}
    panels = grafana.get("panels") if isinstance(grafana.get("panels"), list) else []
    out = []
    for i, panel in enumerate(panels):
        if not isinstance(panel, dict) or type(panel.get("id")) is not int or not isinstance(panel.get("query"), str):
            continue
        query = queries.get(panel["query"], {})
        text = query.get("query") if isinstance(query.get("query"), str) else None
        description = query.get("description") if isinstance(query.get("description"), str) else ""
        unit = panel.get("unit") if isinstance(panel.get("unit"), str) else DEFAULT_UNIT
        marks = panel.get("thresholds") if isinstance(panel.get("thresholds"), list) else []
        out.append(CasePanel(i, panel["id"], str(panel.get("title", "")), panel["query"], text, description, unit,
                             tuple(m for m in marks if isinstance(m, (int, float)) and not isinstance(m, bool))))
    return out


# ---------------------------------------------------------------------------------------------- generation

def provisioned_datasource(compose_dir: Path) -> dict[str, str] | None:
    """``{"type": "prometheus", "uid": ...}`` of the first Prometheus datasource provisioned in
    ``compose_dir/grafana/provisioning/datasources/*.yaml`` (files in name order), or None.

    Raises:
        InputError: a provisioning file is unreadable or not YAML.
    """
    folder = Path(compose_dir) / "grafana" / "provisioning" / "datasources"
    if not folder.is_dir():
        return None
    for path in sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml")):
        data = load_yaml_file(path, root=folder).data
        for source in (data.get("datasources") or []) if isinstance(data, dict) else []:
            if isinstance(source, dict) and source.get("type") == "prometheus" and isinstance(source.get("uid"), str):
                return {"type": "prometheus", "uid": source["uid"]}
    return None


def _legend(query: str) -> str | None:
    from faultlib.observability.promql_check import grouping_labels

    try:
        labels = grouping_labels(query)
    except ValueError:
        return None
    return " ".join(f"{{{{{label}}}}}" for label in labels) or None


def _timeseries(panel: CasePanel, datasource: dict, x: int, y: int) -> dict:
    target = {"refId": "A", "datasource": datasource, "expr": panel.query}
    legend = _legend(panel.query or "")
    if legend:
        target["legendFormat"] = legend
    defaults: dict[str, Any] = {"unit": panel.unit}
    if panel.thresholds:
        colors = THRESHOLD_COLORS[len(panel.thresholds)]
        defaults["thresholds"] = {"mode": "absolute", "steps": [{"color": colors[0], "value": None}] + [
            {"color": color, "value": value} for color, value in zip(colors[1:], sorted(panel.thresholds))]}
        defaults["custom"] = {"thresholdsStyle": {"mode": "line"}}
    return {"id": panel.id, "type": "timeseries", "title": panel.title, "description": panel.description,
            "datasource": datasource, "gridPos": {"h": PANEL_H, "w": PANEL_W, "x": x, "y": y},
            "fieldConfig": {"defaults": defaults, "overrides": []},
            "options": {"legend": {"displayMode": "list", "placement": "bottom", "showLegend": True},
                        "tooltip": {"mode": "multi", "sort": "none"}},
            "targets": [target]}


def build_family(family: str, cases: list, datasource: dict[str, str] | None) -> dict:
    """The dashboard of one family.

    Args:
        family: ``numerics``, ``data``, ...
        cases: the family's loaded :class:`~faultlib.cases.Case` objects (validated: every panel
            names a query); drawn in id order.
        datasource: the provisioned Prometheus datasource, or None for a ``${DS_PROMETHEUS}`` variable.

    Returns:
        The dashboard as a JSON-ready dict (see the module docstring for its layout).
    """
    source = datasource or {"type": "prometheus", "uid": f"${{{DS_VARIABLE}}}"}
    ordered = sorted(cases, key=lambda c: c.id)
    per_case = [(case, case_panels(case.raw)) for case in ordered]
    highest = max((p.id for _, panels in per_case for p in panels), default=0)
    row_base = (highest // 100 + 1) * 100
    out, y, spare = [], 0, row_base + highest + 1
    for case, panels in per_case:
        # a row's id follows from its case's first panel id (unique in the family), not from its position:
        # adding a case does not renumber the rows of the others
        if panels:
            row_id = row_base + min(p.id for p in panels)
        else:
            row_id, spare = spare, spare + 1
        out.append({"id": row_id, "type": "row", "title": case.id, "collapsed": False,
                    "gridPos": {"h": 1, "w": ROW_W, "x": 0, "y": y}, "panels": []})
        y += 1
        for n, panel in enumerate(panels):
            out.append(_timeseries(panel, source, x=(n % 2) * PANEL_W, y=y + (n // 2) * PANEL_H))
        y += -(-len(panels) // 2) * PANEL_H
    variables = [] if datasource else [{"name": DS_VARIABLE, "label": "Prometheus", "type": "datasource",
                                        "query": "prometheus", "hide": 0, "current": {}, "options": []}]
    return {"uid": dashboard_uid(family), "title": f"faultlib / {family}",
            "description": f"The panels the {family}.* cases name in observability.grafana "
                           f"({', '.join(c.id for c in ordered)}). Generated by `faultlib dashboards` from "
                           "the catalog: edit the cases, not this file.",
            "tags": ["faultlib", family], "timezone": "utc", "editable": False, "graphTooltip": 1,
            "schemaVersion": SCHEMA_VERSION, "version": 1, "refresh": "10s",
            "time": {"from": "now-1h", "to": "now"}, "templating": {"list": variables},
            "annotations": {"list": []}, "links": [], "panels": out}


def build(cases: list, datasource: dict[str, str] | None) -> dict[str, str]:
    """``{file name: rendered JSON}``: one dashboard per family present in ``cases``."""
    families: dict[str, list] = {}
    for case in cases:
        families.setdefault(family_of(case.fault_class), []).append(case)
    return {f"{dashboard_uid(family)}.json": render(build_family(family, members, datasource))
            for family, members in sorted(families.items())}


def render(board: dict) -> str:
    """The file text of a dashboard: sorted keys, two-space indent, trailing newline."""
    return json.dumps(board, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


@dataclass
class SyncReport:
    """What :func:`sync` found or did in the output directory (file paths).

    Attributes:
        written: new or changed files (``check``: the ones that would be).
        unchanged: files already equal to the generator's output.
        removed: ``faultlib-*.json`` files of no family in the catalog (``check``: that would be removed).
    """

    written: list[Path] = field(default_factory=list)
    unchanged: list[Path] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)

    @property
    def in_step(self) -> bool:
        return not self.written and not self.removed

    def to_json(self) -> dict:
        return {key: [str(p) for p in getattr(self, key)] for key in ("written", "unchanged", "removed")}


def _current(path: Path) -> str | None:
    try:
        return read_bytes(path, limits=BOARD_LIMITS).decode("utf-8", errors="replace")
    except InputError:
        return None  # missing, a link, too large: it differs


def sync(rendered: dict[str, str], out: Path, *, check: bool) -> SyncReport:
    """Make ``out`` hold exactly ``rendered`` among its ``faultlib-*.json`` files (other files are left
    alone); with ``check``, only report what would change.

    Raises:
        InputError: ``out`` cannot be created or written, or one of its dashboard files is a link or directory.
    """
    out = Path(out)
    report = SyncReport()
    existing = []
    if out.is_dir():
        with os.scandir(out) as entries:
            existing = sorted(e.name for e in entries if FILE_PATTERN.match(e.name))
    if not check:  # every target first: a link or directory among them stops the sync before anything is written
        for name in sorted(rendered):
            output_file(out / name, "--out", parents=True, probe=False)
        for name in existing:
            if name not in rendered and ((out / name).is_symlink() or not (out / name).is_file()):
                raise InputError("is not a regular file: not removed (remove it yourself)", path=str(out / name),
                                 field="--out")
    for name, text in sorted(rendered.items()):
        path = out / name
        if _current(path) == text:
            report.unchanged.append(path)
            continue
        report.written.append(path)
        if not check:
            output_file(path, "--out", parents=True).write_text(text)  # a link or directory there: refused
    for name in existing:
        if name not in rendered:
            report.removed.append(out / name)
            if not check:
                os.unlink(out / name)
    return report


# ---------------------------------------------------------------------------------------------- checks

@dataclass
class CheckedIn:
    """The dashboards checked in beside a catalog: ``boards`` by uid, ``broken`` files with the reason."""

    folder: Path
    boards: dict[str, dict] = field(default_factory=dict)
    broken: list[str] = field(default_factory=list)


def load_checked_in(folder: Path) -> CheckedIn:
    """Every ``*.json`` dashboard in ``folder`` (read bounded, links not followed)."""
    found = CheckedIn(Path(folder))
    for path in sorted(Path(folder).glob("*.json")):
        try:
            board = load_json(read_bytes(path, limits=BOARD_LIMITS, root=folder), path, limits=BOARD_LIMITS)
        except InputError as exc:
            found.broken.append(f"{path.name}: {exc.message}")
            continue
        if isinstance(board, dict) and isinstance(board.get("uid"), str):
            found.boards.setdefault(board["uid"], board)
        else:
            found.broken.append(f"{path.name}: not a dashboard (no uid)")
    return found


def panel_problems(data: Any, checked_in: CheckedIn) -> list[tuple[list, str]]:
    """``(field path, message)`` for each way a case's ``observability.grafana`` disagrees with the
    checked-in dashboards: its uid is not its family's, the dashboard or a panel is missing, a
    panel's title or target expression is not the case's."""
    fault_class = data.get("fault_class") if isinstance(data, dict) else None
    obs = data.get("observability") if isinstance(data, dict) else None
    grafana = obs.get("grafana") if isinstance(obs, dict) else None
    uid = grafana.get("dashboard_uid") if isinstance(grafana, dict) else None
    if not isinstance(uid, str) or not isinstance(fault_class, str):
        return []
    base = ["observability", "grafana"]
    expected = dashboard_uid(family_of(fault_class))
    if uid != expected:
        return [(base + ["dashboard_uid"], f"dashboard_uid is {uid!r}, but faultlib dashboards draws "
                                           f"{family_of(fault_class)}.* cases on {expected!r}: set it to {expected!r}")]
    board = checked_in.boards.get(uid)
    if board is None:
        broken = f" (unreadable there: {'; '.join(checked_in.broken)})" if checked_in.broken else ""
        return [(base + ["dashboard_uid"], f"dashboard {uid} does not exist in {checked_in.folder}{broken}: "
                                           f"{REGENERATE}")]
    panels = {p.get("id"): p for p in board.get("panels") or [] if isinstance(p, dict)} \
        if isinstance(board.get("panels"), list) else {}
    problems = []
    for panel in case_panels(data):
        where = base + ["panels", panel.index]
        shown = panels.get(panel.id)
        if shown is None:
            problems.append((where + ["id"], f"panel {panel.id} of dashboard {uid} does not exist: {REGENERATE}"))
            continue
        targets = shown.get("targets") if isinstance(shown.get("targets"), list) else []
        exprs = [t.get("expr") for t in targets if isinstance(t, dict)]
        if panel.query is not None and exprs != [panel.query]:
            shows = " and ".join(f"`{e}`" for e in exprs) or "no query"
            problems.append((where + ["query"], f"panel {panel.id} of dashboard {uid} shows {shows}, not query "
                                                f"{panel.query_id!r} `{panel.query}`: {REGENERATE}"))
        if shown.get("title") != panel.title:
            problems.append((where + ["title"], f"panel {panel.id} of dashboard {uid} is titled "
                                                f"{shown.get('title')!r}, not {panel.title!r}: {REGENERATE}"))
    return problems


@dataclass(frozen=True)
class Claim:
    """A case's claim on a panel id of its family's dashboard (``line`` of the id in its case.yaml)."""

    family: str
    panel_id: int
    case_id: str
    path: Path
    index: int
    line: int | None


def catalog_claims(case_dirs: list[Path]) -> list[Claim]:
    """The panel ids each case of a catalog claims; case.yaml files that do not read are skipped
    (validating them reports why)."""
    claims = []
    for case_dir in (Path(d).resolve() for d in case_dirs):
        path = case_dir / "case.yaml"
        try:
            doc = load_yaml_file(path, root=case_dir)
        except InputError:
            continue
        data = doc.data if isinstance(doc.data, dict) else {}
        if not isinstance(data.get("fault_class"), str):
            continue
        for panel in case_panels(data):
            claims.append(Claim(family_of(data["fault_class"]), panel.id, str(data.get("id", Path(case_dir).name)),
                                path, panel.index,
                                doc.line_of(["observability", "grafana", "panels", panel.index, "id"])))
    return claims


def collisions(claims: list[Claim]) -> dict[tuple[str, int], list[Claim]]:
    """``{(family, panel id): claims}`` for every id claimed more than once in a family."""
    by_id: dict[tuple[str, int], list[Claim]] = {}
    for claim in claims:
        by_id.setdefault((claim.family, claim.panel_id), []).append(claim)
    return {key: found for key, found in by_id.items() if len(found) > 1}


def next_free_id(claims: list[Claim], family: str) -> int:
    """One above the highest panel id the family's cases claim."""
    return max((c.panel_id for c in claims if c.family == family), default=0) + 1


def collision_message(claim: Claim, others: list[Claim], free: int) -> str:
    """What to say at ``claim`` about the ``others`` that claim its panel id (``free``: an id no case uses)."""
    named = ", ".join(f"{o.case_id} ({o.path}:{o.line})" for o in others)
    return (f"panel id {claim.panel_id} is also claimed by {named}: panel ids must be unique within the "
            f"{claim.family} family's dashboard {dashboard_uid(claim.family)} (the next free id is {free})")


def required_field_problems(board: dict) -> list[str]:
    """What a dashboard lacks of the fields Grafana needs to load it (see the module docstring)."""
    problems = [f"missing {key}" for key in ("uid", "title", "schemaVersion") if key not in board]
    panels = board.get("panels")
    if not isinstance(panels, list) or not panels:
        return problems + ["no panels"]
    ids = [p.get("id") for p in panels if isinstance(p, dict)]
    problems += [f"panel id {i} repeats" for i in sorted({i for i in ids if ids.count(i) > 1}, key=str)]
    for n, panel in enumerate(panels):
        where = f"panels[{n}]"
        if not isinstance(panel, dict):
            problems.append(f"{where} is not an object")
            continue
        problems += [f"{where} missing {key}" for key in ("id", "type", "gridPos") if key not in panel]
        grid = panel.get("gridPos") if isinstance(panel.get("gridPos"), dict) else {}
        problems += [f"{where}.gridPos.{k} is not an integer" for k in "hwxy" if type(grid.get(k)) is not int]
        if panel.get("type") == "row":
            continue
        if not isinstance(panel.get("datasource"), dict):
            problems.append(f"{where} has no datasource")
        targets = panel.get("targets")
        if not isinstance(targets, list) or not targets:
            problems.append(f"{where} has no targets")
            continue
        for t, target in enumerate(targets):
            if not isinstance(target, dict) or not target.get("refId") or not target.get("expr"):
                problems.append(f"{where}.targets[{t}] needs refId and expr")
    return problems
