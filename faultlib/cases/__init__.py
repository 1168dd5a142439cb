"""The catalog format: case.yaml, its schema, loading and discovery."""

from faultlib.cases.loader import discover, load_case
from faultlib.cases.model import Assertion, Case, Shim

__all__ = ["Assertion", "Case", "Shim", "discover", "load_case"]
