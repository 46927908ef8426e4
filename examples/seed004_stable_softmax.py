import dyngrad as torch

# Seed 004, section 4.3 ("自定义反向传播的推荐场景"): a softmax with its own backward. The
# article's class, unchanged but for the import line (with the `@` of `@staticmethod`
# restored), then checked against autograd's own gradient and with gradcheck.


class StableSoftmax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        max_val = x.max(dim=-1, keepdim=True).values
        exp_x = torch.exp(x - max_val)
        out = exp_x / exp_x.sum(dim=-1, keepdim=True)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad_output):
        (out,) = ctx.saved_tensors
        s = (grad_output * out).sum(dim=-1, keepdim=True)
        grad_input = out * (grad_output - s)
        return grad_input


x = torch.tensor([[1.0, 2.0, 3.0], [1000.0, 1000.0, 999.0]], requires_grad=True)
out = StableSoftmax.apply(x)
print(out)

# The naive formula overflows on the second row: exp(1000) is inf, and inf / inf is nan.
naive = torch.exp(x) / torch.exp(x).sum(dim=-1, keepdim=True)
print(naive)

# The backward formula is softmax's Jacobian-vector product: out * (g - sum(g * out)).
weights = torch.tensor([[1.0, 0.0, -1.0], [0.5, 2.0, 0.0]])
(out * weights).sum().backward()
print(x.grad)

x64 = torch.tensor([[0.1, -0.4, 0.3], [2.0, 1.0, 0.5]], dtype=torch.float64, requires_grad=True)
print(torch.autograd.gradcheck(StableSoftmax.apply, (x64,)))  # True
