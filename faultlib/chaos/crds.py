"""Validate rendered Chaos Mesh objects against the real CustomResourceDefinition schemas.

A CRD directory holds Chaos Mesh's CRD manifests, one per kind as upstream names them in
``config/crd/bases/`` (``chaos-mesh.org_networkchaos.yaml``, ``chaos-mesh.org_schedules.yaml`` ...);
a directory holding only the all-in-one ``manifests/crd.yaml`` works too (it is searched when the
per-kind file is missing). Each object is validated with ``jsonschema.Draft7Validator`` against
``spec.versions[v1alpha1].schema.openAPIV3Schema`` of its kind's CRD, which covers the whole
object (apiVersion, kind, metadata, spec); the Kubernetes extensions (``x-kubernetes-*``) are
ignored by jsonschema.

Schemas load on first use of their kind and stay cached for the process: ``Schedule`` and
``Workflow`` embed every chaos spec (0.85 MB and 0.64 MB of YAML), so they are never read unless
an object of that kind is validated, and read once.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from faultlib.chaos.render import GROUP, PLURALS, VERSION
from faultlib.errors import CaseError, CaseValidationError, FaultlibError

if TYPE_CHECKING:
    import jsonschema

    from faultlib.cases import Case

CRD_FILE = "chaos-mesh.org_{plural}.yaml"
UPSTREAM_HINT = "Chaos Mesh's config/crd/bases/ (https://github.com/chaos-mesh/chaos-mesh)"


@dataclass(frozen=True)
class SchemaProblem:
    """One way an object breaks its CRD schema.

    Attributes:
        path: JSON path inside the object (``("spec", "action")``), empty for the root.
        message: what jsonschema reports (``'bogus' is not one of ['netem', 'delay', ...]``).
    """

    path: tuple[str | int, ...]
    message: str

    def __str__(self) -> str:
        where = ".".join(str(p) for p in self.path) or "(root)"
        return f"{where}: {self.message}"


def _yaml_documents(path: Path) -> list[Any]:
    """The documents of a CRD file, through the hardened reader (bounded, no symlinks, libyaml's
    C parser where PyYAML has it: 15x faster on the 0.85 MB Schedule CRD)."""
    from faultlib.readers import load_yaml_documents

    return [doc.data for doc in load_yaml_documents(path)]


def _schema_of(crd: Any, kind: str) -> dict[str, Any] | None:
    """The v1alpha1 openAPIV3Schema of ``crd`` when it is Chaos Mesh's CRD of ``kind``."""
    if not isinstance(crd, dict) or crd.get("kind") != "CustomResourceDefinition":
        return None
    spec = crd.get("spec") or {}
    if spec.get("group") != GROUP or (spec.get("names") or {}).get("kind") != kind:
        return None
    versions = spec.get("versions") or []
    chosen = next((v for v in versions if v.get("name") == VERSION), versions[0] if versions else None)
    return ((chosen or {}).get("schema") or {}).get("openAPIV3Schema")


@functools.lru_cache(maxsize=None)
def _validator(crd_dir: str, kind: str) -> "jsonschema.Draft7Validator":
    import jsonschema

    directory = Path(crd_dir)
    candidates = [directory / CRD_FILE.format(plural=PLURALS.get(kind, kind.lower()))]
    candidates += sorted(p for p in directory.glob("*.y*ml") if p not in candidates)
    for path in candidates:
        if not path.is_file():
            continue
        for doc in _yaml_documents(path):
            schema = _schema_of(doc, kind)
            if schema is not None:
                return jsonschema.Draft7Validator(schema)
    raise FaultlibError(f"no CustomResourceDefinition of {GROUP} kind {kind} in {directory}: pass --crd-dir a "
                        f"directory holding the Chaos Mesh CRD manifests, as in {UPSTREAM_HINT}")


class CrdSchemas:
    """The Chaos Mesh CRD schemas of one directory.

    Args:
        crd_dir: directory of CRD manifests (tests use ``../shared/chaos-mesh-crds``).

    Raises:
        FaultlibError: ``crd_dir`` is not a directory (exit 2).
    """

    def __init__(self, crd_dir: str | Path):
        self.crd_dir = Path(crd_dir).resolve()
        if not self.crd_dir.is_dir():
            raise FaultlibError(f"CRD directory not found: {crd_dir}: pass --crd-dir a directory holding "
                                f"the Chaos Mesh CRD manifests, as in {UPSTREAM_HINT}")

    def problems(self, obj: dict[str, Any]) -> list[SchemaProblem]:
        """Every way ``obj`` breaks the schema of its kind (empty when valid), sorted by path.

        Raises:
            FaultlibError: the directory has no CRD for ``obj["kind"]``.
        """
        kind = obj.get("kind")
        if not isinstance(kind, str) or not kind:
            return [SchemaProblem((), "kind is missing: a Chaos Mesh object names its kind")]
        validator = _validator(str(self.crd_dir), kind)
        errors = sorted(validator.iter_errors(obj), key=lambda e: [str(p) for p in e.absolute_path])
        return [SchemaProblem(tuple(e.absolute_path), e.message) for e in errors]

    def validate(self, obj: dict[str, Any]) -> None:
        """Raise :class:`FaultlibError` naming every problem of ``obj`` (for objects outside a case).

        Raises:
            FaultlibError: ``obj`` does not match its CRD schema, or no CRD of its kind is known.
        """
        problems = self.problems(obj)
        if problems:
            name = (obj.get("metadata") or {}).get("name", "?")
            raise FaultlibError(f"{obj.get('kind')} {name} does not match its CRD schema: "
                                + "; ".join(map(str, problems)))


def validate_case_chaos(case: "Case", objects: list[dict[str, Any]], schemas: CrdSchemas) -> None:
    """Validate the objects rendered from ``case``'s chaos entries, reporting against case.yaml.

    Args:
        case: the case the objects were rendered from (object i from ``inject.kubernetes.chaos[i]``).
        objects: :func:`faultlib.chaos.render_chaos` output for the case, in entry order.
        schemas: the CRD schemas to check against.

    Raises:
        CaseValidationError: every problem, as ``case.yaml:LINE: inject.kubernetes.chaos[i].spec...: message``.
        FaultlibError: no CRD of a kind is known in ``schemas``.
    """
    from faultlib.readers import dotted, load_yaml_file

    path = case.path / "case.yaml"
    found: list[tuple[list[str | int], str]] = []
    for index, obj in enumerate(objects):
        for problem in schemas.problems(obj):
            loc: list[str | int] = ["inject", "kubernetes", "chaos", index]
            if problem.path[:1] == ("spec",):
                loc += list(problem.path)
            elif problem.path[:2] == ("metadata", "name"):
                loc.append("name")
            found.append((loc, f"{obj['kind']} {problem.message} (checked against the {obj['kind']} CRD "
                               f"in {schemas.crd_dir})"))
    if not found:
        return
    doc = load_yaml_file(path)
    raise CaseValidationError([CaseError(message, path=path, line=doc.line_of(loc), field=dotted(loc))
                               for loc, message in found])
