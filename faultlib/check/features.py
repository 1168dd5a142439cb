"""``faultlib check features V1 V2``: a semantic diff of two feature configs (training V1, serving V2).

V1 and V2 are YAML or JSON (``.json`` is read as JSON, anything else as YAML): a list of features, a
document ``{features: [...] | {name: spec}, ...}`` or a mapping ``{name: spec}``; see
:mod:`faultlib.detect.serving.features.config`. Key order, quoting, flow vs block style and comments are
presentation and never a finding; what changes the encoded vector is (see
:mod:`faultlib.detect.serving.features.diff` for the kinds and their severities).

JSON fields (besides ``detector``, ``ok``, ``findings``):

- ``v1``, ``v2``: ``{path, format, form, features}`` (``features``: how many);
- ``equal``: no semantic difference; ``presentation_only``: the files differ as text only;
- ``added``: ``[{name, position, offset, width, line}]`` (positions and lines in V2), ``removed``
  (the same, in V1), ``renamed``: ``[{old, new, position, line}]``;
- ``changed``: ``[{feature, key, old, new, kind, change, line, position, key_path}]``: ``feature`` is
  ``null`` for a top-level setting, ``key`` the path inside the feature's definition, ``key_path``
  the path in V2 (``features[3].bins``), ``line`` its line in V2, ``change`` ``modified``/``added``/``removed``;
- ``order_changed``: ``[{name, old_position, new_position}]`` (features that moved; empty if none);
- ``shifted``: ``[{name, old_position, new_position, old_offset, new_offset}]``;
- ``encoded_width``: ``{before, after}`` (``null`` where a feature's width is not computable);
- ``features_before``, ``features_after``: the names in encoded order.

Positions and offsets are 0-based. Each finding's ``location`` carries ``file``, ``key`` (the key
path), ``line`` (where the reader gives it) and ``index`` (the feature's position).

Exit codes: 0 when no finding reaches ``--fail-on`` (a presentation-only difference is 0), 1 when one
does, 2 for a file that cannot be read, YAML or JSON that does not parse (file and line), or a document
that is not a feature config (a feature without a name, a name twice; with the line).
"""

from __future__ import annotations

from pathlib import Path

import click

from faultlib.check.base import CheckResult, check_command, lazy_kinds

# predictions_changed comes from attribution only
__getattr__ = lazy_kinds("faultlib.detect.serving.features.diff", drop=("predictions_changed",))


def _summary(result: CheckResult) -> list[tuple[str, str]]:
    f = result.fields
    lines = [("features", f"{f['v1']['features']} in V1, {f['v2']['features']} in V2")]
    if f["equal"]:
        lines.append(("semantic diff", "none" + (" (the files differ in presentation only: key order, quoting, "
                                                 "style, comments)" if f["presentation_only"] else "")))
    for label, key in (("added", "added"), ("removed", "removed")):
        if f[key]:
            lines.append((label, ", ".join(f"{a['name']} at {a['position']}" for a in f[key])))
    if f["renamed"]:
        lines.append(("renamed", ", ".join(f"{r['old']} -> {r['new']}" for r in f["renamed"])))
    if f["order_changed"]:
        lines.append(("moved", ", ".join(f"{m['name']} {m['old_position']}->{m['new_position']}"
                                         for m in f["order_changed"])))
    if f["shifted"]:
        lines.append(("shifted", ", ".join(f"{s['name']} {s['old_offset']}->{s['new_offset']}" if s["new_offset"]
                                           is not None else f"{s['name']} {s['old_position']}->{s['new_position']}"
                                           for s in f["shifted"])))
    width = f["encoded_width"]
    lines.append(("encoded width", f"{width['before'] if width['before'] is not None else '?'} -> "
                                   f"{width['after'] if width['after'] is not None else '?'}"))
    return lines


@check_command("features", summary=_summary,
               help="Semantic diff of two feature configs (V1: training, V2: serving; YAML or JSON): features "
                    "added, removed, renamed or moved, and changed bin edges, fill values, windows, vocabularies, "
                    "transformer parameters, each with its key path, line and severity. Presentation alone (key "
                    "order, quoting, flow style, comments) is not a change.")
@click.argument("v1", metavar="V1", type=click.Path(path_type=Path, dir_okay=True))
@click.argument("v2", metavar="V2", type=click.Path(path_type=Path, dir_okay=True))
def command(v1: Path, v2: Path) -> CheckResult:
    """Compare V1 and V2 (see the module docstring).

    Raises:
        InputError: unreadable files, YAML/JSON that does not parse, or not a feature config (exit 2).
        MissingDependency: deepdiff is not installed (exit 2).
    """
    from faultlib.detect.serving.features.config import load_feature_config
    from faultlib.detect.serving.features.diff import diff_feature_configs

    diff = diff_feature_configs(load_feature_config(v1), load_feature_config(v2))
    return CheckResult("features", list(diff.findings), diff.fields())
