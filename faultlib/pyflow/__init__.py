"""Python source flow, shared by the static checks: an abstract interpreter over one module's AST.

:mod:`faultlib.pyflow.interp` runs a module body abstractly (binding, calls inlined, returns, classes and
instances, containers) and leaves the meaning of library calls to a subclass's hooks; :mod:`.values` holds
the values it knows. ``check leakage`` (:mod:`faultlib.detect.data.leakage.static`) subclasses it with
scikit-learn's meaning. It sits below the detector families (which may not import each other) and imports
nothing of faultlib: a family's static analysis builds on it without reaching into another family.
"""
