"""Export faults: the model is exported with another ONNX opset than the deployment target supports."""

from __future__ import annotations

from typing import Any

from faultlib.errors import InjectionError
from faultlib.inject.base import FaultTarget, Injector


class ExportOpset(Injector):
    """Make the attached exporter emit ``opset`` instead of the opset it was configured with.

    Models what a toolchain upgrade or a copied ``opset_version=`` does to a release: torch's exporter
    moves to a newer default opset (the dynamo exporter defaults to a newer one than the TorchScript
    exporter did), the export succeeds and the model runs everywhere the newest onnxruntime runs, and the
    serving runtime a release behind refuses it, or lacks a kernel for an op that only exists from that
    opset (``Gelu`` from 20, ``RMSNormalization`` from 23). Applied once, when the exporter is attached;
    reverted at the end of the phase.

    Params:
        opset (int): the ai.onnx opset the exporter emits while the fault is applied.
        attribute (str): the attached object's attribute holding the opset, default ``opset``.
    """

    name = "export_opset"
    summary = "export the model with another ONNX opset (newer than the serving runtime supports)"
    params_schema = {"type": "object", "additionalProperties": False, "required": ["opset"],
                     "properties": {"opset": {"type": "integer", "minimum": 7, "maximum": 100},
                                    "attribute": {"type": "string", "default": "opset"}}}

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        self.opset = int(params["opset"])
        self.attribute: str = params.get("attribute", "opset")
        self._owner: Any = None
        self._original: int | None = None

    def apply(self, target: FaultTarget) -> None:
        owner = target.model
        current = getattr(owner, self.attribute, None) if owner is not None else None
        if not isinstance(current, int) or isinstance(current, bool):
            raise InjectionError(f"export_opset needs the attached object to hold an int opset in "
                                 f"{self.attribute!r}; found {type(current).__name__}")
        if current == self.opset:
            raise InjectionError(f"export_opset: the exporter already uses opset {current}; choose another")
        self._owner, self._original = owner, current
        setattr(owner, self.attribute, self.opset)
        target.record_fault(self.name, configured_opset=current, opset=self.opset, attribute=self.attribute)

    def revert(self) -> None:
        if self._owner is not None and self._original is not None:
            setattr(self._owner, self.attribute, self._original)
        self._owner = None
