"""All op specs, gathered from one file per op family."""

from __future__ import annotations

from . import (
    specs_activation,
    specs_aten_functions,
    specs_core,
    specs_elementwise,
    specs_fft,
    specs_indexing,
    specs_legacy,
    specs_linalg,
    specs_nn,
    specs_pool,
    specs_reduction,
    specs_shape,
    specs_sparse,
    specs_special_bessel,
    specs_special_gamma,
    specs_surface,
    specs_view_copies,
)

SPECS = [
    spec
    for module in (
        specs_core,
        specs_elementwise,
        specs_activation,
        specs_reduction,
        specs_shape,
        specs_indexing,
        specs_linalg,
        specs_nn,
        specs_pool,
        specs_sparse,
        specs_special_gamma,
        specs_special_bessel,
        specs_legacy,
        specs_surface,
        specs_fft,
        specs_view_copies,
        specs_aten_functions,
    )
    for spec in module.SPECS
]
