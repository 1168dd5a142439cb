"""The one hardened path for every file faultlib reads from a user or a repro.

Every reader here bounds what it reads before it parses it, and fails with
:class:`~faultlib.errors.InputError` (exit 2) naming the file, line and field — never with a
traceback, never after hours or gigabytes:

- :mod:`~faultlib.readers.files`: a regular file inside its root, symlinks not followed, at most
  ``max_bytes``, valid UTF-8 without NUL bytes for text;
- :mod:`~faultlib.readers.yamldoc`: YAML through ``yaml.SafeLoader`` with bounded depth, bounded
  alias expansion (billion laughs), no recursive aliases, string keys only, JSON scalars only
  (no timestamps, binary or sets), finite numbers, and the line of every node;
- :mod:`~faultlib.readers.jsondoc`: JSON and JSON Lines with bounded size and depth, finite numbers
  (``NaN``/``Infinity``/``1e999`` refused), no duplicate keys; JSON Lines read line by line so
  one bad line is reported with its number and does not hide the others;
- :mod:`~faultlib.readers.jsonstream`: one large JSON document (a trace of 10^6 spans) read as ijson's event stream
  with the same refusals, gzip detected by its magic bytes and bounded, memory held to the values a caller builds;
- :mod:`~faultlib.readers.keypath`: ``FILE#dotted.key.path``, a value inside a parsed document;
- :mod:`~faultlib.readers.junit`: an assertion suite's JUnit XML, bounded, by expat (no entity expansion).
- :mod:`~faultlib.readers.pysource`: Python source parsed (never run) for the static checks; a syntax error
  names its line and column.
- :mod:`~faultlib.readers.tables`: tables by extension; a CSV header's names kept as written (a name written
  twice, or a row wider than the header, is refused with the line, never renamed or turned into an index).
- :mod:`~faultlib.readers.options`: numbers from the command line (:class:`FiniteFloat`: ``nan``/``inf`` refused).
- :mod:`~faultlib.readers.integers`: integers spelled in your text (a key path index, a size, an opset), bounded
  before ``int()`` (a run of 5,000 digits is out of range, not a traceback).
- :mod:`~faultlib.readers.notebook`: Jupyter notebooks, with bounds of their own (outputs make them tens of MB).
- Python source (``.py``) is decoded as Python reads it (:func:`~faultlib.readers.files.python_encoding`, PEP 263).

Writes have one rule too, beside these readers: :mod:`faultlib.outputs` (no symbolic link in the path as typed,
atomic replacement, never through a link at the file).
"""

from faultlib.lazy import lazy_exports

#: public names and the module that defines each, imported on first use (PEP 562): a reader of Python source or
#: a command-line number does not load YAML (``faultlib trace`` and every ``faultlib check`` start faster)
_EXPORTS = {"Limits": "files", "inside": "files", "read_bytes": "files", "read_text": "files",
            "safe_relative": "files", "JsonLine": "jsondoc", "iter_json_lines": "jsondoc", "load_json": "jsondoc",
            "PositionedYaml": "yamldoc", "dotted": "yamldoc", "load_yaml": "yamldoc",
            "load_yaml_documents": "yamldoc", "load_yaml_file": "yamldoc"}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = ["JsonLine", "Limits", "PositionedYaml", "dotted", "inside", "iter_json_lines", "load_json", "load_yaml",
           "load_yaml_documents", "load_yaml_file", "read_bytes", "read_text", "safe_relative"]
