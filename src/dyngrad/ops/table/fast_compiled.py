"""The fast forms, compiled by Python's own bytecode cache (Note [Generated fast forms]
in fast_codegen.py). Written by `python -m dyngrad.ops.table.fast_codegen`: do not edit.
"""

CODES = {}  # a fast form's source -> its code


SOURCE = 'def fast_form(x):\n    if recording.autocast is not None:  # amp hook: See Note [Autocast hook]\n        return apply(op, (x,))\n    try:\n        xd = x._data\n    except AttributeError:\n        raise _not_a_tensor(op, x) from None\n    # integer and bool tensors take the general path: their promotion rules differ\n    if type(xd) is not _ndarray or xd.dtype.kind != "f":\n        return apply(op, (x,))\n    out = fwd(np, xd)\n    if type(out) is not _ndarray:\n        out = np.array(out)  # a NumPy scalar from a full reduction\n    if x._requires_grad and grad_state.enabled:\n        node = _new(node_cls)\n        # new_tensor(out, True, node)\n        t = _new(Tensor)\n        t._data = out\n        t._requires_grad = True\n        t._grad_fn = node\n        t._out_nr = 0\n        t._grad = None\n        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()\n        t._base = None\n        node._seq = _next_seq()\n        fn = x._grad_fn\n        if x._base is not None:\n            ex = gradient_edge(x)\n        elif fn is not None:\n            ex = (fn, x._out_nr)\n        else:  # a leaf\n            ex = (x._accum or grad_accumulator(x), 0)\n        node.next_functions = (ex,)\n        node._meta = ((xd.shape, xd.dtype),)\n        node._attrs = _EMPTY\n        if anomaly.state.enabled:\n            anomaly.record(node)\n        saved = _new(SavedOutput)  # See Note [Graph ownership]: not the tensor\n        saved.data = out\n        saved.version_counter = counter = t._version_counter\n        saved.output_nr = 0\n        saved._tensor = None\n        node._saved = {"out": saved}\n        node._versions = {"out": counter.value}\n        if _hooks_active:  # See Note [Saved tensor hooks]\n            pack_saved(node, t)\n    else:\n        # new_tensor(out, False, None)\n        t = _new(Tensor)\n        t._data = out\n        t._requires_grad = False\n        t._grad_fn = None\n        t._out_nr = 0\n        t._grad = None\n        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()\n        t._base = None\n        if x._requires_grad:  # grad mode is off\n            note_no_grad(t, (x,))\n    if recording.observer is not None:  # See Note [Op observer]\n        recording.observer(op, (x,), _EMPTY, t)\n    return t\n'


def fast_form(x):
    if recording.autocast is not None:  # amp hook: See Note [Autocast hook]
        return apply(op, (x,))
    try:
        xd = x._data
    except AttributeError:
        raise _not_a_tensor(op, x) from None
    # integer and bool tensors take the general path: their promotion rules differ
    if type(xd) is not _ndarray or xd.dtype.kind != "f":
        return apply(op, (x,))
    out = fwd(np, xd)
    if type(out) is not _ndarray:
        out = np.array(out)  # a NumPy scalar from a full reduction
    if x._requires_grad and grad_state.enabled:
        node = _new(node_cls)
        # new_tensor(out, True, node)
        t = _new(Tensor)
        t._data = out
        t._requires_grad = True
        t._grad_fn = node
        t._out_nr = 0
        t._grad = None
        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()
        t._base = None
        node._seq = _next_seq()
        fn = x._grad_fn
        if x._base is not None:
            ex = gradient_edge(x)
        elif fn is not None:
            ex = (fn, x._out_nr)
        else:  # a leaf
            ex = (x._accum or grad_accumulator(x), 0)
        node.next_functions = (ex,)
        node._meta = ((xd.shape, xd.dtype),)
        node._attrs = _EMPTY
        if anomaly.state.enabled:
            anomaly.record(node)
        saved = _new(SavedOutput)  # See Note [Graph ownership]: not the tensor
        saved.data = out
        saved.version_counter = counter = t._version_counter
        saved.output_nr = 0
        saved._tensor = None
        node._saved = {"out": saved}
        node._versions = {"out": counter.value}
        if _hooks_active:  # See Note [Saved tensor hooks]
            pack_saved(node, t)
    else:
        # new_tensor(out, False, None)
        t = _new(Tensor)
        t._data = out
        t._requires_grad = False
        t._grad_fn = None
        t._out_nr = 0
        t._grad = None
        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()
        t._base = None
        if x._requires_grad:  # grad mode is off
            note_no_grad(t, (x,))
    if recording.observer is not None:  # See Note [Op observer]
        recording.observer(op, (x,), _EMPTY, t)
    return t


CODES[SOURCE] = fast_form.__code__


SOURCE = 'def fast_form(x):\n    if recording.autocast is not None:  # amp hook: See Note [Autocast hook]\n        return apply(op, (x,))\n    try:\n        xd = x._data\n    except AttributeError:\n        raise _not_a_tensor(op, x) from None\n    # integer and bool tensors take the general path: their promotion rules differ\n    if type(xd) is not _ndarray or xd.dtype.kind != "f":\n        return apply(op, (x,))\n    out = fwd(np, xd)\n    if type(out) is not _ndarray:\n        out = np.array(out)  # a NumPy scalar from a full reduction\n    if x._requires_grad and grad_state.enabled:\n        node = _new(node_cls)\n        # new_tensor(out, True, node)\n        t = _new(Tensor)\n        t._data = out\n        t._requires_grad = True\n        t._grad_fn = node\n        t._out_nr = 0\n        t._grad = None\n        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()\n        t._base = None\n        node._seq = _next_seq()\n        fn = x._grad_fn\n        if x._base is not None:\n            ex = gradient_edge(x)\n        elif fn is not None:\n            ex = (fn, x._out_nr)\n        else:  # a leaf\n            ex = (x._accum or grad_accumulator(x), 0)\n        node.next_functions = (ex,)\n        node._meta = ((xd.shape, xd.dtype),)\n        node._attrs = _EMPTY\n        if anomaly.state.enabled:\n            anomaly.record(node)\n        node._saved = {"x": x}\n        node._versions = {"x": x._version_counter.value}\n        if _hooks_active:  # See Note [Saved tensor hooks]\n            pack_saved(node, t)\n    else:\n        # new_tensor(out, False, None)\n        t = _new(Tensor)\n        t._data = out\n        t._requires_grad = False\n        t._grad_fn = None\n        t._out_nr = 0\n        t._grad = None\n        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()\n        t._base = None\n        if x._requires_grad:  # grad mode is off\n            note_no_grad(t, (x,))\n    if recording.observer is not None:  # See Note [Op observer]\n        recording.observer(op, (x,), _EMPTY, t)\n    return t\n'


def fast_form(x):
    if recording.autocast is not None:  # amp hook: See Note [Autocast hook]
        return apply(op, (x,))
    try:
        xd = x._data
    except AttributeError:
        raise _not_a_tensor(op, x) from None
    # integer and bool tensors take the general path: their promotion rules differ
    if type(xd) is not _ndarray or xd.dtype.kind != "f":
        return apply(op, (x,))
    out = fwd(np, xd)
    if type(out) is not _ndarray:
        out = np.array(out)  # a NumPy scalar from a full reduction
    if x._requires_grad and grad_state.enabled:
        node = _new(node_cls)
        # new_tensor(out, True, node)
        t = _new(Tensor)
        t._data = out
        t._requires_grad = True
        t._grad_fn = node
        t._out_nr = 0
        t._grad = None
        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()
        t._base = None
        node._seq = _next_seq()
        fn = x._grad_fn
        if x._base is not None:
            ex = gradient_edge(x)
        elif fn is not None:
            ex = (fn, x._out_nr)
        else:  # a leaf
            ex = (x._accum or grad_accumulator(x), 0)
        node.next_functions = (ex,)
        node._meta = ((xd.shape, xd.dtype),)
        node._attrs = _EMPTY
        if anomaly.state.enabled:
            anomaly.record(node)
        node._saved = {"x": x}
        node._versions = {"x": x._version_counter.value}
        if _hooks_active:  # See Note [Saved tensor hooks]
            pack_saved(node, t)
    else:
        # new_tensor(out, False, None)
        t = _new(Tensor)
        t._data = out
        t._requires_grad = False
        t._grad_fn = None
        t._out_nr = 0
        t._grad = None
        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()
        t._base = None
        if x._requires_grad:  # grad mode is off
            note_no_grad(t, (x,))
    if recording.observer is not None:  # See Note [Op observer]
        recording.observer(op, (x,), _EMPTY, t)
    return t


CODES[SOURCE] = fast_form.__code__


SOURCE = 'def fast_form(x, y):\n    if recording.autocast is not None:  # amp hook: See Note [Autocast hook]\n        return apply(op, (x, y))\n    xd = x._data\n    # integer and bool tensors take the general path: their promotion rules differ\n    if type(xd) is not _ndarray or xd.dtype.kind != "f":\n        return apply(op, (x, y))\n    if isinstance(y, Tensor):\n        yd = y._data\n        if xd.dtype != yd.dtype:\n            return apply(op, (x, y))\n        # `record`\'s mask of the inputs that require grad (no `|` or `<<`: not fast on bools)\n        if y._requires_grad:\n            mask = 3 if x._requires_grad else 2\n        else:\n            mask = x._requires_grad\n    elif type(y) is float or type(y) is int:\n        yd = y  # so `yd is y` says that y is a number\n        mask = x._requires_grad\n    else:\n        return apply(op, (x, y))\n    try:\n        out = fwd(np, xd, yd)\n    except _ERRORS as exc:\n        raise translate(op, (x, y), _EMPTY, exc) from None\n    # dense * sparse is sparse: See Note [Sparse COO arrays]\n    if type(out) is not _ndarray and type(out) is not SparseCOO:\n        out = np.asarray(out)\n    if mask and grad_state.enabled:\n        node = _new(node_cls)\n        # new_tensor(out, True, node)\n        t = _new(Tensor)\n        t._data = out\n        t._requires_grad = True\n        t._grad_fn = node\n        t._out_nr = 0\n        t._grad = None\n        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()\n        t._base = None\n        node._seq = _next_seq()\n        if mask == 3:  # x and y require grad\n            fn = x._grad_fn\n            if x._base is not None:\n                ex = gradient_edge(x)\n            elif fn is not None:\n                ex = (fn, x._out_nr)\n            else:  # a leaf\n                ex = (x._accum or grad_accumulator(x), 0)\n            fn = y._grad_fn\n            if y._base is not None:\n                ey = gradient_edge(y)\n            elif fn is not None:\n                ey = (fn, y._out_nr)\n            else:  # a leaf\n                ey = (y._accum or grad_accumulator(y), 0)\n            node.next_functions = (ex, ey)\n            node._meta = ((xd.shape, xd.dtype), (yd.shape, yd.dtype))\n            node._attrs = _EMPTY\n            if anomaly.state.enabled:\n                anomaly.record(node)\n            node._saved = node._versions = _EMPTY\n        elif mask == 1:  # only x requires grad\n            fn = x._grad_fn\n            if x._base is not None:\n                ex = gradient_edge(x)\n            elif fn is not None:\n                ex = (fn, x._out_nr)\n            else:  # a leaf\n                ex = (x._accum or grad_accumulator(x), 0)\n            node.next_functions = (ex, _NO_EDGE)\n            node._meta = ((xd.shape, xd.dtype), None)\n            node._attrs = _EMPTY\n            if anomaly.state.enabled:\n                anomaly.record(node)\n            node._saved = node._versions = _EMPTY\n        else:  # only y requires grad\n            fn = y._grad_fn\n            if y._base is not None:\n                ey = gradient_edge(y)\n            elif fn is not None:\n                ey = (fn, y._out_nr)\n            else:  # a leaf\n                ey = (y._accum or grad_accumulator(y), 0)\n            node.next_functions = (_NO_EDGE, ey)\n            node._meta = (None, (yd.shape, yd.dtype))\n            node._attrs = _EMPTY\n            if anomaly.state.enabled:\n                anomaly.record(node)\n            node._saved = node._versions = _EMPTY\n    else:\n        # new_tensor(out, False, None)\n        t = _new(Tensor)\n        t._data = out\n        t._requires_grad = False\n        t._grad_fn = None\n        t._out_nr = 0\n        t._grad = None\n        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()\n        t._base = None\n        if mask:  # grad mode is off\n            note_no_grad(t, (x, y))\n    if recording.observer is not None:  # See Note [Op observer]\n        recording.observer(op, (x, y), _EMPTY, t)\n    return t\n'


def fast_form(x, y):
    if recording.autocast is not None:  # amp hook: See Note [Autocast hook]
        return apply(op, (x, y))
    xd = x._data
    # integer and bool tensors take the general path: their promotion rules differ
    if type(xd) is not _ndarray or xd.dtype.kind != "f":
        return apply(op, (x, y))
    if isinstance(y, Tensor):
        yd = y._data
        if xd.dtype != yd.dtype:
            return apply(op, (x, y))
        # `record`'s mask of the inputs that require grad (no `|` or `<<`: not fast on bools)
        if y._requires_grad:
            mask = 3 if x._requires_grad else 2
        else:
            mask = x._requires_grad
    elif type(y) is float or type(y) is int:
        yd = y  # so `yd is y` says that y is a number
        mask = x._requires_grad
    else:
        return apply(op, (x, y))
    try:
        out = fwd(np, xd, yd)
    except _ERRORS as exc:
        raise translate(op, (x, y), _EMPTY, exc) from None
    # dense * sparse is sparse: See Note [Sparse COO arrays]
    if type(out) is not _ndarray and type(out) is not SparseCOO:
        out = np.asarray(out)
    if mask and grad_state.enabled:
        node = _new(node_cls)
        # new_tensor(out, True, node)
        t = _new(Tensor)
        t._data = out
        t._requires_grad = True
        t._grad_fn = node
        t._out_nr = 0
        t._grad = None
        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()
        t._base = None
        node._seq = _next_seq()
        if mask == 3:  # x and y require grad
            fn = x._grad_fn
            if x._base is not None:
                ex = gradient_edge(x)
            elif fn is not None:
                ex = (fn, x._out_nr)
            else:  # a leaf
                ex = (x._accum or grad_accumulator(x), 0)
            fn = y._grad_fn
            if y._base is not None:
                ey = gradient_edge(y)
            elif fn is not None:
                ey = (fn, y._out_nr)
            else:  # a leaf
                ey = (y._accum or grad_accumulator(y), 0)
            node.next_functions = (ex, ey)
            node._meta = ((xd.shape, xd.dtype), (yd.shape, yd.dtype))
            node._attrs = _EMPTY
            if anomaly.state.enabled:
                anomaly.record(node)
            node._saved = node._versions = _EMPTY
        elif mask == 1:  # only x requires grad
            fn = x._grad_fn
            if x._base is not None:
                ex = gradient_edge(x)
            elif fn is not None:
                ex = (fn, x._out_nr)
            else:  # a leaf
                ex = (x._accum or grad_accumulator(x), 0)
            node.next_functions = (ex, _NO_EDGE)
            node._meta = ((xd.shape, xd.dtype), None)
            node._attrs = _EMPTY
            if anomaly.state.enabled:
                anomaly.record(node)
            node._saved = node._versions = _EMPTY
        else:  # only y requires grad
            fn = y._grad_fn
            if y._base is not None:
                ey = gradient_edge(y)
            elif fn is not None:
                ey = (fn, y._out_nr)
            else:  # a leaf
                ey = (y._accum or grad_accumulator(y), 0)
            node.next_functions = (_NO_EDGE, ey)
            node._meta = (None, (yd.shape, yd.dtype))
            node._attrs = _EMPTY
            if anomaly.state.enabled:
                anomaly.record(node)
            node._saved = node._versions = _EMPTY
    else:
        # new_tensor(out, False, None)
        t = _new(Tensor)
        t._data = out
        t._requires_grad = False
        t._grad_fn = None
        t._out_nr = 0
        t._grad = None
        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()
        t._base = None
        if mask:  # grad mode is off
            note_no_grad(t, (x, y))
    if recording.observer is not None:  # See Note [Op observer]
        recording.observer(op, (x, y), _EMPTY, t)
    return t


CODES[SOURCE] = fast_form.__code__


SOURCE = 'def fast_form(x, y):\n    if recording.autocast is not None:  # amp hook: See Note [Autocast hook]\n        return apply(op, (x, y))\n    xd = x._data\n    # integer and bool tensors take the general path: their promotion rules differ\n    if type(xd) is not _ndarray or xd.dtype.kind != "f":\n        return apply(op, (x, y))\n    if isinstance(y, Tensor):\n        yd = y._data\n        if xd.dtype != yd.dtype:\n            return apply(op, (x, y))\n        # `record`\'s mask of the inputs that require grad (no `|` or `<<`: not fast on bools)\n        if y._requires_grad:\n            mask = 3 if x._requires_grad else 2\n        else:\n            mask = x._requires_grad\n    elif type(y) is float or type(y) is int:\n        yd = y  # so `yd is y` says that y is a number\n        mask = x._requires_grad\n    else:\n        return apply(op, (x, y))\n    try:\n        out = fwd(np, xd, yd)\n    except _ERRORS as exc:\n        raise translate(op, (x, y), _EMPTY, exc) from None\n    # dense * sparse is sparse: See Note [Sparse COO arrays]\n    if type(out) is not _ndarray and type(out) is not SparseCOO:\n        out = np.asarray(out)\n    if mask and grad_state.enabled:\n        node = _new(node_cls)\n        # new_tensor(out, True, node)\n        t = _new(Tensor)\n        t._data = out\n        t._requires_grad = True\n        t._grad_fn = node\n        t._out_nr = 0\n        t._grad = None\n        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()\n        t._base = None\n        node._seq = _next_seq()\n        if mask == 3:  # x and y require grad\n            fn = x._grad_fn\n            if x._base is not None:\n                ex = gradient_edge(x)\n            elif fn is not None:\n                ex = (fn, x._out_nr)\n            else:  # a leaf\n                ex = (x._accum or grad_accumulator(x), 0)\n            fn = y._grad_fn\n            if y._base is not None:\n                ey = gradient_edge(y)\n            elif fn is not None:\n                ey = (fn, y._out_nr)\n            else:  # a leaf\n                ey = (y._accum or grad_accumulator(y), 0)\n            node.next_functions = (ex, ey)\n            node._meta = ((xd.shape, xd.dtype), (yd.shape, yd.dtype))\n            node._attrs = _EMPTY\n            if anomaly.state.enabled:\n                anomaly.record(node)\n            node._saved = {"y": y, "x": x}\n            node._versions = {"y": y._version_counter.value, "x": x._version_counter.value}\n            if _hooks_active:  # See Note [Saved tensor hooks]\n                pack_saved(node, t)\n        elif mask == 1:  # only x requires grad\n            fn = x._grad_fn\n            if x._base is not None:\n                ex = gradient_edge(x)\n            elif fn is not None:\n                ex = (fn, x._out_nr)\n            else:  # a leaf\n                ex = (x._accum or grad_accumulator(x), 0)\n            node.next_functions = (ex, _NO_EDGE)\n            node._meta = ((xd.shape, xd.dtype), None)\n            node._attrs = _EMPTY\n            if anomaly.state.enabled:\n                anomaly.record(node)\n            node._saved = {"y": y}\n            versions = node._versions = {}\n            if yd is not y:\n                versions["y"] = y._version_counter.value\n            if _hooks_active:  # See Note [Saved tensor hooks]\n                pack_saved(node, t)\n        else:  # only y requires grad\n            fn = y._grad_fn\n            if y._base is not None:\n                ey = gradient_edge(y)\n            elif fn is not None:\n                ey = (fn, y._out_nr)\n            else:  # a leaf\n                ey = (y._accum or grad_accumulator(y), 0)\n            node.next_functions = (_NO_EDGE, ey)\n            node._meta = (None, (yd.shape, yd.dtype))\n            node._attrs = _EMPTY\n            if anomaly.state.enabled:\n                anomaly.record(node)\n            node._saved = {"x": x}\n            node._versions = {"x": x._version_counter.value}\n            if _hooks_active:  # See Note [Saved tensor hooks]\n                pack_saved(node, t)\n    else:\n        # new_tensor(out, False, None)\n        t = _new(Tensor)\n        t._data = out\n        t._requires_grad = False\n        t._grad_fn = None\n        t._out_nr = 0\n        t._grad = None\n        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()\n        t._base = None\n        if mask:  # grad mode is off\n            note_no_grad(t, (x, y))\n    if recording.observer is not None:  # See Note [Op observer]\n        recording.observer(op, (x, y), _EMPTY, t)\n    return t\n'


def fast_form(x, y):
    if recording.autocast is not None:  # amp hook: See Note [Autocast hook]
        return apply(op, (x, y))
    xd = x._data
    # integer and bool tensors take the general path: their promotion rules differ
    if type(xd) is not _ndarray or xd.dtype.kind != "f":
        return apply(op, (x, y))
    if isinstance(y, Tensor):
        yd = y._data
        if xd.dtype != yd.dtype:
            return apply(op, (x, y))
        # `record`'s mask of the inputs that require grad (no `|` or `<<`: not fast on bools)
        if y._requires_grad:
            mask = 3 if x._requires_grad else 2
        else:
            mask = x._requires_grad
    elif type(y) is float or type(y) is int:
        yd = y  # so `yd is y` says that y is a number
        mask = x._requires_grad
    else:
        return apply(op, (x, y))
    try:
        out = fwd(np, xd, yd)
    except _ERRORS as exc:
        raise translate(op, (x, y), _EMPTY, exc) from None
    # dense * sparse is sparse: See Note [Sparse COO arrays]
    if type(out) is not _ndarray and type(out) is not SparseCOO:
        out = np.asarray(out)
    if mask and grad_state.enabled:
        node = _new(node_cls)
        # new_tensor(out, True, node)
        t = _new(Tensor)
        t._data = out
        t._requires_grad = True
        t._grad_fn = node
        t._out_nr = 0
        t._grad = None
        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()
        t._base = None
        node._seq = _next_seq()
        if mask == 3:  # x and y require grad
            fn = x._grad_fn
            if x._base is not None:
                ex = gradient_edge(x)
            elif fn is not None:
                ex = (fn, x._out_nr)
            else:  # a leaf
                ex = (x._accum or grad_accumulator(x), 0)
            fn = y._grad_fn
            if y._base is not None:
                ey = gradient_edge(y)
            elif fn is not None:
                ey = (fn, y._out_nr)
            else:  # a leaf
                ey = (y._accum or grad_accumulator(y), 0)
            node.next_functions = (ex, ey)
            node._meta = ((xd.shape, xd.dtype), (yd.shape, yd.dtype))
            node._attrs = _EMPTY
            if anomaly.state.enabled:
                anomaly.record(node)
            node._saved = {"y": y, "x": x}
            node._versions = {"y": y._version_counter.value, "x": x._version_counter.value}
            if _hooks_active:  # See Note [Saved tensor hooks]
                pack_saved(node, t)
        elif mask == 1:  # only x requires grad
            fn = x._grad_fn
            if x._base is not None:
                ex = gradient_edge(x)
            elif fn is not None:
                ex = (fn, x._out_nr)
            else:  # a leaf
                ex = (x._accum or grad_accumulator(x), 0)
            node.next_functions = (ex, _NO_EDGE)
            node._meta = ((xd.shape, xd.dtype), None)
            node._attrs = _EMPTY
            if anomaly.state.enabled:
                anomaly.record(node)
            node._saved = {"y": y}
            versions = node._versions = {}
            if yd is not y:
                versions["y"] = y._version_counter.value
            if _hooks_active:  # See Note [Saved tensor hooks]
                pack_saved(node, t)
        else:  # only y requires grad
            fn = y._grad_fn
            if y._base is not None:
                ey = gradient_edge(y)
            elif fn is not None:
                ey = (fn, y._out_nr)
            else:  # a leaf
                ey = (y._accum or grad_accumulator(y), 0)
            node.next_functions = (_NO_EDGE, ey)
            node._meta = (None, (yd.shape, yd.dtype))
            node._attrs = _EMPTY
            if anomaly.state.enabled:
                anomaly.record(node)
            node._saved = {"x": x}
            node._versions = {"x": x._version_counter.value}
            if _hooks_active:  # See Note [Saved tensor hooks]
                pack_saved(node, t)
    else:
        # new_tensor(out, False, None)
        t = _new(Tensor)
        t._data = out
        t._requires_grad = False
        t._grad_fn = None
        t._out_nr = 0
        t._grad = None
        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()
        t._base = None
        if mask:  # grad mode is off
            note_no_grad(t, (x, y))
    if recording.observer is not None:  # See Note [Op observer]
        recording.observer(op, (x, y), _EMPTY, t)
    return t


CODES[SOURCE] = fast_form.__code__


SOURCE = 'def fast_form(x, y):\n    if recording.autocast is not None:  # amp hook: See Note [Autocast hook]\n        return apply(op, (x, y))\n    xd = x._data\n    # integer and bool tensors take the general path: their promotion rules differ\n    if type(xd) is not _ndarray or xd.dtype.kind != "f":\n        return apply(op, (x, y))\n    if isinstance(y, Tensor):\n        yd = y._data\n        if xd.dtype != yd.dtype:\n            return apply(op, (x, y))\n        # `record`\'s mask of the inputs that require grad (no `|` or `<<`: not fast on bools)\n        if y._requires_grad:\n            mask = 3 if x._requires_grad else 2\n        else:\n            mask = x._requires_grad\n    elif type(y) is float or type(y) is int:\n        yd = y  # so `yd is y` says that y is a number\n        mask = x._requires_grad\n    else:\n        return apply(op, (x, y))\n    try:\n        out = fwd(np, xd, yd)\n    except _ERRORS as exc:\n        raise translate(op, (x, y), _EMPTY, exc) from None\n    # dense * sparse is sparse: See Note [Sparse COO arrays]\n    if type(out) is not _ndarray and type(out) is not SparseCOO:\n        out = np.asarray(out)\n    if mask and grad_state.enabled:\n        node = _new(node_cls)\n        # new_tensor(out, True, node)\n        t = _new(Tensor)\n        t._data = out\n        t._requires_grad = True\n        t._grad_fn = node\n        t._out_nr = 0\n        t._grad = None\n        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()\n        t._base = None\n        node._seq = _next_seq()\n        if mask == 3:  # x and y require grad\n            fn = x._grad_fn\n            if x._base is not None:\n                ex = gradient_edge(x)\n            elif fn is not None:\n                ex = (fn, x._out_nr)\n            else:  # a leaf\n                ex = (x._accum or grad_accumulator(x), 0)\n            fn = y._grad_fn\n            if y._base is not None:\n                ey = gradient_edge(y)\n            elif fn is not None:\n                ey = (fn, y._out_nr)\n            else:  # a leaf\n                ey = (y._accum or grad_accumulator(y), 0)\n            node.next_functions = (ex, ey)\n            node._meta = ((xd.shape, xd.dtype), (yd.shape, yd.dtype))\n            node._attrs = _EMPTY\n            if anomaly.state.enabled:\n                anomaly.record(node)\n            node._saved = {"y": y, "x": x}\n            node._versions = {"y": y._version_counter.value, "x": x._version_counter.value}\n            if _hooks_active:  # See Note [Saved tensor hooks]\n                pack_saved(node, t)\n        elif mask == 1:  # only x requires grad\n            fn = x._grad_fn\n            if x._base is not None:\n                ex = gradient_edge(x)\n            elif fn is not None:\n                ex = (fn, x._out_nr)\n            else:  # a leaf\n                ex = (x._accum or grad_accumulator(x), 0)\n            node.next_functions = (ex, _NO_EDGE)\n            node._meta = ((xd.shape, xd.dtype), None)\n            node._attrs = _EMPTY\n            if anomaly.state.enabled:\n                anomaly.record(node)\n            node._saved = {"y": y}\n            versions = node._versions = {}\n            if yd is not y:\n                versions["y"] = y._version_counter.value\n            if _hooks_active:  # See Note [Saved tensor hooks]\n                pack_saved(node, t)\n        else:  # only y requires grad\n            fn = y._grad_fn\n            if y._base is not None:\n                ey = gradient_edge(y)\n            elif fn is not None:\n                ey = (fn, y._out_nr)\n            else:  # a leaf\n                ey = (y._accum or grad_accumulator(y), 0)\n            node.next_functions = (_NO_EDGE, ey)\n            node._meta = (None, (yd.shape, yd.dtype))\n            node._attrs = _EMPTY\n            if anomaly.state.enabled:\n                anomaly.record(node)\n            node._saved = {"x": x, "y": y}\n            node._versions = {"x": x._version_counter.value, "y": y._version_counter.value}\n            if _hooks_active:  # See Note [Saved tensor hooks]\n                pack_saved(node, t)\n    else:\n        # new_tensor(out, False, None)\n        t = _new(Tensor)\n        t._data = out\n        t._requires_grad = False\n        t._grad_fn = None\n        t._out_nr = 0\n        t._grad = None\n        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()\n        t._base = None\n        if mask:  # grad mode is off\n            note_no_grad(t, (x, y))\n    if recording.observer is not None:  # See Note [Op observer]\n        recording.observer(op, (x, y), _EMPTY, t)\n    return t\n'


def fast_form(x, y):
    if recording.autocast is not None:  # amp hook: See Note [Autocast hook]
        return apply(op, (x, y))
    xd = x._data
    # integer and bool tensors take the general path: their promotion rules differ
    if type(xd) is not _ndarray or xd.dtype.kind != "f":
        return apply(op, (x, y))
    if isinstance(y, Tensor):
        yd = y._data
        if xd.dtype != yd.dtype:
            return apply(op, (x, y))
        # `record`'s mask of the inputs that require grad (no `|` or `<<`: not fast on bools)
        if y._requires_grad:
            mask = 3 if x._requires_grad else 2
        else:
            mask = x._requires_grad
    elif type(y) is float or type(y) is int:
        yd = y  # so `yd is y` says that y is a number
        mask = x._requires_grad
    else:
        return apply(op, (x, y))
    try:
        out = fwd(np, xd, yd)
    except _ERRORS as exc:
        raise translate(op, (x, y), _EMPTY, exc) from None
    # dense * sparse is sparse: See Note [Sparse COO arrays]
    if type(out) is not _ndarray and type(out) is not SparseCOO:
        out = np.asarray(out)
    if mask and grad_state.enabled:
        node = _new(node_cls)
        # new_tensor(out, True, node)
        t = _new(Tensor)
        t._data = out
        t._requires_grad = True
        t._grad_fn = node
        t._out_nr = 0
        t._grad = None
        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()
        t._base = None
        node._seq = _next_seq()
        if mask == 3:  # x and y require grad
            fn = x._grad_fn
            if x._base is not None:
                ex = gradient_edge(x)
            elif fn is not None:
                ex = (fn, x._out_nr)
            else:  # a leaf
                ex = (x._accum or grad_accumulator(x), 0)
            fn = y._grad_fn
            if y._base is not None:
                ey = gradient_edge(y)
            elif fn is not None:
                ey = (fn, y._out_nr)
            else:  # a leaf
                ey = (y._accum or grad_accumulator(y), 0)
            node.next_functions = (ex, ey)
            node._meta = ((xd.shape, xd.dtype), (yd.shape, yd.dtype))
            node._attrs = _EMPTY
            if anomaly.state.enabled:
                anomaly.record(node)
            node._saved = {"y": y, "x": x}
            node._versions = {"y": y._version_counter.value, "x": x._version_counter.value}
            if _hooks_active:  # See Note [Saved tensor hooks]
                pack_saved(node, t)
        elif mask == 1:  # only x requires grad
            fn = x._grad_fn
            if x._base is not None:
                ex = gradient_edge(x)
            elif fn is not None:
                ex = (fn, x._out_nr)
            else:  # a leaf
                ex = (x._accum or grad_accumulator(x), 0)
            node.next_functions = (ex, _NO_EDGE)
            node._meta = ((xd.shape, xd.dtype), None)
            node._attrs = _EMPTY
            if anomaly.state.enabled:
                anomaly.record(node)
            node._saved = {"y": y}
            versions = node._versions = {}
            if yd is not y:
                versions["y"] = y._version_counter.value
            if _hooks_active:  # See Note [Saved tensor hooks]
                pack_saved(node, t)
        else:  # only y requires grad
            fn = y._grad_fn
            if y._base is not None:
                ey = gradient_edge(y)
            elif fn is not None:
                ey = (fn, y._out_nr)
            else:  # a leaf
                ey = (y._accum or grad_accumulator(y), 0)
            node.next_functions = (_NO_EDGE, ey)
            node._meta = (None, (yd.shape, yd.dtype))
            node._attrs = _EMPTY
            if anomaly.state.enabled:
                anomaly.record(node)
            node._saved = {"x": x, "y": y}
            node._versions = {"x": x._version_counter.value, "y": y._version_counter.value}
            if _hooks_active:  # See Note [Saved tensor hooks]
                pack_saved(node, t)
    else:
        # new_tensor(out, False, None)
        t = _new(Tensor)
        t._data = out
        t._requires_grad = False
        t._grad_fn = None
        t._out_nr = 0
        t._grad = None
        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()
        t._base = None
        if mask:  # grad mode is off
            note_no_grad(t, (x, y))
    if recording.observer is not None:  # See Note [Op observer]
        recording.observer(op, (x, y), _EMPTY, t)
    return t


CODES[SOURCE] = fast_form.__code__


SOURCE = 'def fast_form(x):\n    if recording.autocast is not None:  # amp hook: See Note [Autocast hook]\n        return apply(op, (x,))\n    try:\n        xd = x._data\n    except AttributeError:\n        raise _not_a_tensor(op, x) from None\n    # integer and bool tensors take the general path: their promotion rules differ\n    if type(xd) is not _ndarray or xd.dtype.kind != "f":\n        return apply(op, (x,))\n    out = fwd(np, xd)\n    if type(out) is not _ndarray:\n        out = np.array(out)  # a NumPy scalar from a full reduction\n    if x._requires_grad and grad_state.enabled:\n        node = _new(node_cls)\n        # new_tensor(out, True, node)\n        t = _new(Tensor)\n        t._data = out\n        t._requires_grad = True\n        t._grad_fn = node\n        t._out_nr = 0\n        t._grad = None\n        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()\n        t._base = None\n        node._seq = _next_seq()\n        fn = x._grad_fn\n        if x._base is not None:\n            ex = gradient_edge(x)\n        elif fn is not None:\n            ex = (fn, x._out_nr)\n        else:  # a leaf\n            ex = (x._accum or grad_accumulator(x), 0)\n        node.next_functions = (ex,)\n        node._meta = ((xd.shape, xd.dtype),)\n        node._attrs = _EMPTY\n        if anomaly.state.enabled:\n            anomaly.record(node)\n        node._saved = node._versions = _EMPTY\n    else:\n        # new_tensor(out, False, None)\n        t = _new(Tensor)\n        t._data = out\n        t._requires_grad = False\n        t._grad_fn = None\n        t._out_nr = 0\n        t._grad = None\n        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()\n        t._base = None\n        if x._requires_grad:  # grad mode is off\n            note_no_grad(t, (x,))\n    if recording.observer is not None:  # See Note [Op observer]\n        recording.observer(op, (x,), _EMPTY, t)\n    return t\n'


def fast_form(x):
    if recording.autocast is not None:  # amp hook: See Note [Autocast hook]
        return apply(op, (x,))
    try:
        xd = x._data
    except AttributeError:
        raise _not_a_tensor(op, x) from None
    # integer and bool tensors take the general path: their promotion rules differ
    if type(xd) is not _ndarray or xd.dtype.kind != "f":
        return apply(op, (x,))
    out = fwd(np, xd)
    if type(out) is not _ndarray:
        out = np.array(out)  # a NumPy scalar from a full reduction
    if x._requires_grad and grad_state.enabled:
        node = _new(node_cls)
        # new_tensor(out, True, node)
        t = _new(Tensor)
        t._data = out
        t._requires_grad = True
        t._grad_fn = node
        t._out_nr = 0
        t._grad = None
        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()
        t._base = None
        node._seq = _next_seq()
        fn = x._grad_fn
        if x._base is not None:
            ex = gradient_edge(x)
        elif fn is not None:
            ex = (fn, x._out_nr)
        else:  # a leaf
            ex = (x._accum or grad_accumulator(x), 0)
        node.next_functions = (ex,)
        node._meta = ((xd.shape, xd.dtype),)
        node._attrs = _EMPTY
        if anomaly.state.enabled:
            anomaly.record(node)
        node._saved = node._versions = _EMPTY
    else:
        # new_tensor(out, False, None)
        t = _new(Tensor)
        t._data = out
        t._requires_grad = False
        t._grad_fn = None
        t._out_nr = 0
        t._grad = None
        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()
        t._base = None
        if x._requires_grad:  # grad mode is off
            note_no_grad(t, (x,))
    if recording.observer is not None:  # See Note [Op observer]
        recording.observer(op, (x,), _EMPTY, t)
    return t


CODES[SOURCE] = fast_form.__code__


SOURCE = 'def fast_form(x, y):\n    if recording.autocast is not None:  # amp hook: See Note [Autocast hook]\n        return apply(op, (x, y))\n    xd = x._data\n    # integer and bool tensors take the general path: their promotion rules differ\n    if type(xd) is not _ndarray or xd.dtype.kind != "f":\n        return apply(op, (x, y))\n    if isinstance(y, Tensor):\n        yd = y._data\n        if xd.dtype != yd.dtype:\n            return apply(op, (x, y))\n        mask = x._requires_grad  # y has no edge\n    elif type(y) is float or type(y) is int:\n        yd = y  # so `yd is y` says that y is a number\n        mask = x._requires_grad\n    else:\n        return apply(op, (x, y))\n    try:\n        out = fwd(np, xd, yd)\n    except _ERRORS as exc:\n        raise translate(op, (x, y), _EMPTY, exc) from None\n    # dense * sparse is sparse: See Note [Sparse COO arrays]\n    if type(out) is not _ndarray and type(out) is not SparseCOO:\n        out = np.asarray(out)\n    if mask and grad_state.enabled:\n        node = _new(node_cls)\n        # new_tensor(out, True, node)\n        t = _new(Tensor)\n        t._data = out\n        t._requires_grad = True\n        t._grad_fn = node\n        t._out_nr = 0\n        t._grad = None\n        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()\n        t._base = None\n        node._seq = _next_seq()\n        fn = x._grad_fn\n        if x._base is not None:\n            ex = gradient_edge(x)\n        elif fn is not None:\n            ex = (fn, x._out_nr)\n        else:  # a leaf\n            ex = (x._accum or grad_accumulator(x), 0)\n        node.next_functions = (ex,)\n        node._meta = ((xd.shape, xd.dtype), None)\n        node._attrs = _EMPTY\n        if anomaly.state.enabled:\n            anomaly.record(node)\n        node._saved = node._versions = _EMPTY\n    else:\n        # new_tensor(out, False, None)\n        t = _new(Tensor)\n        t._data = out\n        t._requires_grad = False\n        t._grad_fn = None\n        t._out_nr = 0\n        t._grad = None\n        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()\n        t._base = None\n        if mask:  # grad mode is off\n            note_no_grad(t, (x, y))\n    if recording.observer is not None:  # See Note [Op observer]\n        recording.observer(op, (x, y), _EMPTY, t)\n    return t\n'


def fast_form(x, y):
    if recording.autocast is not None:  # amp hook: See Note [Autocast hook]
        return apply(op, (x, y))
    xd = x._data
    # integer and bool tensors take the general path: their promotion rules differ
    if type(xd) is not _ndarray or xd.dtype.kind != "f":
        return apply(op, (x, y))
    if isinstance(y, Tensor):
        yd = y._data
        if xd.dtype != yd.dtype:
            return apply(op, (x, y))
        mask = x._requires_grad  # y has no edge
    elif type(y) is float or type(y) is int:
        yd = y  # so `yd is y` says that y is a number
        mask = x._requires_grad
    else:
        return apply(op, (x, y))
    try:
        out = fwd(np, xd, yd)
    except _ERRORS as exc:
        raise translate(op, (x, y), _EMPTY, exc) from None
    # dense * sparse is sparse: See Note [Sparse COO arrays]
    if type(out) is not _ndarray and type(out) is not SparseCOO:
        out = np.asarray(out)
    if mask and grad_state.enabled:
        node = _new(node_cls)
        # new_tensor(out, True, node)
        t = _new(Tensor)
        t._data = out
        t._requires_grad = True
        t._grad_fn = node
        t._out_nr = 0
        t._grad = None
        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()
        t._base = None
        node._seq = _next_seq()
        fn = x._grad_fn
        if x._base is not None:
            ex = gradient_edge(x)
        elif fn is not None:
            ex = (fn, x._out_nr)
        else:  # a leaf
            ex = (x._accum or grad_accumulator(x), 0)
        node.next_functions = (ex,)
        node._meta = ((xd.shape, xd.dtype), None)
        node._attrs = _EMPTY
        if anomaly.state.enabled:
            anomaly.record(node)
        node._saved = node._versions = _EMPTY
    else:
        # new_tensor(out, False, None)
        t = _new(Tensor)
        t._data = out
        t._requires_grad = False
        t._grad_fn = None
        t._out_nr = 0
        t._grad = None
        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()
        t._base = None
        if mask:  # grad mode is off
            note_no_grad(t, (x, y))
    if recording.observer is not None:  # See Note [Op observer]
        recording.observer(op, (x, y), _EMPTY, t)
    return t


CODES[SOURCE] = fast_form.__code__


SOURCE = 'def fast_form(x, y):\n    if recording.autocast is not None:  # amp hook: See Note [Autocast hook]\n        return apply(op, (x, y))\n    xd = x._data\n    # integer and bool tensors take the general path: their promotion rules differ\n    if type(xd) is not _ndarray or xd.dtype.kind != "f":\n        return apply(op, (x, y))\n    if isinstance(y, Tensor):\n        yd = y._data\n        if xd.dtype != yd.dtype:\n            return apply(op, (x, y))\n        # `record`\'s mask of the inputs that require grad (no `|` or `<<`: not fast on bools)\n        if y._requires_grad:\n            mask = 3 if x._requires_grad else 2\n        else:\n            mask = x._requires_grad\n    elif type(y) is float or type(y) is int:\n        yd = y  # so `yd is y` says that y is a number\n        mask = x._requires_grad\n    else:\n        return apply(op, (x, y))\n    try:\n        out = fwd(np, xd, yd)\n    except _ERRORS as exc:\n        raise translate(op, (x, y), _EMPTY, exc) from None\n    # dense * sparse is sparse: See Note [Sparse COO arrays]\n    if type(out) is not _ndarray and type(out) is not SparseCOO:\n        out = np.asarray(out)\n    if mask and grad_state.enabled:\n        node = _new(node_cls)\n        # new_tensor(out, True, node)\n        t = _new(Tensor)\n        t._data = out\n        t._requires_grad = True\n        t._grad_fn = node\n        t._out_nr = 0\n        t._grad = None\n        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()\n        t._base = None\n        node._seq = _next_seq()\n        if mask == 3:  # x and y require grad\n            fn = x._grad_fn\n            if x._base is not None:\n                ex = gradient_edge(x)\n            elif fn is not None:\n                ex = (fn, x._out_nr)\n            else:  # a leaf\n                ex = (x._accum or grad_accumulator(x), 0)\n            fn = y._grad_fn\n            if y._base is not None:\n                ey = gradient_edge(y)\n            elif fn is not None:\n                ey = (fn, y._out_nr)\n            else:  # a leaf\n                ey = (y._accum or grad_accumulator(y), 0)\n            node.next_functions = (ex, ey)\n            node._meta = ((xd.shape, xd.dtype), (yd.shape, yd.dtype))\n            node._attrs = _EMPTY\n            if anomaly.state.enabled:\n                anomaly.record(node)\n            node._saved = {"mat2": y, "x": x}\n            node._versions = {"mat2": y._version_counter.value, "x": x._version_counter.value}\n            if _hooks_active:  # See Note [Saved tensor hooks]\n                pack_saved(node, t)\n        elif mask == 1:  # only x requires grad\n            fn = x._grad_fn\n            if x._base is not None:\n                ex = gradient_edge(x)\n            elif fn is not None:\n                ex = (fn, x._out_nr)\n            else:  # a leaf\n                ex = (x._accum or grad_accumulator(x), 0)\n            node.next_functions = (ex, _NO_EDGE)\n            node._meta = ((xd.shape, xd.dtype), None)\n            node._attrs = _EMPTY\n            if anomaly.state.enabled:\n                anomaly.record(node)\n            node._saved = {"mat2": y}\n            versions = node._versions = {}\n            if yd is not y:\n                versions["mat2"] = y._version_counter.value\n            if _hooks_active:  # See Note [Saved tensor hooks]\n                pack_saved(node, t)\n        else:  # only y requires grad\n            fn = y._grad_fn\n            if y._base is not None:\n                ey = gradient_edge(y)\n            elif fn is not None:\n                ey = (fn, y._out_nr)\n            else:  # a leaf\n                ey = (y._accum or grad_accumulator(y), 0)\n            node.next_functions = (_NO_EDGE, ey)\n            node._meta = (None, (yd.shape, yd.dtype))\n            node._attrs = _EMPTY\n            if anomaly.state.enabled:\n                anomaly.record(node)\n            node._saved = {"x": x}\n            node._versions = {"x": x._version_counter.value}\n            if _hooks_active:  # See Note [Saved tensor hooks]\n                pack_saved(node, t)\n    else:\n        # new_tensor(out, False, None)\n        t = _new(Tensor)\n        t._data = out\n        t._requires_grad = False\n        t._grad_fn = None\n        t._out_nr = 0\n        t._grad = None\n        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()\n        t._base = None\n        if mask:  # grad mode is off\n            note_no_grad(t, (x, y))\n    if recording.observer is not None:  # See Note [Op observer]\n        recording.observer(op, (x, y), _EMPTY, t)\n    return t\n'


def fast_form(x, y):
    if recording.autocast is not None:  # amp hook: See Note [Autocast hook]
        return apply(op, (x, y))
    xd = x._data
    # integer and bool tensors take the general path: their promotion rules differ
    if type(xd) is not _ndarray or xd.dtype.kind != "f":
        return apply(op, (x, y))
    if isinstance(y, Tensor):
        yd = y._data
        if xd.dtype != yd.dtype:
            return apply(op, (x, y))
        # `record`'s mask of the inputs that require grad (no `|` or `<<`: not fast on bools)
        if y._requires_grad:
            mask = 3 if x._requires_grad else 2
        else:
            mask = x._requires_grad
    elif type(y) is float or type(y) is int:
        yd = y  # so `yd is y` says that y is a number
        mask = x._requires_grad
    else:
        return apply(op, (x, y))
    try:
        out = fwd(np, xd, yd)
    except _ERRORS as exc:
        raise translate(op, (x, y), _EMPTY, exc) from None
    # dense * sparse is sparse: See Note [Sparse COO arrays]
    if type(out) is not _ndarray and type(out) is not SparseCOO:
        out = np.asarray(out)
    if mask and grad_state.enabled:
        node = _new(node_cls)
        # new_tensor(out, True, node)
        t = _new(Tensor)
        t._data = out
        t._requires_grad = True
        t._grad_fn = node
        t._out_nr = 0
        t._grad = None
        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()
        t._base = None
        node._seq = _next_seq()
        if mask == 3:  # x and y require grad
            fn = x._grad_fn
            if x._base is not None:
                ex = gradient_edge(x)
            elif fn is not None:
                ex = (fn, x._out_nr)
            else:  # a leaf
                ex = (x._accum or grad_accumulator(x), 0)
            fn = y._grad_fn
            if y._base is not None:
                ey = gradient_edge(y)
            elif fn is not None:
                ey = (fn, y._out_nr)
            else:  # a leaf
                ey = (y._accum or grad_accumulator(y), 0)
            node.next_functions = (ex, ey)
            node._meta = ((xd.shape, xd.dtype), (yd.shape, yd.dtype))
            node._attrs = _EMPTY
            if anomaly.state.enabled:
                anomaly.record(node)
            node._saved = {"mat2": y, "x": x}
            node._versions = {"mat2": y._version_counter.value, "x": x._version_counter.value}
            if _hooks_active:  # See Note [Saved tensor hooks]
                pack_saved(node, t)
        elif mask == 1:  # only x requires grad
            fn = x._grad_fn
            if x._base is not None:
                ex = gradient_edge(x)
            elif fn is not None:
                ex = (fn, x._out_nr)
            else:  # a leaf
                ex = (x._accum or grad_accumulator(x), 0)
            node.next_functions = (ex, _NO_EDGE)
            node._meta = ((xd.shape, xd.dtype), None)
            node._attrs = _EMPTY
            if anomaly.state.enabled:
                anomaly.record(node)
            node._saved = {"mat2": y}
            versions = node._versions = {}
            if yd is not y:
                versions["mat2"] = y._version_counter.value
            if _hooks_active:  # See Note [Saved tensor hooks]
                pack_saved(node, t)
        else:  # only y requires grad
            fn = y._grad_fn
            if y._base is not None:
                ey = gradient_edge(y)
            elif fn is not None:
                ey = (fn, y._out_nr)
            else:  # a leaf
                ey = (y._accum or grad_accumulator(y), 0)
            node.next_functions = (_NO_EDGE, ey)
            node._meta = (None, (yd.shape, yd.dtype))
            node._attrs = _EMPTY
            if anomaly.state.enabled:
                anomaly.record(node)
            node._saved = {"x": x}
            node._versions = {"x": x._version_counter.value}
            if _hooks_active:  # See Note [Saved tensor hooks]
                pack_saved(node, t)
    else:
        # new_tensor(out, False, None)
        t = _new(Tensor)
        t._data = out
        t._requires_grad = False
        t._grad_fn = None
        t._out_nr = 0
        t._grad = None
        t._version_counter = VersionCounter() if not INFERENCE_THREADS or not above.grad_mode.inference else InferenceCounter()
        t._base = None
        if mask:  # grad mode is off
            note_no_grad(t, (x, y))
    if recording.observer is not None:  # See Note [Op observer]
        recording.observer(op, (x, y), _EMPTY, t)
    return t


CODES[SOURCE] = fast_form.__code__
