"""The catalog format: case.yaml, its schema, loading and discovery."""

from faultlib.cases.loader import discover, load_case
from faultlib.cases.model import Assertion, Case, Shim, World

__all__ = ["Assertion", "Case", "Shim", "World", "discover", "load_case"]
