"""`torch._dynamo.config`: the knobs dyngrad's capture reads (module attributes, as PyTorch's)."""

from __future__ import annotations

import os

# How many guarded entries one function keeps before it runs eagerly from then on (PyTorch
# renamed cache_size_limit to recompile_limit; both names are read, the smaller wins).
recompile_limit = 8
cache_size_limit = 8
accumulated_cache_size_limit = 256
# False: `Tensor.item()` (and int()/float() of a tensor) breaks the graph, as PyTorch's default.
capture_scalar_outputs = os.environ.get("TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS", "0") == "1"
# Accepted for compatibility: capture never fails in dyngrad (the function always runs eagerly
# underneath), so there is no compile error to suppress.
suppress_errors = False
# After a size changes, mark that dimension dynamic instead of recompiling again (PyTorch's
# "automatic dynamic shapes").
automatic_dynamic_shapes = True
verbose = False
# dyngrad only: run a compiled call again from its trace, without its Python, where that is
# shown to do what the Python would (docs/compile.md, Note [Replay] in replay.py).
replay = True


def limit() -> int:
    return min(recompile_limit, cache_size_limit)
