import random

import numpy as np
import dyngrad as torch

# Seed 004, section 6.4 ("固定随机种子保证实验可复现"): the article's set_seed, unchanged but for
# the import line. On a CPU, torch.cuda.manual_seed_all does nothing and the cudnn flags are
# plain settings; they are kept so the same function runs everywhere.


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False


set_seed(42)
a = (random.random(), np.random.rand(), torch.randn(3))
set_seed(42)
b = (random.random(), np.random.rand(), torch.randn(3))
print(a[0] == b[0], a[1] == b[1], torch.equal(a[2], b[2]))  # True True True
print(torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark)  # True False
