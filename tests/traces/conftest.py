import pytest

from tests.traces.twoservice import record


@pytest.fixture(scope="session")
def real_traces(tmp_path_factory):
    """Real traces.jsonl files from the two-service app: normal, slow (ids 10-14), broken (ids 20-22)."""
    root = tmp_path_factory.mktemp("real_traces")
    return {"normal": record(root / "normal.jsonl"),
            "slow": record(root / "slow.jsonl", slow={10, 11, 12, 13, 14}),
            "broken": record(root / "broken.jsonl", broken={20, 21, 22})}
