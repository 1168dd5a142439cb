"""``faultlib trace -- python SCRIPT.py``: find the first non-finite value in an unmodified script.

Two runs of the script, each in its own process (:mod:`faultlib.trace.boot`: the hooks; :mod:`faultlib.trace.watch`
and :mod:`faultlib.trace.replay`: each run's side):

1. **watch**: cheap checks installed globally: the outermost module's output (one sum and one
   read per forward; a training step whose checks :mod:`faultlib.trace.sampling` skips runs lean,
   :mod:`faultlib.trace.lean`: none of these checks run on it), the tensor ``backward()`` is called on, the total
   norm ``clip_grad_norm_``
   returns (a non-finite one trips; a finite one stands for the gradient check) or else every
   optimizer's gradients before ``step()`` (global optimizer step pre-hook), and an uncaught
   exception that says a value was not finite (:mod:`faultlib.trace.causes`). The model's
   positional arguments are kept (references) and searched for a NaN only when the step trips.
   The first check that trips records the step and the model call that began it (the previous
   step's, when a parameter is already non-finite: the update wrote it), and stops the script
   (``--continue`` keeps going and counts the steps that tripped).
2. **replay**: the script runs again; from the model call that began the tripped step (after lean steps: from the
   end of the optimizer step before it, or before the last step checked clean),
   :class:`faultlib.detect.numerics.nan_locator.NonFiniteLocator` checks every op and
   :class:`faultlib.trace.batch.StepInputs` sorts every tensor the step consumes, so the report
   names the op that made the value, or the input (batch, loss target, parameter) that already
   held it. The replay finishes that step (to its ``backward()``, its ``optimizer.step()`` or
   the next model call) and writes a dump that replays the step and its loss.

A script that runs the same way twice (seeded) replays the same step. When the replay sees the
value at another step or not at all, the report keeps the first run's step (``replay_step`` and
a note say what the replay saw). Exit codes: :data:`faultlib.trace.session.EXIT_CODES`.

A torchrun world (``faultlib trace -- torchrun ... SCRIPT.py``): :mod:`faultlib.trace.world`, every rank
watched through :mod:`faultlib.trace.rank`; :func:`trace_command` picks one or the other.
"""

from faultlib.trace.session import (EXIT_CODES, EXIT_FOUND, EXIT_OK, EXIT_SCRIPT_FAILED, EXIT_USAGE, Reason,
                                    ScriptError, TraceReport, trace_script)
from faultlib.trace.world import trace_command, trace_world

__all__ = ["EXIT_CODES", "EXIT_FOUND", "EXIT_OK", "EXIT_SCRIPT_FAILED", "EXIT_USAGE", "Reason", "ScriptError",
           "TraceReport", "trace_command", "trace_script", "trace_world"]
