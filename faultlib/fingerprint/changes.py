"""Fault knowledge: documented behaviour changes between package versions, and which ones a diff crosses.

Each :class:`KnownChange` is one release of one package that changed behaviour existing code relies
on (a default flipped, a name removed), with the public page that documents it. A diff crosses a
change when the package moved over that release in either direction: ``old < version <= new`` for
an upgrade, ``new < version <= old`` for a downgrade (versions compared with
:class:`packaging.version.Version`; a version that does not parse crosses nothing).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

from faultlib.findings import Finding, Severity
from faultlib.fingerprint.compare import FingerprintDiff

DETECTOR = "fingerprint"
KIND = "known_change_crossed"


@dataclass(frozen=True)
class KnownChange:
    """A release that changed behaviour.

    Attributes:
        package: canonical distribution name (``torch``, ``scikit-learn``).
        version: the first release with the new behaviour (``2.6.0``).
        summary: what changed, in one sentence, naming the API.
        reference: a public URL documenting the change (release notes, migration guide).
    """

    package: str
    version: str
    summary: str
    reference: str

    def to_json(self) -> dict[str, str]:
        return {"package": self.package, "version": self.version, "summary": self.summary,
                "reference": self.reference}


KNOWN_CHANGES: tuple[KnownChange, ...] = (
    KnownChange("torch", "2.6.0",
                "torch.load's default weights_only changed from False to True: checkpoints holding anything but "
                "tensors, primitive types and containers (argparse.Namespace, NumPy scalars and arrays, whole "
                "models) raise UnpicklingError 'Weights only load failed' unless their globals are allowlisted "
                "with torch.serialization.safe_globals",
                "https://github.com/pytorch/pytorch/releases/tag/v2.6.0"),
    KnownChange("numpy", "1.24.0",
                "the deprecated aliases np.float, np.int, np.bool, np.object and np.str were removed "
                "(AttributeError); use the builtins or np.float64 / np.int_ / np.bool_",
                "https://numpy.org/doc/stable/release/1.24.0-notes.html"),
    KnownChange("numpy", "2.0.0",
                "NEP 52 removed aliases from the main namespace, among them np.float_, np.NaN and np.Inf "
                "(AttributeError); use np.float64, np.nan and np.inf",
                "https://numpy.org/doc/stable/release/2.0.0-notes.html#numpy-2-0-python-api-removals"),
    KnownChange("scikit-learn", "1.4.0",
                "OneHotEncoder's parameter sparse, renamed sparse_output in 1.2, was removed: "
                "OneHotEncoder(sparse=False) raises TypeError",
                "https://scikit-learn.org/stable/whats_new/v1.2.html"),
    KnownChange("pandas", "2.0.0",
                "DataFrame.append and Series.append, deprecated in 1.4, were removed (AttributeError); "
                "use pandas.concat",
                "https://pandas.pydata.org/docs/whatsnew/v2.0.0.html#removal-of-prior-version-deprecations-changes"),
)


def _version(text: str | None) -> Version | None:
    if text is None:
        return None
    try:
        return Version(text)
    except (InvalidVersion, ValueError):  # ValueError: a release number of more digits than int() converts
        return None


def crosses(change: KnownChange, old: str | None, new: str | None) -> bool:
    """Whether moving a package from ``old`` to ``new`` crosses ``change`` (see the module docstring).

    A package installed or removed (``old`` or ``new`` None) crosses nothing: there was no behaviour
    before, or is none after.
    """
    before, after, at = _version(old), _version(new), _version(change.version)
    if before is None or after is None or at is None:
        return False
    return before < at <= after or after < at <= before


def known_changes(diff: FingerprintDiff, changes: Iterable[KnownChange] = KNOWN_CHANGES) -> list[KnownChange]:
    """The known behaviour changes ``diff`` crosses, in the order of ``changes``.

    Args:
        diff: from :func:`~faultlib.fingerprint.diff`.
        changes: the knowledge to match (default :data:`KNOWN_CHANGES`).
    """
    out = []
    for change in changes:
        moved = diff.packages.get(canonicalize_name(change.package))
        if moved is not None and crosses(change, *moved):
            out.append(change)
    return out


def findings(diff: FingerprintDiff, *, packages: Iterable[str] | None = None,
             severity: Severity | str = Severity.WARNING) -> list[Finding]:
    """One :class:`~faultlib.findings.Finding` (kind ``known_change_crossed``) per known change ``diff`` crosses.

    Args:
        diff: from :func:`~faultlib.fingerprint.diff`.
        packages: only changes of these packages (any spelling); default all.
        severity: of every finding (default warning: a crossed change explains a failure, it is not one).

    Returns:
        Findings whose ``location.key`` is the package and whose evidence holds ``package``, ``old``,
        ``new`` (the versions in the diff), ``version``, ``summary`` and ``reference`` (the change).
    """
    wanted = None if packages is None else {canonicalize_name(p) for p in packages}
    out = []
    for change in known_changes(diff):
        if wanted is not None and change.package not in wanted:
            continue
        old, new = diff.packages[change.package]
        direction = "upgrade" if _version(old) < _version(new) else "downgrade"  # type: ignore[operator]
        evidence: dict[str, Any] = {"old": old, "new": new, "direction": direction, **change.to_json()}
        out.append(Finding(DETECTOR, Severity(severity),
                           f"{change.package} {old} -> {new} crosses {change.version}: {change.summary} "
                           f"({change.reference})", {"key": change.package}, evidence, kind=KIND))
    return out
