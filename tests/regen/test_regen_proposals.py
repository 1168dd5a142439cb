"""Coverage of call edges by the catalog, and proposals for the uncovered ones, from real traces of the
instrumented two-service app (tests/traces/twoservice.py) and a real case."""

from __future__ import annotations

import pytest

from faultlib.cases import load_case
from faultlib.chaos import CrdSchemas, render_chaos
from faultlib.chaos.render import ChaosEntry
from faultlib.inject.registry import param_errors
from faultlib.regen.proposals import Coverage, propose
from tests.conftest import CRDS, REPO, needs_crds
from tests.traces.twoservice import record

FRONT, GET, LOOKUP = ("frontend", "frontend.order"), ("frontend", "inventory.get"), ("inventory", "inventory.lookup")


@pytest.fixture(scope="module")
def broken_trace(tmp_path_factory):
    """A real trace: 30 orders through frontend -> inventory, items 20-22 failing in inventory (HTTP 500)."""
    return record(tmp_path_factory.mktemp("regen_traces") / "broken.jsonl", broken={20, 21, 22})


def test_a_case_covers_the_callees_it_names_by_span_service_or_endpoint():
    coverage = Coverage.of([load_case(REPO / "cases" / "downstream_timeout")])
    assert coverage.covering((("any", "serve.request"), ("any", "feature_service.fetch"))) == ["downstream_timeout"]
    assert coverage.covering((("checkout", "pay"), ("feature_service", "lookup"))) == ["downstream_timeout"]
    assert coverage.covering((("checkout", "pay"), ("feature-service", "lookup"))) == ["downstream_timeout"]
    assert coverage.covering((("feature_service", "feature_service.fetch"), ("billing", "charge"))) == []


@needs_crds
def test_every_uncovered_edge_gets_a_shim_and_a_valid_network_chaos(broken_trace):
    found = propose(broken_trace, [load_case(REPO / "cases" / "downstream_timeout")], crd_dir=CRDS)
    assert found.covered == {}
    assert [p.edge for p in found.proposals] == [(FRONT, GET), (GET, LOOKUP)]
    schemas = CrdSchemas(CRDS)
    for proposal in found.proposals:
        assert proposal.stats["count"] == 30 and proposal.stats["errors"] == 3
        assert proposal.endpoint == "inventory"
        assert proposal.shim["shim"] == "tcp_latency" and param_errors("tcp_latency", proposal.shim["params"]) == []
        assert proposal.shim["params"]["latency_ms"] >= 300
        spec = proposal.chaos["spec"]
        assert proposal.chaos["kind"] == "NetworkChaos" and spec["action"] == "delay"
        # the callee is inventory for both: the client span names it as its peer.service
        assert spec["selector"]["labelSelectors"] == {"app": "inventory"}
        assert spec["target"]["selector"]["labelSelectors"] == {"app": "frontend"}
        assert proposal.validated is True and proposal.problems == ()
        [obj] = render_chaos([ChaosEntry(**proposal.chaos)], case_id="x", run_id="20261130T120048Z-3fa2c1",
                             namespace="ml")
        assert schemas.problems(obj) == []


def test_edges_a_case_names_get_no_proposal(broken_trace, catalog):
    """`faultlib new` on the same trace makes a case that names frontend and inventory: nothing left to propose."""
    from tests.conftest import cli

    root = catalog()
    root.mkdir(parents=True, exist_ok=True)
    assert cli("new", "inventory_errors", "--from-trace", str(broken_trace), "--out", str(root),
               cwd=root).returncode == 0
    found = propose(broken_trace, [load_case(root / "inventory_errors")])
    assert found.proposals == ()
    assert found.covered == {(FRONT, GET): ["inventory_errors"], (GET, LOOKUP): ["inventory_errors"]}


def test_without_a_crd_directory_the_objects_are_not_checked(broken_trace):
    found = propose(broken_trace, [])
    assert len(found.proposals) == 2 and {p.validated for p in found.proposals} == {None}
