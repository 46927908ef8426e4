"""The torch oracle on one thread: a shared 2-core machine runs it far faster so."""

from __future__ import annotations

import pytest


@pytest.fixture
def torch(torch):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield torch
    torch.set_num_threads(threads)
