"""The built-in vocabulary's registry: one module per library family, each registered as an entry point."""

from __future__ import annotations

import importlib
import tomllib
from pathlib import Path

from faultlib.detect.serving.blocking import libraries
from faultlib.detect.serving.blocking.entries import Vocabulary
from faultlib.detect.serving.blocking.vocab import vocabulary

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def _declared() -> dict[str, object]:
    table = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["entry-points"]["faultlib.blocking_calls"]
    out = {}
    for name, value in table.items():
        module, _, attr = value.partition(":")
        out[name] = getattr(importlib.import_module(module), attr)
    return out


def test_every_registered_table_is_an_entry_point_and_back():
    declared = _declared()
    assert all(isinstance(v, Vocabulary) and v.problem() is None for v in declared.values())
    assert {id(v) for v in declared.values()} == {id(v) for v in libraries.BUILTIN}


def test_each_family_module_holds_its_own_library_only():
    from faultlib.detect.serving.blocking.libraries import databases, http, models, stdlib

    merged = vocabulary()
    for table, own, other in ((stdlib.STDLIB, "time.sleep", "requests.get"), (http.HTTP_CLIENTS, "requests.get",
                              "psycopg2.connect"), (databases.DATABASES, "psycopg2.connect", "torch.load"),
                              (models.MODELS, "torch.load", "time.sleep")):
        assert own in table.calls and merged.calls[own] == table.calls[own]
        assert other not in table.calls
