"""nn.RNNCellBase (the base of the recurrent cells) and the deprecated nn.Container."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad


@pytest.mark.parametrize(
    "make",
    ["RNNCell(3, 4, nonlinearity='relu', bias=False)", "GRUCell(3, 4)", "LSTMCell(2, 5)"],
)
def test_cells_derive_from_rnn_cell_base(torch, make):
    cells = []
    for lib in (dyngrad, torch):
        lib.manual_seed(0)
        cell = eval("lib.nn." + make, {"lib": lib})
        assert isinstance(cell, lib.nn.RNNCellBase)
        cells.append(cell)
    assert repr(cells[0]) == repr(cells[1])
    for (k, a), (j, b) in zip(cells[0].state_dict().items(), cells[1].state_dict().items()):
        assert k == j
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_rnn_cell_base_takes_the_number_of_chunks(torch):
    reprs = []
    for lib in (dyngrad, torch):
        lib.manual_seed(2)
        base = lib.nn.RNNCellBase(3, 2, True, 5)
        reprs.append((repr(base), [tuple(p.shape) for p in base.parameters()]))
    assert reprs[0] == reprs[1]


def test_container_is_deprecated_and_registers_its_modules(torch):
    results = []
    for lib in (dyngrad, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            c = lib.nn.Container(a=lib.nn.ReLU(), b=lib.nn.Linear(2, 3))
        messages = [(str(w.message), w.category) for w in caught]
        results.append((repr(c), list(c.state_dict()), messages))
    assert results[0] == results[1]
