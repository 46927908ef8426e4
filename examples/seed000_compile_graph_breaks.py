"""Seed 000's torch.compile paragraph: graph breaks, explain(), fullgraph, and a compiled step.

Dynamo captures the forward into graphs; where the code needs a tensor's value (an `if` on a
tensor, `.item()`) or calls what it cannot trace, the capture breaks and that piece runs
eagerly. `torch._dynamo.explain` (or TORCH_LOGS="graph_breaks") shows where. Only the
captured graphs get a precomputed backward; the output of a compiled call hangs from one
`CompiledFunctionBackward` node, and its gradients are eager's.
"""

import torch


def f(x, w):
    y = (x @ w).relu()
    if y.sum() > 0:  # a branch on a tensor's value: graph break
        y = y + 1
    s = y.mean().item()  # a Python number from a tensor: graph break
    return y / s


torch.manual_seed(0)
w = torch.randn(4, 3, requires_grad=True)
x = torch.randn(2, 4)

explanation = torch._dynamo.explain(f)(x, w)
print("graphs:", explanation.graph_count, "breaks:", explanation.graph_break_count)
for reason in explanation.break_reasons:
    print(f"  line {reason.user_stack[-1].lineno}: {reason.reason.splitlines()[0]}")

# fullgraph=True refuses any break: the error names the first one
try:
    torch.compile(f, fullgraph=True, backend="aot_eager")(x, w)
except Exception as exc:
    print(type(exc).__name__ + ":", str(exc).splitlines()[0])

# a compiled model: same values and gradients as eager, one node for the whole call
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1))
compiled = torch.compile(model, backend="aot_eager")
out = compiled(x)
print(out.grad_fn.name())
out.sum().backward()
compiled_grads = [p.grad.clone() for p in model.parameters()]
model.zero_grad()
model(x).sum().backward()
print(
    "same gradients:",
    all(torch.allclose(a, p.grad) for a, p in zip(compiled_grads, model.parameters())),
)
