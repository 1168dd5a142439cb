"""``faultlib regress``: run the catalog (or a shard of it) and report it as JUnit XML and HTML.

- :mod:`~faultlib.regress.plan`: which cases (catalog, ``--fault-class``, ``--shard I/N``);
- :mod:`~faultlib.regress.pool`: runs them, one worker process per case, ``--jobs`` at a time;
- :mod:`~faultlib.regress.results`: the typed results, verdicts and the exit code;
- :mod:`~faultlib.regress.junit`: JUnit XML, and ``python -m faultlib.regress.junit merge`` for shards;
- :mod:`~faultlib.regress.report`: the self-contained HTML report (:mod:`~faultlib.regress.series`
  picks each case's key series, :mod:`~faultlib.regress.svg` draws them).

Importing this package stays cheap; the modules load what they need when called.
"""

from faultlib.regress.plan import Plan, PlannedCase, Shard, plan
from faultlib.regress.results import (
                                      AssertionResult,
                                      AssertionStatus,
                                      CaseResult,
                                      CaseVerdict,
                                      RegressListener,
                                      RegressResult,
)

__all__ = ["AssertionResult", "AssertionStatus", "CaseResult", "CaseVerdict", "Plan", "PlannedCase", "RegressListener",
           "RegressResult",
           "Shard", "plan"]
