"""Paths stay inside their root; names are plain relative names."""

from __future__ import annotations

import pytest

from faultlib.errors import InputError
from faultlib.readers import inside, read_text, safe_relative


def test_inside_keeps_paths_in_their_root(tmp_path):
    (tmp_path / "sub").mkdir()
    assert inside(tmp_path, "sub/a.txt") == tmp_path / "sub" / "a.txt"
    for escape in ("../x", "sub/../../x", "/etc/passwd"):
        with pytest.raises(InputError, match="leaves its directory"):
            inside(tmp_path, escape)


def test_inside_refuses_symlinks_below_the_root_even_to_places_inside(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "f.txt").write_text("x")
    (tmp_path / "alias").symlink_to(tmp_path / "real")
    (tmp_path / "out").symlink_to("/etc")
    for name in ("alias/f.txt", "out/passwd"):
        with pytest.raises(InputError, match="symbolic link"):
            inside(tmp_path, name)
    with pytest.raises(InputError, match="symbolic link"):
        read_text("alias/f.txt", root=tmp_path)
    assert read_text("real/f.txt", root=tmp_path) == "x"


@pytest.mark.parametrize("name", ["../x", "a/../../b", "/abs", "", ".", "a//b", "a/./b", "a\\b", "a\x00b", "a/"])
def test_safe_relative_refuses_names_that_could_leave(name):
    with pytest.raises(InputError):
        safe_relative(name)


@pytest.mark.parametrize("name", ["run.json", "dumps/control/dump.pt", "a.b-c_d"])
def test_safe_relative_accepts_plain_names(name):
    assert safe_relative(name) == name
