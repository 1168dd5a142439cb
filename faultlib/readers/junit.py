"""JUnit XML that an assertion suite wrote, read through the hardened path."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from faultlib.errors import InputError
from faultlib.readers.files import Limits, read_bytes

#: the suite's JUnit XML: a few KB per assertion
JUNIT_LIMITS = Limits(max_bytes=64 << 20)


def read_junit(path: str | Path) -> ET.Element | None:
    """The root element of a JUnit XML file, or None when it is missing, a symlink, larger than
    :data:`JUNIT_LIMITS`, or not well-formed XML (expat refuses entity-expansion bombs)."""
    try:
        return ET.fromstring(read_bytes(Path(path), limits=JUNIT_LIMITS))
    except (InputError, OSError, ET.ParseError, ValueError):
        return None
