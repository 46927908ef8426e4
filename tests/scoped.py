"""A stand-in for nn.Module that opens the module scope as `nn.Module.__call__` does.

Tests of the scope machinery (error annotation, graph collapsing) use it to build tiny
module trees without depending on nn's own layers.
"""

from __future__ import annotations

from dyngrad.autograd import scope


class ScopedModule:
    """Children in `_modules`, parameters in `_parameters`, and a scoped `__call__`."""

    def __init__(self, **children):
        self._modules = children
        self._parameters = {}

    def __call__(self, *args):
        scope.enter(self)
        try:
            return self.forward(*args)
        except Exception as exc:
            scope.annotate(exc, args)
            raise
        finally:
            scope.exit()
