"""Chaos Mesh twins of cases: render ``inject.kubernetes.chaos`` into custom resources for one
run (:mod:`~faultlib.chaos.render`), validate them against the real CRD schemas
(:mod:`~faultlib.chaos.crds`) and tell which pods they select (:mod:`~faultlib.chaos.selectors`).
Used by the Kubernetes backend and its ``--dry-run``."""

from faultlib.chaos.crds import CrdSchemas, SchemaProblem, validate_case_chaos
from faultlib.chaos.render import (API_VERSION, GROUP, LABEL_CASE, LABEL_MANAGED_BY, LABEL_PHASE, LABEL_RUN_ID,
                                   PLURALS, VERSION, ChaosEntry, chaos_entries, render_chaos, run_selector,
                                   run_suffix, scope_selector)
from faultlib.chaos.selectors import PodSelector, pod_selectors, selects

__all__ = ["API_VERSION", "GROUP", "LABEL_CASE", "LABEL_MANAGED_BY", "LABEL_PHASE", "LABEL_RUN_ID", "PLURALS",
           "VERSION", "ChaosEntry", "CrdSchemas", "PodSelector", "SchemaProblem", "chaos_entries", "pod_selectors",
           "render_chaos", "run_selector", "run_suffix", "scope_selector", "selects", "validate_case_chaos"]
