"""`python -m dyngrad ...`: see `dyngrad.cli`."""

from __future__ import annotations

from .cli import main

raise SystemExit(main())
