"""Which distribution installed a top-level name: read lazily (stop 41), answered as the full scan answered."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

from faultlib.detect.serving.blocking.installed import Installed, default_site_dirs


def _full_scan(site_dirs: list[Path]) -> dict[str, tuple[str, str, Path]]:
    """Stop 40's table: every distribution read up front, the first to name a top-level package wins."""
    table: dict[str, tuple[str, str, Path]] = {}
    for root_dir in site_dirs:
        for dist in metadata.distributions(path=[str(root_dir)]):
            name, version = dist.metadata["Name"] or "", dist.version or "unknown"
            tops = (dist.read_text("top_level.txt") or "").split()
            if not tops:
                tops = {str(f).split("/")[0].removesuffix(".py") for f in (dist.files or [])[:2000]
                        if str(f).endswith(".py")}
            for t in tops:
                table.setdefault(t, (name, version, root_dir))
    return table


def _dist_info(site: Path, name: str, version: str, *, top_level: str | None = None, record: str = "") -> None:
    info = site / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    if top_level is not None:
        (info / "top_level.txt").write_text(top_level)
    (info / "RECORD").write_text(record)


def test_every_installed_name_gets_the_distribution_the_full_scan_gives():
    dirs = default_site_dirs()
    table = _full_scan(dirs)
    assert len(table) > 20  # faultlib's own environment: many distributions to tell apart
    forward, backward = Installed(dirs), Installed(dirs)
    for lookup, tops in ((forward, sorted(table)), (backward, sorted(table, reverse=True))):
        for top in tops:
            assert lookup._distribution(top, dirs[0]) == table[top][:2], top


def test_first_distribution_naming_a_package_wins_and_unknown_names_read_everything(tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    _dist_info(first, "alpha", "1.0", top_level="shared\nalpha_only\n")
    _dist_info(second, "beta", "2.0", record="shared/__init__.py,,\nbeta_tool.py,,\nbeta-2.0.dist-info/METADATA,,\n")
    dirs = [first, second]
    table = _full_scan(dirs)
    lookup = Installed(dirs)
    assert lookup._distribution("beta_tool", second) == table["beta_tool"][:2] == ("beta", "2.0")  # from RECORD
    assert lookup._distribution("shared", second) == table["shared"][:2] == ("alpha", "1.0")  # the first wins
    assert lookup._distribution("nowhere", second) == ("nowhere", "unknown")
    assert lookup._unread is None  # an unknown name read every distribution, and the answers stay
    assert lookup._distribution("alpha_only", first) == ("alpha", "1.0")
