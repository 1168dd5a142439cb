"""Checkpoints (``model.checkpoint_*``, and the checkpoint side of ``infra.*``): files that do not load,
or load into the wrong model, or resume the wrong state.

- :func:`read_checkpoint` (:mod:`.reader`): the one hardened reader of ``.pt``/``.pth``/``.bin``/
  safetensors files: bounded, ``weights_only=True``, unsafe pickle globals named without unpickling;
- :func:`scan` / :func:`resume_latest` (:mod:`.scan`): which files of a directory load and the newest
  complete one (``faultlib check checkpoints``);
- ``compare`` (:mod:`.state_dict`), :func:`infer_remap`,
  :func:`safe_load_state_dict`: key and shape mismatches between a checkpoint and a model, the prefix
  remap that fixes them, and a load that refuses to silently skip (``faultlib check state-dict``);
- :func:`check_optimizer_order` / :func:`align_optimizer_state` (:mod:`.optimizer_state`): optimizer
  state applied to the parameters it was saved for.

Importing this package imports no torch; each name loads its module on first use.
"""

from faultlib.lazy import lazy_exports

_EXPORTS = {
    "Checkpoint": "reader", "UnloadableCheckpoint": "reader", "pickle_globals": "reader", "read_checkpoint": "reader",
    "CheckpointScan": "scan", "CheckpointStatus": "scan", "Resume": "scan", "checkpoint_files": "scan",
    "inspect_file": "scan", "resume_latest": "scan", "scan": "scan",
    "LoadReport": "state_dict", "StateDictMismatch": "state_dict", "StateDictReport": "state_dict",
    "find_state_dicts": "state_dict", "safe_load_state_dict": "state_dict", "shapes_of": "state_dict",
    "Remap": "remap", "RemapRule": "remap", "apply_rules": "remap", "infer_remap": "remap",
    "OptimizerReport": "optimizer_state", "Param": "optimizer_state", "align_optimizer_state": "optimizer_state",
    "check_optimizer_order": "optimizer_state",
    "GroupReport": "optimizer_state", "check_optimizer_groups": "optimizer_state",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
