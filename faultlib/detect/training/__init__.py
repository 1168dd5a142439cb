"""Training state (``model.checkpoint_resume``, ``numerics.gradscaler_misuse``): faults that leave no
non-finite value and no broken file, where the run quietly becomes another run.

- :func:`analyze_resume_file` / :func:`analyze_resume_source` (:mod:`.resume`, on :mod:`.source`, with the
  vocabulary of :mod:`.vocab`): which stateful objects a training script's loop uses, which its checkpoints
  save and its resume path restores, and what is restored out of order (``faultlib check resume``);
  :func:`checkpoint_coverage` (:mod:`.checkpoint_state`): what a checkpoint file holds against them;
- :class:`GradScalerAudit` (:mod:`.scaler_audit`): GradScaler and mixed-precision misuse at run time:
  clipping scaled gradients, stepping without a scaled backward, fp16 master weights, an optimizer eps
  that is 0 in the parameters' dtype;
- :func:`probe_resume` (:mod:`.probe`): run a user's command straight and preempted-then-resumed, and
  name the first step where learning rate, loss scale, loss, data or parameters differ.

Importing this package imports no torch; each name loads its module on first use.
"""

from faultlib.lazy import lazy_exports

_EXPORTS = {
    "ResumeReport": "state", "StateObject": "state",
    "analyze_resume_file": "resume", "analyze_resume_source": "resume", "checkpoint_coverage": "checkpoint_state",
    "GradScalerAudit": "scaler_audit",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
