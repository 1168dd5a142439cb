"""Home Assistant's own file helpers: loading and saving YAML and JSON files, writing a UTF-8 file.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`; Home
Assistant integrations' other blockers are in :mod:`~faultlib.detect.serving.blocking.libraries.homeauto` and
:mod:`~faultlib.detect.serving.blocking.libraries.timezones`); from wave 31's misses (an integration rewriting its
``services.yaml`` in an ``async def``) and the census of unseen services (``benchmarks/blocking_census.py``).
``load_yaml``/``load_yaml_dict`` open and parse the file; ``save_yaml``, ``save_json`` and ``write_utf8_file``
(``_atomic``) write it through ``open`` (a temporary file, then a rename); ``load_json`` (and its ``_object``,
``_array`` variants) read it. Home Assistant's loop check reports the ``open`` inside each of them; its storage
helper (``helpers.storage.Store.async_load``/``async_save``) is the loop-safe way. ``json_loads``/``parse_yaml`` of
a string already in memory read nothing and are not named.
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import Vocabulary

F = "blocking_file_io"
HA = ("https://developers.home-assistant.io/docs/asyncio_blocking_operations/#open (opening a file in the event loop "
      "is blocking I/O; the helper opens the file: https://github.com/home-assistant/core/tree/dev/homeassistant/util)")

HA_FILES = Vocabulary(calls={
    **{f"homeassistant.util.yaml.{f}": (F, HA) for f in ("load_yaml", "load_yaml_dict", "save_yaml")},
    **{f"homeassistant.util.yaml.loader.{f}": (F, HA) for f in ("load_yaml", "load_yaml_dict")},
    "homeassistant.util.yaml.dumper.save_yaml": (F, HA),
    **{f"homeassistant.util.json.{f}": (F, HA) for f in ("load_json", "load_json_object", "load_json_array",
                                                         "save_json")},
    "homeassistant.helpers.json.save_json": (F, HA),
    **{f"homeassistant.util.file.{f}": (F, HA) for f in ("write_utf8_file", "write_utf8_file_atomic")},
})
