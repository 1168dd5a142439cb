"""Error messages say each thing once: ``file[:line]: [field:] message``."""

from __future__ import annotations

import os

from faultlib.errors import InputError
from tests.conftest import cli


def test_a_path_or_field_the_message_already_names_is_not_repeated():
    assert str(InputError("c.pt is a symbolic link", path="c.pt")) == "c.pt: is a symbolic link"
    assert str(InputError("(root).-1: bad value", path="x.yaml", field="(root).-1")) == "x.yaml: (root).-1: bad value"
    assert str(InputError("is missing", path="case.yaml", line=3, field="repro.seed")) == \
        "case.yaml:3: repro.seed: is missing"
    assert str(InputError("c.ptx is another file", path="c.pt")) == "c.pt: c.ptx is another file"


def test_a_symlinked_checkpoint_is_named_once(tmp_path):
    (tmp_path / "real.pt").write_bytes(b"PK")
    os.symlink(tmp_path / "real.pt", tmp_path / "c.pt")
    proc = cli("check", "checkpoints", "c.pt", cwd=tmp_path)
    assert proc.returncode in (1, 2) and "c.pt c.pt" not in proc.stdout + proc.stderr
