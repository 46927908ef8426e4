import dyngrad as torch

# Seed 004, section 6.2 ("开启异常检测"): anomaly mode names the backward node that produced
# NaN. The article shows only the switch; here it is with a forward that makes a NaN gradient:
# log(0) * 0 is nan in the forward, and LogBackward0 computes 0 / 0 in the backward.

torch.autograd.set_detect_anomaly(True)
# 训练代码...
x = torch.tensor([0.0, 1.0], requires_grad=True)
loss = (torch.log(x) * 0).sum()
try:
    loss.backward()
except RuntimeError as e:
    # 遇到NaN/inf时会看到类似
    # Function LogBackward returned nan values in its 0th output.
    # (PyTorch 2.x names the node LogBackward0, and quotes it.) Anomaly mode also prints, on
    # stderr, the stack of the forward call that created the node.
    print("RuntimeError:", str(e).splitlines()[0])
torch.autograd.set_detect_anomaly(False)

# 我自己常在排查时打印x.min()、x.max()和x.isfinite().all()来快速确认数据源是否正常。
h = torch.log(x)
print(h.min(), h.max(), h.isfinite().all())  # tensor(-inf, ...) tensor(0., ...) tensor(False)

# Without anomaly mode the NaN flows silently into the gradient:
x.grad = None
(torch.log(x) * 0).sum().backward()
print(x.grad)  # tensor([nan, 0.])
