"""``check batching FILE.py:NAME`` calls NAME with no arguments, so NAME must be something FILE.py defines: a dotted
NAME once walked into the modules FILE imports (``ds.py:os.system`` ran ``os.system()``; ``ds.py:os.abort`` would
abort the interpreter)."""

from __future__ import annotations

import pytest

from faultlib.errors import InputError
from faultlib.readers.pymodule import load_module, resolve

SOURCE = """
import os
from functools import partial
from json import dumps


class Rows:
    size = 3

    @classmethod
    def build(cls):
        return cls()


def make():
    return Rows()


dump = partial(dumps, indent=1)
"""


@pytest.fixture
def module(tmp_path):
    (tmp_path / "rows.py").write_text(SOURCE)
    return tmp_path / "rows.py", load_module(tmp_path / "rows.py", option="dataset")


@pytest.mark.parametrize("name", ["Rows", "make", "Rows.build", "dump", "Rows.size"])
def test_what_the_file_defines_is_found(module, name):
    path, loaded = module
    assert resolve(loaded, path, name, "dataset", defined_here=True) is not None


@pytest.mark.parametrize("name, words", [("os.system", "imports the module 'os'"), ("os.path.join", "module 'os'"),
                                         ("dumps", "imports 'dumps' from json"), ("os", "module 'os'")])
def test_what_the_file_imports_is_refused_before_anything_is_called(module, name, words):
    path, loaded = module
    with pytest.raises(InputError) as raised:
        resolve(loaded, path, name, "dataset", defined_here=True)
    message = raised.value.message
    assert "not defined in this file" in message and words in message, message
    assert "Rows" in message and "make" in message and "dumps" not in message.split("defines:")[-1], message


def test_other_options_still_follow_a_dotted_name(module):
    path, loaded = module
    assert callable(resolve(loaded, path, "os.path.join", "--model"))
