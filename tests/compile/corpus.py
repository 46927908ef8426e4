"""The compile corpus: functions and modules whose graphs and breaks dyngrad must report as
PyTorch's Dynamo does. Loaded with `torch` bound to dyngrad or to the real torch (see
`load`), so both run the same source lines. Each case: (name, callable, args maker)."""

# ruff: noqa: F821 - `torch` is bound by `load`

import pathlib

HERE = pathlib.Path(__file__)


def load(lib) -> dict:
    """The corpus's cases, with `torch` bound to `lib` (run from this file: same lines)."""
    namespace = {"torch": lib, "__name__": "corpus_" + lib.__name__, "__file__": str(HERE)}
    exec(compile(HERE.read_text(), str(HERE), "exec"), namespace)
    return namespace["cases"]()


def cases() -> dict:
    def no_break(x):
        return (x * 2).sin() + 1

    def branch(x):
        y = x * 2
        if y.sum() > 0:
            return y + 1
        return y - 1

    def branch_twice(x):
        y = x + 1
        if y.sum() > 0:
            y = y * 2
        if y.sum() > 1:
            y = y * 3
        return y

    def print_mid(x):
        a = x.sin()
        print("corpus: print_mid")
        return a.cos()

    def print_first(x):
        print("corpus: print_first")
        return x + 1

    def print_last(x):
        y = x + 1
        print("corpus: print_last")
        return y

    def print_tensor(x):
        y = x * 3
        print(y.shape)
        return y + 1

    def item_mid(x):
        s = x.sum().item()
        return x * s

    def item_twice(x):
        a = x + 1
        b = a.sum().item()
        c = x * 2
        d = c.max().item()
        return a + b + d

    def float_of(x):
        return x * float(x.sum())

    def int_of(x):
        y = x + 1
        n = int(y.argmax())
        return y * n

    def tolist_float(x):
        y = x + 1
        values = y.tolist()
        return y * len(values)

    def tolist_only(x):
        return x.tolist()

    def tolist_int(x):
        y = x + 1
        n = (y > 0).long().tolist()
        return y * len(n)

    def numpy_call(x):
        y = x + 1
        y.numpy()
        return y * 2

    def str_of(x):
        y = x + 1
        s = str(y)
        return y * len(s)

    def user_break(x):
        a = x + 1
        torch._dynamo.graph_break()
        return a * 2

    def helper(x):
        y = x + 1
        print("corpus: helper")
        return y * 2

    def nested_break(x):
        a = x.sin()
        b = helper(a)
        return b.cos()

    def clean_helper(x):
        return x * 2 + 1

    def nested_clean(x):
        return clean_helper(x.sin()).cos()

    def deep_helper(x):
        return helper(x + 1) - 1

    def nested_deep(x):
        a = x * 3
        return deep_helper(a).exp()

    def loop_break(x):
        for _ in range(3):
            x = x + 1
            if x.sum() > 0:
                x = x * 2
        return x

    def loop_clean(x):
        for _ in range(3):
            x = x + 1
        return x * 2

    def loop_header_break(x):
        for _ in range(int(x.sum() > 0) + 1):
            x = x + 1
        return x

    def while_break(x):
        n = 0
        while x.sum() > 100:
            x = x / 2
            n += 1
        return x + n

    def no_grad_mid(x):
        with torch.no_grad():
            y = x * 2
            print("corpus: no_grad_mid")
            z = y + 1
        return z * x

    def no_grad_clean(x):
        with torch.no_grad():
            y = x * 2
        return y + x

    def enable_grad_inside(x):
        with torch.enable_grad():
            y = x.exp()
        return y.sum()

    def shape_logic(x):
        if x.shape[0] > 2:
            return x * 2
        return x + 2

    def return_tuple(x):
        return x + 1, x.shape[0]

    def python_scalar_math(x):
        k = 3 * 2 + 1
        return x * k

    def break_then_branch(x):
        y = x.relu()
        torch._dynamo.graph_break()
        if y.mean() > 0.5:
            return y * 2
        return y

    def any_branch(x):
        if (x > 0).any():
            return x.abs()
        return x

    def disabled_helper_caller(x):
        return disabled_helper(x + 1) * 2

    @torch.compiler.disable
    def disabled_helper(x):
        return x - 1

    def two_items_no_ops_between(x):
        a = x.max().item()
        b = x.min().item()
        return x * (a - b)

    def autocast_clean(x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = x * 2
        return y.float() + 1

    def autocast_break(x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = x * 2
            print("corpus: autocast_break")
            z = y + 1
        return z.float() * 3

    def grad_mode_break(x):
        y = x * 2
        with torch.set_grad_enabled(False):
            n = y.sum().item()
        return y + n

    class Branchy(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(4, 4)
            with torch.no_grad():
                self.lin.weight.fill_(0.1)

        def forward(self, x):
            y = self.lin(x)
            if y.sum() > -100:
                return y.relu()
            return y

    class Clean(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = torch.nn.Linear(4, 8)
            self.b = torch.nn.Linear(8, 4)

        def forward(self, x):
            return self.b(torch.relu(self.a(x)))

    class Inner(torch.nn.Module):
        def forward(self, x):
            y = x * 2
            print("corpus: Inner")
            return y + 1

    class Outer(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = Inner()

        def forward(self, x):
            a = x.sin()
            b = self.inner(a)
            return b.cos()

    class Hooked(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(4, 4)
            self.lin.register_forward_hook(lambda mod, inp, out: out * 2)

        def forward(self, x):
            return self.lin(x) + 1

    class ItemModule(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(4, 4)

        def forward(self, x):
            y = self.lin(x)
            scale = y.abs().max().item()
            return y / scale

    class Seq(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Tanh(), Inner())

        def forward(self, x):
            return self.body(x) * 2

    # fixed inputs and weights: the branches taken (and so the graphs) must not hang on an RNG
    def vec():
        return (torch.tensor([0.5, -0.25, 1.0]),)

    def mat():
        return (torch.arange(8.0).reshape(2, 4) / 8 - 0.25,)

    functions = [
        no_break, branch, branch_twice, print_mid, print_first, print_last, print_tensor,
        item_mid, item_twice, float_of, int_of, tolist_float, tolist_only, tolist_int,
        numpy_call, str_of, user_break, nested_break, nested_clean, nested_deep, loop_break,
        loop_clean, loop_header_break, while_break, no_grad_mid, no_grad_clean,
        enable_grad_inside, shape_logic, return_tuple, python_scalar_math, break_then_branch,
        any_branch, disabled_helper_caller, two_items_no_ops_between, autocast_clean,
        autocast_break, grad_mode_break,
    ]  # fmt: skip
    found = {f.__name__: (f, vec) for f in functions}
    for cls in (Branchy, Clean, Outer, Hooked, ItemModule, Seq):
        found[cls.__name__] = (cls, mat)
    return found
