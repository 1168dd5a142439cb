"""Importing code and reading installed packages' metadata at run time: ``importlib.import_module``/``reload`` and
``importlib.metadata``'s lookups.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`); found by
the census of unseen async services (``benchmarks/blocking_census.py``: ``import_module`` in 15 of 54 services).

``importlib.import_module(name)`` of a module not yet imported searches ``sys.path`` (a stat per entry), reads and
unmarshals the module's bytecode or compiles its source, and runs its top level -- often importing a whole
library behind it; Home Assistant's loop check reports it in the event loop unless the module is already in
``sys.modules`` (which is not known statically: as for the time zones, every call on the loop is reported).
``importlib.reload`` re-reads and re-runs the module every time. ``importlib.metadata``'s ``version``,
``metadata``, ``distribution``, ``distributions``, ``entry_points``, ``files`` and ``requires`` scan ``sys.path``
for the installed distributions and read their metadata files on every call (nothing is cached). A module loaded from a
file by hand -- ``spec = importlib.util.spec_from_file_location(name, path)``, then ``spec.loader.exec_module(module)``
-- is read, compiled and run by ``exec_module`` (the spec's loader is a ``SourceFileLoader``, typed in
:data:`faultlib.detect.serving.blocking.vocab.ATTRIBUTE_TYPES`; held-out wave 67: an HTTP client's user scripts).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Vocabulary

F = "blocking_file_io"
PY = "https://docs.python.org/3/library/"
HA = ("https://developers.home-assistant.io/docs/asyncio_blocking_operations/#import_module (importing a module does "
      "blocking file I/O; Home Assistant's loop check reports import_module unless the module is already imported)")
METADATA = (PY + "importlib.metadata.html (the lookups find the distributions on sys.path and read their "
            "metadata files: METADATA, entry_points.txt, RECORD)")

IMPORTS = Vocabulary(returns={"importlib.util.spec_from_file_location": "importlib.machinery.ModuleSpec"}, calls={
    "importlib.import_module": (F, PY + "importlib.html#importlib.import_module (finds, loads and executes the module"
                                " when it is not in sys.modules); " + HA),
    "importlib.reload": (F, PY + "importlib.html#importlib.reload (re-reads the module's code and re-executes it)"),
    "importlib.machinery.SourceFileLoader.exec_module": (
        F, PY + "importlib.html#importlib.abc.Loader.exec_module (reads the module's source or bytecode, compiles "
        "and executes it; the recipe https://docs.python.org/3/library/importlib.html#importing-a-source-file-"
        "directly)"),
    **{f"importlib.metadata.{f}": (F, METADATA) for f in (
        "version", "metadata", "distribution", "distributions", "entry_points", "files", "requires",
        "packages_distributions")},
    **{f"importlib_metadata.{f}": (F, METADATA) for f in ("version", "metadata", "distribution", "entry_points")},
})
