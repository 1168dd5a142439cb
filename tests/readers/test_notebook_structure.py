"""A notebook's structure is checked by the readers, once for every caller: a cell whose ``cell_type`` is missing or
not one nbformat defines is bad input (exit 2, naming the cell's field), never a cell silently taken as "not code"
(``check leakage`` once said ``ok``, exit 0, about a notebook whose only code cell had ``"cell_type": 5``). The code
cells together are bounded like a Python file (outputs are not code and keep the notebook's own bound)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from faultlib.errors import InputError
from faultlib.readers.notebook import CELL_TYPES, CODE_MAX_BYTES, notebook_cells
from faultlib.readers.sizes import FileTooLarge
from tests.check.test_fuzz_checks import run_check

LEAK = ("import pandas as pd\nfrom sklearn.preprocessing import StandardScaler\n"
        "from sklearn.model_selection import train_test_split\nfrom sklearn.linear_model import LogisticRegression\n"
        "rows = pd.read_csv('rows.csv')\nfeatures, label = rows.drop(columns=['label']), rows['label']\n"
        "features = StandardScaler().fit_transform(features)\n"
        "f_tr, f_te, l_tr, l_te = train_test_split(features, label)\n"
        "print(LogisticRegression().fit(f_tr, l_tr).score(f_te, l_te))\n")


def _notebook(*cells: dict) -> dict:
    return {"cells": list(cells), "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def _code(source, **extra) -> dict:
    return {"cell_type": "code", "source": source, "metadata": {}, "outputs": [], "execution_count": None, **extra}


not_a_cell_type = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                            st.text(max_size=12).filter(lambda t: t not in CELL_TYPES),
                            st.lists(st.text(max_size=4), max_size=2), st.dictionaries(st.text(max_size=4),
                                                                                       st.integers(), max_size=2))


@settings(max_examples=120, deadline=2000)
@given(kind=not_a_cell_type, before=st.integers(0, 3))
def test_a_cell_type_nbformat_does_not_define_is_refused_with_its_field(kind, before):
    doc = _notebook(*[{"cell_type": "markdown", "source": "notes", "metadata": {}}] * before,
                    _code(LEAK, cell_type=kind))
    with pytest.raises(InputError) as caught:
        notebook_cells(doc, "model.ipynb")
    assert caught.value.field == f"cells[{before}].cell_type" and caught.value.path == "model.ipynb"
    assert f"cell {before + 1} " in caught.value.message and "code, markdown, raw" in caught.value.message


def test_a_cell_without_a_cell_type_is_refused():
    cell = _code(LEAK)
    del cell["cell_type"]
    with pytest.raises(InputError, match="has no 'cell_type'") as caught:
        notebook_cells(_notebook(cell), "model.ipynb")
    assert caught.value.field == "cells[0].cell_type"


@pytest.mark.parametrize("kind", CELL_TYPES)
def test_every_cell_type_nbformat_defines_is_read(kind):
    cells = notebook_cells(_notebook({"cell_type": kind, "source": "x = 1\n", "metadata": {}}, _code(["y = 2\n"])),
                           "model.ipynb")
    assert [(c.number, c.kind) for c in cells] == [(1, kind), (2, "code")]
    assert cells[1].source == "y = 2\n" and cells[0].source == ("x = 1\n" if kind == "code" else "")


def test_nbformat_3_cells_are_named_by_their_worksheet():
    doc = {"worksheets": [{"cells": [{"cell_type": "heading", "source": "Title", "level": 1}]},
                          {"cells": [{"cell_type": "code", "input": "x = 1\n"}, {"cell_type": "code", "input": 7}]}],
           "nbformat": 3}
    with pytest.raises(InputError, match="'input' is neither a string") as caught:
        notebook_cells(doc, "old.ipynb")
    assert caught.value.field == "worksheets[1].cells[1].input"
    doc["worksheets"][1]["cells"].pop()
    assert [(c.number, c.kind, c.source) for c in notebook_cells(doc, "old.ipynb")] == [(1, "heading", ""),
                                                                                     (2, "code", "x = 1\n")]


def test_check_leakage_refuses_a_damaged_cell_instead_of_saying_ok(tmp_path):
    damaged = tmp_path / "damaged.ipynb"
    damaged.write_text(json.dumps(_notebook(_code(LEAK, cell_type=5))))
    code, out = run_check("leakage", str(damaged), "--alone")
    assert code == 2 and out["error"] == "InputError", out
    assert "cells[0].cell_type" in json.dumps(out), out
    healthy = tmp_path / "healthy.ipynb"
    healthy.write_text(json.dumps(_notebook(_code(LEAK))))
    code, out = run_check("leakage", str(healthy), "--alone")
    assert code == 1 and [f["kind"] for f in out["findings"]] == ["fit_before_split"], out


def test_code_cells_are_bounded_like_a_python_file_but_outputs_are_not(tmp_path):
    line = "value = rows.shape[0] + 1\n"
    code = [line] * (CODE_MAX_BYTES // len(line) // 2 + 1)
    with pytest.raises(FileTooLarge, match="code \\(its code cells together\\)") as caught:
        notebook_cells(_notebook(_code(code), _code(code)), "model.ipynb")
    assert "FAULTLIB_MAX_FILE_BYTES" in caught.value.message
    big_output = {"output_type": "stream", "name": "stdout", "text": "x" * (2 * CODE_MAX_BYTES)}
    plot = tmp_path / "plot.ipynb"
    plot.write_text(json.dumps(_notebook(_code(LEAK, outputs=[big_output]))))
    code, out = run_check("leakage", str(plot), "--alone")
    assert code == 1 and [f["kind"] for f in out["findings"]] == ["fit_before_split"], out
