"""Checkpoint faults: the attached model saves its state dict as a wrapped training run would.

A training job runs its model under ``nn.DataParallel`` / ``DistributedDataParallel`` and
``torch.compile``; ``wrapped.state_dict()`` then names every key ``_orig_mod.module.<key>``, and the
serving code that builds the bare model cannot load it. This shim reproduces exactly that on the
workload's own model, without changing how it trains: from :meth:`apply` until :meth:`revert`,
``model.state_dict()`` returns the keys the real wrappers produce (the wrappers are built around the
model and asked for their keys), in the same order, with the same tensors.
"""

from __future__ import annotations

from typing import Any

from faultlib.errors import InjectionError
from faultlib.inject.base import FaultTarget, Injector

WRAPPERS = ("data_parallel", "compile")


class CheckpointWrappers(Injector):
    """Make ``model.state_dict()`` name keys as the model inside real training wrappers does.

    ``wrappers`` lists the wrappers from the innermost out: ``["data_parallel", "compile"]`` is
    ``torch.compile(nn.DataParallel(model))``, whose keys start with ``_orig_mod.module.``. The
    wrappers are real (``torch.compile`` with the ``eager`` backend: nothing is compiled unless
    called); only the root ``state_dict()`` call is rewritten, through a state-dict post hook, so
    submodules, parameters and training are untouched. The first rewritten call records a
    ``faultlib.fault`` span with the prefix.

    Params:
        wrappers (array): ``data_parallel`` and/or ``compile``, innermost first (default both).
    """

    name = "checkpoint_wrappers"
    summary = "model.state_dict() keys as under DataParallel and torch.compile (module. / _orig_mod.)"
    params_schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "wrappers": {"type": "array", "minItems": 1, "maxItems": 4, "items": {"enum": list(WRAPPERS)},
                         "default": list(WRAPPERS)},
        },
    }

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.wrappers: list[str] = list(params.get("wrappers", WRAPPERS))
        self._handle: Any = None
        self._target: FaultTarget | None = None
        self._wrapped: Any = None
        self._inside = False
        self.rewrites = 0
        self.prefix = ""

    def apply(self, target: FaultTarget) -> None:
        import torch
        from torch import nn

        model = target.model
        if not isinstance(model, nn.Module):
            raise InjectionError("checkpoint_wrappers needs the attached model to be a torch.nn.Module")
        wrapped: nn.Module = model
        for wrapper in self.wrappers:
            wrapped = nn.DataParallel(wrapped) if wrapper == "data_parallel" else torch.compile(wrapped,
                                                                                                 backend="eager")
        self._wrapped, self._target = wrapped, target
        def hook(module: Any, state_dict: dict, prefix: str, local_metadata: dict) -> None:
            self._rename(module, state_dict, prefix, local_metadata)  # torch tags the hook: a function, not a method

        self._handle = model.register_state_dict_post_hook(hook)

    def _rename(self, module: Any, state_dict: dict, prefix: str, local_metadata: dict) -> None:
        if prefix or self._inside:
            return  # a submodule, or the wrappers' own call below
        self._inside = True
        try:
            wrapped_keys = list(self._wrapped.state_dict(keep_vars=True))
        finally:
            self._inside = False
        items = list(state_dict.items())
        if len(items) != len(wrapped_keys):
            raise InjectionError(f"checkpoint_wrappers: the wrappers have {len(wrapped_keys)} keys, the model "
                                 f"{len(items)}")
        state_dict.clear()
        for new_key, (_, value) in zip(wrapped_keys, items):
            state_dict[new_key] = value
        self.prefix = wrapped_keys[0][:len(wrapped_keys[0]) - len(items[0][0])] if items else ""
        self.rewrites += 1
        if self.rewrites == 1 and self._target is not None:
            self._target.record_fault(self.name, point="state_dict", wrappers=list(self.wrappers),
                                      prefix=self.prefix, keys=len(items))

    def revert(self) -> None:
        if self._handle is not None:
            self._handle.remove()
            self._handle = None
        self._wrapped = None
