"""faultlib.pyflow's interpreter on its own: a subclass gives library calls a meaning through the hooks, and the
interpreter carries the values through binding, containers, instances, calls and returns."""

from __future__ import annotations

import ast

from faultlib.pyflow.interp import Interpreter
from faultlib.pyflow.values import UNKNOWN, Bound, ClassVal, Container, Const, Instance, Opaque

SOURCE = '''
import torch
from torch.optim import AdamW

class Trainer:
    def __init__(self, net):
        self.opt = AdamW(net.parameters(), lr=1e-3)

    def state(self):
        return {"opt": self.opt.state_dict(), "step": 3}

def save(trainer, path):
    ckpt = trainer.state()
    ckpt["extra"] = path
    torch.save(ckpt, path)

def never_called(model):
    model.train()

t = Trainer(torch.nn.Linear(2, 2))
save(t, "c.pt")
'''


class Made:
    """A value a library call made (with identity, unlike UNKNOWN)."""

    def __init__(self, name: str, line: int):
        self.name, self.line = name, line


class Recorder(Interpreter):
    def __init__(self, tree: ast.Module):
        super().__init__(tree)
        self.saved: list[object] = []
        self.methods: list[tuple[str, str]] = []

    def _library(self, ref, args, kwargs, node, frame):
        if ref.name == "torch.save":
            self.saved.append(args[0])
        return Made(ref.name, node.lineno)

    def _method_value(self, receiver, name, args, kwargs, node, frame):
        self.methods.append((getattr(receiver, "name", type(receiver).__name__), name))
        return ("state_of", receiver) if name == "state_dict" else UNKNOWN

    def _attribute_value(self, base, attr):
        return Bound(base, attr)


def test_values_flow_through_instances_calls_returns_and_item_assignment():
    interp = Recorder(ast.parse(SOURCE))
    interp.interpret()
    assert interp.complete
    [ckpt] = interp.saved
    assert isinstance(ckpt, Container) and set(ckpt.items) == {"opt", "step", "extra"}
    kind, optimizer = ckpt.items["opt"]
    assert kind == "state_of" and isinstance(optimizer, Made) and optimizer.name == "torch.optim.AdamW"
    trainer = interp.globals["t"]
    assert isinstance(trainer, Instance) and trainer.attrs["opt"] is optimizer  # one object, not a name match
    assert ("torch.nn.Linear", "parameters") in interp.methods
    assert ("model", "train") in interp.methods  # an uncalled function runs with opaque arguments


def test_hooks_for_unknowns_containers_and_classes():
    """``_opaque`` names what an unknown value becomes; ``_may_become_container`` decides whether ``d['k'] = v``
    turns an unknown ``d`` into a dict; a class keeps its bases' last identifiers."""
    class Named(Opaque):
        pass

    class Custom(Interpreter):
        def _opaque(self, name, line):
            return Named(name, line)

        def _may_become_container(self, owner):
            return False

    source = "import lib\nclass A(base.Mixin):\n    pass\nd = lib.load()\nd['k'] = 1\n"
    default = Interpreter(ast.parse(source))
    default.interpret()
    assert isinstance(default.globals["d"], Container) and default.globals["d"].items == {"k": Const(1)}
    custom = Custom(ast.parse(source))
    custom.interpret()
    assert isinstance(custom.globals["d"], Named) and custom.globals["d"].name == "d"
    cls = custom.globals["A"]
    assert isinstance(cls, ClassVal) and cls.bases == frozenset({"Mixin"})


def test_a_return_in_a_branch_of_unknown_truth_ends_the_function_only_by_default():
    source = ("import lib\ndef main(args):\n    if args.eval:\n        return lib.evaluate()\n    lib.train()\n"
              "main(lib.parse())\n")

    class Calls(Interpreter):
        def __init__(self, tree):
            super().__init__(tree)
            self.calls = []

        def _library(self, ref, args, kwargs, node, frame):
            self.calls.append(ref.name)
            return UNKNOWN

    stops = Calls(ast.parse(source))
    stops.interpret()
    assert stops.calls == ["lib.parse", "lib.evaluate"]

    class GoesOn(Calls):
        follow_branch_returns = True

    goes_on = GoesOn(ast.parse(source))
    goes_on.interpret()
    assert goes_on.calls == ["lib.parse", "lib.evaluate", "lib.train"]


def test_an_if_without_else_joins_what_it_rebinds_only_when_asked():
    source = "import lib\nx = lib.stat()\nif lib.check(x):\n    x = 0\n"

    class Named(Interpreter):
        def _library(self, ref, args, kwargs, node, frame):
            return Made(ref.name, node.lineno) if ref.name == "lib.stat" else UNKNOWN

    replaced = Named(ast.parse(source))
    replaced.interpret()
    assert replaced.globals["x"] == Const(0)  # the branch's value replaces it (the default)

    class Joins(Named):
        join_one_armed_if = True

    joined = Joins(ast.parse(source))
    joined.interpret()
    assert isinstance(joined.globals["x"], Made)  # the base join keeps the value that is not a constant


def test_a_short_loop_reports_each_item_and_what_the_loop_variable_holds_after_it():
    source = "import lib\na = lib.make()\nb = lib.make()\nfor t in [a, b]:\n    t = lib.change(t)\n"
    seen = []

    class Loop(Interpreter):
        def _library(self, ref, args, kwargs, node, frame):
            return Made(ref.name, node.lineno)

        def _loop_item_done(self, item, after, frame):
            seen.append((item, after))

    loop = Loop(ast.parse(source))
    loop.interpret()
    assert [i for i, _ in seen] == [loop.globals["a"], loop.globals["b"]]
    assert all(isinstance(after, Made) and after.name == "lib.change" for _, after in seen)
