"""`torch` in a DataLoader worker of a `dyngrad run` script: dyngrad, under the alias.

Only `dyngrad.install_as_torch()` puts this folder on sys.path (See Note [torch alias in
worker processes] in dyngrad/_torch_alias.py).
"""

from dyngrad._torch_alias import become_torch

become_torch()
