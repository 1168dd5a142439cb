"""What changed between two fingerprints: Python, torch's build, the devices, each package's version."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from packaging.utils import canonicalize_name

from faultlib.fingerprint.reader import validate

TORCH_BUILD_KEYS = ("version", "cuda", "cudnn", "debug")
"""The keys of a fingerprint's ``torch`` block that :func:`diff` compares (not the config texts)."""


@dataclass(frozen=True)
class FingerprintDiff:
    """The changes from an old fingerprint to a new one.

    Attributes:
        python: ``(old, new)`` Python versions when they differ, else None.
        torch_build: ``{key: (old, new)}`` for each of ``version``, ``cuda``, ``cudnn``, ``debug`` that
            differs (None stands for "torch not installed"); empty when the old record never recorded
            torch's build (a record from before fingerprint format 1).
        devices_changed: the device list differs (another CPU model or count, another GPU).
        packages: ``{canonical name: (old, new)}`` for every package whose version differs; None
            means absent (installed or removed).
    """

    python: tuple[str, str] | None = None
    torch_build: dict[str, tuple] = field(default_factory=dict)
    devices_changed: bool = False
    packages: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)

    def selects_all(self) -> bool:
        """True when every case is affected: Python, torch (its version or build) or CUDA/cuDNN changed."""
        return self.python is not None or bool(self.torch_build) or "torch" in self.packages

    def changed_among(self, names: Iterable[str]) -> dict[str, tuple[str | None, str | None]]:
        """The changed packages among ``names`` (any spelling: ``scikit_learn`` finds ``scikit-learn``).

        Returns:
            ``{canonical name: (old, new)}``, in the order of ``names``.
        """
        out = {}
        for name in names:
            key = canonicalize_name(name)
            if key in self.packages:
                out[key] = self.packages[key]
        return out

    def to_json(self) -> dict[str, Any]:
        """``{"python": [old, new] | null, "torch_build": {key: [old, new]}, "devices_changed": bool,
        "packages": {name: [old, new]}, "selects_all": bool}``."""
        return {"python": list(self.python) if self.python else None,
                "torch_build": {k: list(v) for k, v in self.torch_build.items()},
                "devices_changed": self.devices_changed,
                "packages": {k: list(v) for k, v in self.packages.items()},
                "selects_all": self.selects_all()}

    def __bool__(self) -> bool:
        return bool(self.python or self.torch_build or self.devices_changed or self.packages)


def diff(old: dict[str, Any], new: dict[str, Any]) -> FingerprintDiff:
    """Compare two fingerprints (from :func:`~faultlib.fingerprint.collect` or :func:`~faultlib.fingerprint.load`).

    Args:
        old: the fingerprint before (a recorded one).
        new: the fingerprint after (usually ``collect()``).

    Returns:
        :class:`FingerprintDiff`; falsy when nothing changed.

    Raises:
        InputError: ``old`` or ``new`` is not a fingerprint (the field is prefixed ``old.`` / ``new.``).
    """
    old, new = validate(old, field="old"), validate(new, field="new")
    python = (old["python"], new["python"]) if old["python"] != new["python"] else None
    torch_build: dict[str, tuple] = {}
    if "torch" in old and "torch" in new:
        before, after = old["torch"] or {}, new["torch"] or {}
        for key in TORCH_BUILD_KEYS:
            if before.get(key) != after.get(key):
                torch_build[key] = (before.get(key), after.get(key))
    devices = "devices" in old and "devices" in new and old["devices"] != new["devices"]
    names = sorted(set(old["packages"]) | set(new["packages"]))
    packages = {n: (old["packages"].get(n), new["packages"].get(n)) for n in names
                if old["packages"].get(n) != new["packages"].get(n)}
    return FingerprintDiff(python, torch_build, devices, packages)
