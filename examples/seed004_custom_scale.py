import dyngrad as torch

# Seed 004, section 3.2 ("动态图不能自定义反向传播的情况比想象中多"): a custom backward with
# torch.autograd.Function. The article's class, unchanged but for the import line (the
# article's page lost the `@` of `@staticmethod`; it is restored), then used and checked.


class CustomScale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.save_for_backward(x, alpha)
        return x * alpha

    @staticmethod
    def backward(ctx, grad_output):
        x, alpha = ctx.saved_tensors
        grad_x = grad_output * alpha
        grad_alpha = (grad_output * x).sum()
        return grad_x, grad_alpha


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
alpha = torch.tensor(2.0, requires_grad=True)
y = CustomScale.apply(x, alpha)
print(y)  # tensor([2., 4., 6.], grad_fn=<CustomScaleBackward>): the node is named for the class
print(y.grad_fn.name())  # CustomScaleBackward
y.sum().backward()
print(x.grad, alpha.grad)  # tensor([2., 2., 2.]) tensor(6.)

# The article's warning about sum(): with a scalar alpha, the gradient must be summed to
# alpha's shape; gradcheck confirms the formula in float64.
x64 = torch.tensor([0.5, -1.0, 2.0], dtype=torch.float64, requires_grad=True)
alpha64 = torch.tensor(1.5, dtype=torch.float64, requires_grad=True)
print(torch.autograd.gradcheck(CustomScale.apply, (x64, alpha64)))  # True

# Returning the wrong number of gradients is an error, with PyTorch's message:


class BadScale(CustomScale):
    @staticmethod
    def backward(ctx, grad_output):
        x, alpha = ctx.saved_tensors
        return grad_output * alpha


try:
    BadScale.apply(x, alpha).sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
