"""The bad-input fuzz table, part four: nn.functional (linear, conv, pooling, losses, norms).

Inputs are the names of `fuzz_inputs.ARRAYS`: `img` (1, 2, 5, 5), `seq` (1, 2, 6), `w1`/`w2`
conv weights, `logits` (4, 3) with `target`, `emb` an embedding table.
"""

from __future__ import annotations

NN = [
    # linear and convolution
    "F.linear(v, v)",
    "F.linear(f, f)",
    "F.linear(f, t.ones(4, 3))",
    "F.linear(f, t.ones(4, 3), v)",
    "F.linear(f, t.ones(4, 3), t.ones(3))",
    "F.linear(f, v[:3])",
    "F.linear(z, z)",
    "F.linear(i, i)",
    "F.linear(e, t.ones(2, 0))",
    "F.linear(f, t.ones(3))",
    "F.linear(v, t.ones(2, 4), t.ones(2))",
    "F.linear(f, t.ones(2, 3, dtype=t.float64))",
    "F.linear(f, f.t())",
    "F.linear(h, h)",
    "F.conv1d(seq, w1)",
    "F.conv1d(seq, w1, stride=0)",
    "F.conv1d(seq, w1, padding=-1)",
    "F.conv1d(seq, w1, groups=2)",
    "F.conv1d(seq, w1, dilation=0)",
    "F.conv1d(seq[0], w1)",
    "F.conv1d(seq, w1, padding='same', stride=2)",
    "F.conv1d(seq, w1, padding='bogus')",
    "F.conv1d(seq, w2)",
    "F.conv1d(seq, w1, v)",
    "F.conv1d(seq, t.ones(3, 2, 9))",
    "F.conv1d(seq.long(), w1)",
    "F.conv1d(seq, w1, stride=1.5)",
    "F.conv2d(img, w2)",
    "F.conv2d(img, w2, stride=0)",
    "F.conv2d(img, w2, padding=-1)",
    "F.conv2d(img, w2, groups=3)",
    "F.conv2d(img, w1)",
    "F.conv2d(img[0], w2)",
    "F.conv2d(img, w2, padding=(1,))",
    "F.conv2d(img, t.ones(3, 2, 7, 7))",
    "F.conv2d(img, w2, bias=t.ones(2))",
    "F.conv2d(img, w2, padding='same')",
    "F.conv2d(img, w2, stride=(1, 2, 3))",
    "F.conv2d(img.double(), w2)",
    "F.conv2d(t.ones(0, 2, 5, 5), w2)",
    "F.conv2d(t.ones(1, 2, 0, 5), w2)",
]


def nn_functional():
    yield from NN
    window_args = [
        "2",
        "0",
        "-1",
        "6",
        "2, stride=0",
        "2, padding=2",
        "2, padding=-1",
        "1.5",
        "(2, 2, 2)",
        "3, 1, 1",
        "2, ceil_mode=True",
        "(0, 2)",
        "None",
        "2, dilation=0",
        "2, stride=-1",
    ]
    size_args = ["2", "0", "-1", "6", "1.5", "(2, 2, 2)", "None", "(None, 3)", "(0, 2)"]
    for pool in [
        "max_pool2d",
        "avg_pool2d",
        "max_pool1d",
        "avg_pool1d",
        "adaptive_avg_pool2d",
        "adaptive_max_pool2d",
    ]:
        x = "seq" if "1d" in pool else "img"
        for args in size_args if pool.startswith("adaptive") else window_args:
            yield f"F.{pool}({x}, {args})"
            yield f"F.{pool}({x}[0], {args})"
        yield f"F.{pool}(t.ones(1, 2, 0, 5), 2)"
        yield f"F.{pool}({x}.long(), 2)"
    for idx in [
        "vi",
        "t.tensor([5])",
        "t.tensor([-1])",
        "t.tensor([1.0])",
        "zi",
        "ei",
        "t.tensor([[0, 1]])",
        "b",
        "t.tensor([0], dtype=t.int32)",
    ]:
        yield f"F.embedding({idx}, emb)"
        yield f"F.embedding({idx}, emb, padding_idx=7)"
        yield f"F.embedding({idx}, emb, max_norm=-1.0)"
        yield f"F.embedding({idx}, v)"
    for loss in ["cross_entropy", "nll_loss"]:
        for target in [
            "target",
            "t.tensor([0, 3, 1, 2])",
            "t.tensor([0, -1, 1, 2])",
            "t.tensor([0., 1., 1., 2.])",
            "target[:3]",
            "target.int()",
            "t.tensor([0, -100, 1, 2])",
            "logits.softmax(1)",
            "zi",
            "target.view(2, 2)",
            "t.tensor([0, 7, 1, 2])",
        ]:
            yield f"F.{loss}(logits, {target})"
            yield f"F.{loss}(logits, {target}, ignore_index=7)"
            yield f"F.{loss}(logits, {target}, reduction='bogus')"
        for x in ["logits[0]", "z", "e", "logits.long()", "t.ones(0, 3)"]:
            yield f"F.{loss}({x}, target)"
        yield f"F.{loss}(logits, target, weight=t.ones(2))"
        yield f"F.{loss}(logits, target, weight=t.ones(3))"
        yield (
            f"F.{loss}(logits, target, label_smoothing=1.5)"
            if loss == "cross_entropy"
            else f"F.{loss}(logits, target, weight=t.ones(3, 1))"
        )
    for loss in [
        "mse_loss",
        "l1_loss",
        "smooth_l1_loss",
        "huber_loss",
        "binary_cross_entropy",
        "binary_cross_entropy_with_logits",
        "kl_div",
        "soft_margin_loss",
    ]:
        for a, b in [
            ("f", "f"),
            ("f", "v"),
            ("f", "i"),
            ("i", "i"),
            ("f", "f[0]"),
            ("e", "e"),
            ("z", "z"),
            ("f.sigmoid()", "f.sigmoid() * 2"),
            ("h", "f"),
            ("b", "b"),
        ]:
            yield f"F.{loss}({a}, {b})"
        yield f"F.{loss}(f, f, reduction='bogus')"
    for p in ["0.5", "-0.1", "1.5", "1.0", "0.0", "nan", "True"]:
        for fn in ["dropout", "dropout2d", "dropout1d"]:
            yield f"F.{fn}(img, {p})"
            yield f"F.{fn}(i.float(), p={p}, training=False)"
    for shape in ["(3,)", "(2, 3)", "(4,)", "3", "()", "(0,)", "[3]", "(1.5,)"]:
        for x in ["f", "i", "e", "z", "h"]:
            yield f"F.layer_norm({x}, {shape})"
        yield f"F.layer_norm(f, {shape}, weight=t.ones(4))"
        yield f"F.rms_norm(f, {shape})"
    for groups in ["1", "2", "3", "0", "-1", "1.5"]:
        yield f"F.group_norm(img, {groups})"
        yield f"F.group_norm(seq, {groups}, weight=t.ones(3))"
    for stats in [
        "t.zeros(2), t.ones(2)",
        "t.zeros(3), t.ones(3)",
        "None, None",
        "t.zeros(2), None",
        "t.zeros(2).long(), t.ones(2)",
    ]:
        for x in ["img", "seq", "f", "t.ones(1, 2)", "z", "e", "img.long()"]:
            yield f"F.batch_norm({x}, {stats})"
            yield f"F.batch_norm({x}, {stats}, training=True)"
        yield f"F.instance_norm(img, {stats})"
    for args in [
        "size=7",
        "size=(7, 7)",
        "scale_factor=2",
        "scale_factor=0",
        "scale_factor=-1",
        "size=0",
        "size=-1",
        "size=2.5",
        "size=(7,)",
        "",
        "size=7, scale_factor=2",
        "scale_factor=0.1",
        "size=7, mode='linear'",
        "size=7, mode='bilinear'",
        "size=7, mode='bogus'",
        "scale_factor=nan",
        "scale_factor=2, mode='nearest-exact'",
        "size=(3, 3), mode='bicubic'",
        "size=7, mode='bilinear', align_corners=True",
        "size=7, align_corners=True",
    ]:
        for x in ["img", "seq", "f", "img.long()"]:
            yield f"F.interpolate({x}, {args})"
    for fn in [
        "gelu",
        "silu",
        "softplus",
        "elu",
        "leaky_relu",
        "hardtanh",
        "relu6",
        "mish",
        "logsigmoid",
        "softsign",
        "hardswish",
        "hardsigmoid",
        "selu",
        "celu",
        "glu",
        "softmin",
        "tanhshrink",
        "softshrink",
        "hardshrink",
        "normalize",
        "gumbel_softmax",
    ]:
        for x in ["f", "i", "b", "h", "z", "e", "u8"]:
            yield f"F.{fn}({x})"
    yield from [
        "F.gelu(f, approximate='bogus')",
        "F.softplus(f, beta=0)",
        "F.elu(f, alpha=-1)",
        "F.leaky_relu(f, 'a')",
        "F.hardtanh(f, 1, 0)",
        "F.glu(v, 0)",
        "F.glu(f, 1)",
        "F.softshrink(f, -1)",
        "F.normalize(f, p=0)",
        "F.celu(f, alpha=0)",
        "F.threshold(f, nan, 1)",
        "F.threshold(i, 0.5, 1.5)",
        "F.softmax(f)",
        "F.softmax(f, 5)",
        "F.softmax(ei, 0)",
        "F.log_softmax(ei, 0)",
        "F.softmax(e, 0)",
        "F.softmax(i, 0)",
        "F.softmax(i, 0, dtype=t.float32)",
        "F.cosine_similarity(f, v)",
        "F.cosine_similarity(f, f, dim=5)",
        "F.pairwise_distance(f, v)",
        "F.pixel_shuffle(img, 3)",
        "F.pixel_shuffle(t.ones(1, 4, 2, 2), 2)",
        "F.pixel_unshuffle(img, 2)",
        "F.unfold(img, 2)",
        "F.unfold(img, 0)",
        "F.unfold(seq, 2)",
        "F.fold(t.ones(1, 8, 16), (5, 5), 2)",
        "F.fold(t.ones(1, 8, 3), (5, 5), 2)",
    ]


FAMILIES = {"nn": nn_functional}
