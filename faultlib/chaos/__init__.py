"""Chaos Mesh twins of cases: render ``inject.kubernetes.chaos`` into custom resources for one
run (:mod:`~faultlib.chaos.render`) and validate them against the real CRD schemas
(:mod:`~faultlib.chaos.crds`). Used by the Kubernetes backend and its ``--dry-run``."""

from faultlib.chaos.crds import CrdSchemas, SchemaProblem, validate_case_chaos
from faultlib.chaos.render import (API_VERSION, GROUP, LABEL_CASE, LABEL_MANAGED_BY, LABEL_PHASE, LABEL_RUN_ID,
                                   PLURALS, VERSION, ChaosEntry, chaos_entries, render_chaos, run_selector,
                                   run_suffix)

__all__ = ["API_VERSION", "GROUP", "LABEL_CASE", "LABEL_MANAGED_BY", "LABEL_PHASE", "LABEL_RUN_ID", "PLURALS",
           "VERSION", "ChaosEntry", "CrdSchemas", "SchemaProblem", "chaos_entries", "render_chaos",
           "run_selector", "run_suffix", "validate_case_chaos"]
