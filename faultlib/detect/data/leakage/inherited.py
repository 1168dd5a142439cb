"""Methods a class inherits from a class of the project, for the static leakage analysis.

A feature framework keeps the driver in a base class and the work in each subclass::

    class Feature:                      # feature/base.py
        def create_feature(self):
            self.calculate()            # the subclass's own computation
            self._save()                # self.train.to_pickle(...): the table the model scripts read

    class Magic(Feature):               # feature/magic.py
        def calculate(self):
            ...frequencies over train and test stacked...
            self.train, self.test = train, test

    Magic().create_feature()

``Magic().create_feature()`` runs the base class's method on the subclass's instance: Python looks an attribute up in
the class, then in its bases, left to right (Python language reference, 3.3.1 "Customizing attribute access" and
the data model's "Custom classes": a class attribute not found in the class is searched in its base classes).
Without that lookup the call was a library call, ``calculate`` an uncalled method whose table only went onto
``self``, and the frequencies over the stacked files never reached the save (wave 72: a feature class of a fraud
competition whose base class saves). A base is followed when it is a class of the module or of the project
(imported in a session); a library base (``nn.Module``, ``BaseEstimator``) keeps its calls as library calls.
A method the subclass defines wins over the base's; of several bases the leftmost first.

A mixin of :class:`faultlib.detect.data.leakage.static.Analyzer`.
"""

from __future__ import annotations

import ast
from typing import Any

from faultlib.pyflow.values import ClassVal


class InheritedMethods:
    """Adds to a class the methods of its project bases it does not define itself."""

    def _class(self, node: ast.ClassDef, frame: Any) -> Any:
        cls = super()._class(node, frame)  # type: ignore[misc]
        for base in node.bases:
            if not isinstance(base, (ast.Name, ast.Attribute)):
                continue
            value = self._expr(base, frame)  # type: ignore[attr-defined]
            if isinstance(value, ClassVal) and value is not cls:
                for name, method in value.methods.items():
                    cls.methods.setdefault(name, method)
        return cls


__all__ = ["InheritedMethods"]
