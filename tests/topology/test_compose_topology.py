"""The base topology in compose/ against the real Compose specification and against what the
cases name: every compose file validates, the files the base mounts exist, the collector,
Prometheus and Grafana agree on ports, paths and datasource, and every Grafana panel a case names
exists in its dashboard with the case's PromQL query. Generic over the catalog."""

from __future__ import annotations

import json
import re

import jsonschema
import pytest
import yaml

from faultlib.backends.compose import COLLECTOR_FILE, COLLECTOR_SERVICE
from faultlib.cases import discover
from tests.conftest import REPO, SHARED

COMPOSE_DIR = REPO / "compose"
BASE = COMPOSE_DIR / "compose.yaml"
COMPOSE_SPEC = SHARED / "compose-spec" / "compose-spec.json"
CASES = discover(REPO / "cases")
COMPOSE_FILES = [BASE] + [c / yaml.safe_load((c / "case.yaml").read_text())["topology"]["compose"] for c in CASES]
DASHBOARDS = sorted((COMPOSE_DIR / "grafana" / "dashboards").glob("*.json"))


def _load(path):
    return yaml.safe_load(path.read_text())


def _spec_validator():
    if not COMPOSE_SPEC.is_file():
        pytest.skip(f"the Compose specification schema is not at {COMPOSE_SPEC}")
    spec = json.loads(COMPOSE_SPEC.read_text())
    assert "draft-07" in spec["$schema"]
    return jsonschema.Draft7Validator(spec)


def _dashboards() -> dict[str, dict]:
    boards = {}
    for path in DASHBOARDS:
        board = json.loads(path.read_text())
        assert board["uid"] not in boards, f"dashboard uid {board['uid']} appears twice"
        boards[board["uid"]] = board
    return boards


@pytest.mark.parametrize("path", COMPOSE_FILES, ids=[str(p.relative_to(REPO)) for p in COMPOSE_FILES])
def test_compose_file_matches_the_compose_specification(path):
    errors = sorted(_spec_validator().iter_errors(_load(path)), key=lambda e: list(map(str, e.absolute_path)))
    assert not errors, "\n".join(f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in errors)


def test_the_compose_specification_check_is_real():
    broken = _load(BASE)
    broken["services"]["grafana"]["healthcheck"]["tries"] = 3                # unknown key
    broken["services"]["minio"]["volumes"][0] = {"source": "minio-data"}   # 'type' is required
    assert len(list(_spec_validator().iter_errors(broken))) == 2


def test_base_services_and_pinned_images():
    services = _load(BASE)["services"]
    assert set(services) == {"minio", COLLECTOR_SERVICE, "prometheus", "grafana"}
    for name, service in services.items():
        image = service["image"]
        assert re.match(r"^[\w./-]+:[\w.-]+$", image) and not image.endswith(":latest"), f"{name}: pin {image}"


def test_files_the_base_mounts_exist():
    sources = [v["source"] for s in _load(BASE)["services"].values() for v in s.get("volumes", [])
               if v["type"] == "bind"]
    assert sources
    for source in sources:
        assert source.startswith("${FAULTLIB_COMPOSE_DIR:-.}/"), f"{source}: resolve it through FAULTLIB_COMPOSE_DIR"
        assert (COMPOSE_DIR / source.split("/", 1)[1]).exists(), source


def test_collector_receives_otlp_and_exports_a_file_and_prometheus():
    base = _load(BASE)["services"]
    collector = base[COLLECTOR_SERVICE]
    config_mount = next(v for v in collector["volumes"] if v["target"].endswith("config.yaml"))
    assert collector["command"] == [f"--config={config_mount['target']}"]
    config = _load(COMPOSE_DIR / config_mount["source"].split("/", 1)[1])
    protocols = config["receivers"]["otlp"]["protocols"]
    assert protocols["grpc"]["endpoint"] == "0.0.0.0:4317" and protocols["http"]["endpoint"] == "0.0.0.0:4318"
    assert config["exporters"]["file"] == {"path": COLLECTOR_FILE, "format": "json"}
    export_volume = next(v for v in collector["volumes"] if v["type"] == "volume")
    assert COLLECTOR_FILE.startswith(export_volume["target"] + "/")
    pipelines = config["service"]["pipelines"]
    assert set(pipelines) == {"traces", "metrics", "logs"}
    for pipeline in pipelines.values():
        assert pipeline["receivers"] == ["otlp"] and "file" in pipeline["exporters"]
        assert set(pipeline["exporters"]) <= set(config["exporters"])
        assert set(pipeline.get("processors", [])) <= set(config["processors"])
    assert "prometheus" in pipelines["metrics"]["exporters"]
    metrics_port = config["exporters"]["prometheus"]["endpoint"].rsplit(":", 1)[1]
    scrape = _load(COMPOSE_DIR / "prometheus" / "prometheus.yml")
    assert "global" in scrape
    targets = [t for job in scrape["scrape_configs"] for sc in job["static_configs"] for t in sc["targets"]]
    assert f"{COLLECTOR_SERVICE}:{metrics_port}" in targets


def test_grafana_provisions_prometheus_and_the_dashboards_directory():
    grafana = _load(BASE)["services"]["grafana"]
    mounts = {v["target"]: v["source"].split("/", 1)[1] for v in grafana["volumes"]}
    datasources = _load(COMPOSE_DIR / mounts["/etc/grafana/provisioning"] / "datasources" / "prometheus.yaml")
    prometheus = next(d for d in datasources["datasources"] if d["type"] == "prometheus")
    assert prometheus["url"] == "http://prometheus:9090"
    providers = _load(COMPOSE_DIR / mounts["/etc/grafana/provisioning"] / "dashboards" / "faultlib.yaml")
    dashboards_target = next(t for t, s in mounts.items() if s == "grafana/dashboards")
    assert providers["providers"][0]["options"]["path"] == dashboards_target
    assert DASHBOARDS
    for uid, board in _dashboards().items():
        ids = [p["id"] for p in board["panels"]]
        assert len(ids) == len(set(ids)), f"{uid}: panel ids repeat"
        for panel in board["panels"]:
            if panel["type"] != "row":
                assert panel["datasource"]["uid"] == prometheus["uid"]
                assert all(t["datasource"]["uid"] == prometheus["uid"] for t in panel["targets"])


@pytest.mark.parametrize("case_dir", CASES, ids=[c.name for c in CASES])
def test_every_panel_a_case_names_exists_with_the_cases_query(case_dir):
    observability = _load(case_dir / "case.yaml")["observability"]
    queries = {q["id"]: q["query"] for q in observability["promql"]}
    grafana = observability["grafana"]
    boards = _dashboards()
    assert grafana["dashboard_uid"] in boards, (
        f"no dashboard with uid {grafana['dashboard_uid']} in compose/grafana/dashboards/")
    panels = {p["id"]: p for p in boards[grafana["dashboard_uid"]]["panels"]}
    for named in grafana["panels"]:
        assert named["id"] in panels, f"dashboard {grafana['dashboard_uid']} has no panel {named['id']}"
        panel = panels[named["id"]]
        assert panel["title"] == named["title"]
        assert [t["expr"] for t in panel["targets"]] == [queries[named["query"]]]
