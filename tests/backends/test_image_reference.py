"""`--image` is an image reference or bad usage (exit 2) before any backend is reached: an image holding a newline
(``img<newline>  evil: x``) was rendered into the dry run's Jobs as a YAML block scalar (exit 0) and handed to the
compose files as FAULTLIB_IMAGE as it was."""

from __future__ import annotations

import pytest

from faultlib.backends import check_image, get_backend
from faultlib.errors import FaultlibError
from tests.conftest import REPO, cli

GOOD = ["faultlib/trainer:0.1", "ubuntu", "localhost:5000/ml/trainer:latest", "a/b_c__d-e:v1.2-rc",
        "registry.example.com/ml/trainer@sha256:" + "a" * 64]
BAD = ["img\n  evil: x", "Faultlib/Trainer:0.1", "trainer:", "a//b", "img;rm -rf x", "-img", "x" * 256]


@pytest.mark.parametrize("image", GOOD)
def test_image_references_are_taken(image):
    assert check_image(image) == image
    assert get_backend("kubernetes", image=image) is not None


@pytest.mark.parametrize("image", BAD)
def test_anything_else_is_refused_for_both_backends(image):
    for backend in ("compose", "kubernetes"):
        with pytest.raises(FaultlibError, match="is not an image reference") as info:
            get_backend(backend, image=image)
        assert info.value.exit_code == 2


def test_a_dry_run_with_a_newline_in_the_image_prints_nothing_and_exits_2(tmp_path):
    got = cli("run", str(REPO / "cases" / "label_mapping_drift"), "--backend", "kubernetes", "--dry-run",
              "--image", "img\n  evil: x", cwd=tmp_path)
    assert got.returncode == 2, got.stdout[-500:]
    assert got.stdout == "" and "is not an image reference" in got.stderr
