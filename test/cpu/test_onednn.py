#!/usr/bin/python3
"""Convolutions through oneDNN (backends/cpu/runtime/onednn.c), in one process: a small
convolutional network with a batch norm and ReLU folded in, a depthwise convolution with
ReLU6, a pointwise one, a 3x3 one (Winograd's kernel on AVX-512), a dilated one under a
residual add, a max pool between two convolutions, resnet's two kinds of block (relu(bn(conv(y)) + y), and the downsampling one
whose add the identity's later convolution takes), a residual that an elementwise node
computed, 20 channels (not a multiple of the kernel's block) and one convolution whose
weight is an input, exported with dynamic batch, height and width and called through the C
ABI.

For each of SHAPEC_ONEDNN=always (every convolution through oneDNN), unset (large ones)
and 0 (the built-in kernels), in a fresh process:
  - ten input shapes, more than a convolution keeps plans for, each compared with PyTorch;
  - the first shapes again (plans and laid-out weights reused) give the same bits;
  - one and two threads give the same bits with the built-in kernels, and agree to 1e-6
    of the output's scale through oneDNN (whose kernels depend on the thread count);
  - four threads calling at once on different shapes get the serial results;
  - libdnnl is loaded exactly when the mode says so;
  - the tensors that only convolutions and max pools read, as input or residual, are never
    reordered to NCHW, the four residual adds run as the convolutions' sum post-op, and the
    max pool runs the built-in blocked kernel (not oneDNN's pooling, which does not
    propagate NaN as ATen does).
And two grouped convolutions between pointwise ones, each matching PyTorch: oneDNN's
layout chaining hands a convolution its source as the previous one wrote it, which may only
have slower kernels than another layout: groups of 8 channels in NHWC only the reference
kernel on AVX-512 (regnet_y_400mf took 17x PyTorch's time), and the 8-channel blocks that
a grouped AVX2 kernel writes (groups of 4) only AVX2 kernels for the 1x1 convolutions after
it (resnext50).  None may run the reference kernel, and on an AVX-512 CPU every one must
run an AVX-512 kernel.
And EfficientNet's and MobileNetV3's blocks: convolution, batch norm and SiLU; a depthwise
one with SiLU; a squeeze-and-excitation gate (mean, 1x1 convolutions, sigmoid, times the
input: the sigmoid computed once per row of the product's loop); a pointwise one with
hardswish; dynamic batch, height and width.  In each mode they match PyTorch on three
shapes, and through oneDNN SiLU and hardswish run as the convolutions' eltwise post-ops.
Exit 77 without PyTorch or without libdnnl.so.2.

usage: test_onednn.py SHAPEC SOURCE_DIR"""
import json
import os
import re
import subprocess
import sys
import tempfile
import threading

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/, for tap
import tap  # noqa: E402

if "--child" not in sys.argv:
    try:
        import torch
        import torch.nn.functional as F
    except ImportError:
        pass

A = "_DimHint.AUTO"
SHAPES = [(1, 17, 23), (2, 16, 16), (3, 9, 30), (1, 40, 33), (2, 24, 8), (1, 5, 7), (4, 12, 12), (1, 31, 2),
          (2, 33, 34), (1, 64, 48)]


def make_net():
    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = torch.nn.Conv2d(3, 32, 3, padding=1)
            self.bn = torch.nn.BatchNorm2d(32)
            self.dw = torch.nn.Conv2d(32, 32, 3, stride=2, padding=1, groups=32)
            self.pw = torch.nn.Conv2d(32, 48, 1)
            self.c3 = torch.nn.Conv2d(48, 48, 3, padding=1)
            self.c2 = torch.nn.Conv2d(48, 48, 3, padding=2, dilation=2, bias=False)
            self.c4, self.bn4 = torch.nn.Conv2d(48, 48, 3, padding=1, bias=False), torch.nn.BatchNorm2d(48)
            self.c5 = torch.nn.Conv2d(48, 20, 3, stride=2, padding=1)
            self.c6 = torch.nn.Conv2d(20, 20, 3, padding=1)
            self.c7, self.bn7 = torch.nn.Conv2d(48, 20, 1, stride=2, bias=False), torch.nn.BatchNorm2d(20)
            self.c8 = torch.nn.Conv2d(20, 20, 3, padding=1)
            with torch.no_grad():
                for bn in (self.bn, self.bn4, self.bn7):
                    bn.running_mean.uniform_(-0.5, 0.5)
                    bn.running_var.uniform_(0.5, 2.0)
                    bn.weight.uniform_(0.5, 1.5)
                    bn.bias.uniform_(-0.2, 0.2)

        def forward(self, x, k):
            y = F.relu(self.bn(self.c1(x)))
            y = F.hardtanh(self.dw(y), 0.0, 6.0)
            y = F.relu(self.c3(self.pw(y)))
            y = y + self.c2(y)
            z = F.relu(self.bn4(self.c4(y)) + y)  # resnet's block: y is c2's output
            e = self.c6(F.relu(self.c5(z)))
            f = F.relu(e + self.bn7(self.c7(z)))  # the downsampling block: c7 runs after c6
            t = torch.sigmoid(f)  # a residual no convolution wrote
            u = F.max_pool2d(F.relu(self.c8(t) + t), 3, 2, 1, ceil_mode=True)  # between two convolutions
            return F.conv2d(u, k, padding=1)

    torch.manual_seed(0)
    return Net().eval()


def inputs(shape, seed):
    g = torch.Generator().manual_seed(seed)
    n, h, w = shape
    return [torch.randn(n, 3, h, w, generator=g), torch.randn(8, 20, 3, 3, generator=g) * 0.1]


checks = tap.Checks()
check = checks.check


def child(mode, out):
    """Runs in a process whose SHAPEC_ONEDNN is `mode`, without PyTorch (which may load
    libdnnl itself): the inputs and PyTorch's answers come from the parent."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
    from shapec_tools.model_library import ModelLibrary
    data = np.load(os.path.join(out, "cases.npz"))
    lib = ModelLibrary(os.path.join(out, "model.so"))

    def inputs(shape, seed):
        key = "_".join(map(str, shape)) + f"_{seed}"
        return [data["x_" + key], data["k_" + key]]

    def run(shape, seed=1):
        xs = inputs(shape, seed)
        call, outs = lib.prepare(xs)
        call()
        return xs, outs[0].copy()

    first = {}
    for shape in SHAPES:
        xs, got = run(shape)
        want = data["want_" + "_".join(map(str, shape)) + "_1"]
        scale = float(np.abs(want).max()) or 1.0
        err = float(np.abs(got - want).max()) / scale
        check(got.shape == want.shape and err < 1e-5, f"{mode}: {shape} matches PyTorch (max error {err:.1e} of the scale)")
        first[shape] = got
    same = all(np.array_equal(run(s)[1], first[s]) for s in SHAPES[:4])
    check(same, f"{mode}: the first shapes again give the same bits")

    lib.set_num_threads(1)
    one = {s: run(s, 7)[1] for s in SHAPES[:3]}
    lib.set_num_threads(2)
    two = {s: run(s, 7)[1] for s in SHAPES[:3]}
    if mode == "0":  # the built-in kernels compute each element the same way on any thread
        check(all(np.array_equal(one[s], two[s]) for s in one), f"{mode}: one and two threads give the same bits")
    else:  # oneDNN picks its kernels and blocking for the thread count: the last bits may differ
        worst = max(float(np.abs(one[s] - two[s]).max()) / (float(np.abs(one[s]).max()) or 1.0) for s in one)
        check(worst < 1e-6, f"{mode}: one and two threads agree (max difference {worst:.1e} of the scale)")

    serial = {s: run(s, 11)[1] for s in SHAPES[:4]}
    results, errors = {}, []

    def caller(shape):
        try:
            call, outs = lib.prepare(inputs(shape, 11))
            ok = True
            for _ in range(10):
                outs[0][...] = np.nan
                call()
                ok = ok and np.array_equal(outs[0], serial[shape])
            results[shape] = ok
        except Exception as e:  # noqa: BLE001
            errors.append(repr(e))

    threads = [threading.Thread(target=caller, args=(s,)) for s in SHAPES[:4]]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check(not errors and all(results.get(s) for s in SHAPES[:4]),
          f"{mode}: four threads calling at once get the serial results {errors}")

    with open("/proc/self/maps") as fp:
        loaded = "libdnnl.so" in fp.read()
    check(loaded == (mode != "0"), f"{mode}: libdnnl is {'loaded' if loaded else 'not loaded'}")
    return 1 if checks.failures else 0


def reorders_of_one_call(out):
    """Runs in a process with DNNL_VERBOSE=1: one call to warm up, a marker, a second call."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
    from shapec_tools.model_library import ModelLibrary
    data = np.load(os.path.join(out, "cases.npz"))
    lib = ModelLibrary(os.path.join(out, "model.so"))
    call, _ = lib.prepare([data["x_1_17_23_1"], data["k_1_17_23_1"]])
    call()
    print("SECOND CALL", flush=True)
    call()
    return 0


def make_grouped(channels, groups, widen):
    class Grouped(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = torch.nn.Conv2d(channels, channels, 1)
            self.g = torch.nn.Conv2d(channels, channels, 3, stride=2, padding=1, groups=groups)
            self.b = torch.nn.Conv2d(channels, channels * widen, 1)
            self.c = torch.nn.Conv2d(channels * widen, channels, 1)

        def forward(self, x):
            return self.c(F.relu(self.b(F.relu(self.g(F.relu(self.a(x)))))))

    torch.manual_seed(0)
    return Grouped().eval()


def make_efficient():
    class Efficient(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.stem, self.bn = torch.nn.Conv2d(3, 24, 3, stride=2, padding=1, bias=False), torch.nn.BatchNorm2d(24)
            self.dw = torch.nn.Conv2d(24, 24, 3, padding=1, groups=24)
            self.squeeze, self.excite = torch.nn.Conv2d(24, 6, 1), torch.nn.Conv2d(6, 24, 1)
            self.pw = torch.nn.Conv2d(24, 32, 1)
            self.last = torch.nn.Conv2d(32, 16, 3, padding=1)
            with torch.no_grad():
                self.bn.running_mean.uniform_(-0.5, 0.5)
                self.bn.running_var.uniform_(0.5, 2.0)

        def forward(self, x):
            y = F.silu(self.bn(self.stem(x)))
            y = F.silu(self.dw(y))
            y = y * torch.sigmoid(self.excite(F.silu(self.squeeze(y.mean((2, 3), keepdim=True)))))
            y = F.hardswish(self.pw(y))
            return self.last(y)

    torch.manual_seed(0)
    return Efficient().eval()


EFFICIENT_SHAPES = [(1, 33, 40), (3, 16, 17), (2, 64, 64)]


def run_efficient(out):
    """Runs in a process whose SHAPEC_ONEDNN and DNNL_VERBOSE the parent set: the efficient
    network on each stored input."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
    from shapec_tools.model_library import ModelLibrary
    lib = ModelLibrary(os.path.join(out, "model.so"))
    for k in range(len(EFFICIENT_SHAPES)):
        call, outs = lib.prepare([np.load(os.path.join(out, f"x{k}.npy"))])
        call()
        np.save(os.path.join(out, f"got{k}.npy"), outs[0])
    return 0


def check_efficient(shapec, tmp):
    from shapec_tools.convert import convert
    net = make_efficient()
    g = torch.Generator().manual_seed(5)
    xs = [torch.randn(n, 3, h, w, generator=g) for n, h, w in EFFICIENT_SHAPES]
    path = convert(net, [xs[1]], tmp, input_names=["x"])
    with open(os.path.join(tmp, "spec.json"), "w") as fp:
        json.dump({"dynamic_shapes": {"x": [A, None, A, A]}}, fp)
    out = os.path.join(tmp, "out")
    r = subprocess.run([shapec, "export", path, "--dynamic", os.path.join(tmp, "spec.json"), "-o", out, "-q"],
                       capture_output=True, text=True)
    check(r.returncode == 0, f"efficient: exports ({r.stderr.strip()[-300:]})")
    if r.returncode:
        return
    with torch.no_grad():
        wants = [net(x).numpy() for x in xs]
    for k, x in enumerate(xs):
        np.save(os.path.join(out, f"x{k}.npy"), x.numpy())
    for mode in ("always", "default", "0"):
        env = dict(os.environ, DNNL_VERBOSE="1")
        env.pop("SHAPEC_ONEDNN", None)
        if mode != "default":
            env["SHAPEC_ONEDNN"] = mode
        v = subprocess.run([sys.executable, os.path.abspath(__file__), "--efficient", out], env=env,
                           capture_output=True, text=True)
        check(v.returncode == 0, f"efficient, {mode}: runs ({v.stderr.strip()[-300:]})")
        if v.returncode:
            continue
        for k, want in enumerate(wants):
            got = np.load(os.path.join(out, f"got{k}.npy"))
            err = float(np.abs(got - want).max()) / float(np.abs(want).max())
            check(got.shape == want.shape and err < 1e-5,
                  f"efficient, {mode}: {EFFICIENT_SHAPES[k]} matches PyTorch (max error {err:.1e} of the scale)")
        if mode == "always":
            convs = [ln for ln in v.stdout.splitlines() if ln.startswith("onednn_verbose,exec,cpu,convolution")]
            first = convs[:6]  # the first input's: stem, dw, squeeze, excite, pw, last
            swish = [ln for ln in first if "eltwise_swish" in ln]
            hard = [ln for ln in first if "eltwise_hardswish" in ln]
            check(len(first) == 6 and len(swish) == 3 and len(hard) == 1,
                  f"efficient, always: SiLU after three convolutions and hardswish after one ran as oneDNN "
                  f"post-ops ({len(swish)}, {len(hard)} of {len(first)})")


def run_grouped(out):
    """Runs in a process with DNNL_VERBOSE=1: the grouped network once on the stored input."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
    from shapec_tools.model_library import ModelLibrary
    lib = ModelLibrary(os.path.join(out, "model.so"))
    call, outs = lib.prepare([np.load(os.path.join(out, "x.npy"))])
    call()
    np.save(os.path.join(out, "got.npy"), outs[0])
    return 0


def check_grouped(shapec, tmp, channels, groups, widen):
    from shapec_tools.convert import convert
    what = f"grouped {channels}/{groups}"
    net, x = make_grouped(channels, groups, widen), torch.randn(1, channels, 28, 28, generator=torch.Generator().manual_seed(3))
    path = convert(net, [x], tmp, input_names=["x"])
    out = os.path.join(tmp, "out")  # not the model's own folder, which an export refuses
    r = subprocess.run([shapec, "export", path, "-o", out, "-q"], capture_output=True, text=True)
    check(r.returncode == 0, f"{what}: exports ({r.stderr.strip()[-300:]})")
    if r.returncode:
        return
    np.save(os.path.join(out, "x.npy"), x.numpy())
    env = dict(os.environ, SHAPEC_ONEDNN="always", DNNL_VERBOSE="1")
    v = subprocess.run([sys.executable, os.path.abspath(__file__), "--grouped", out], env=env,
                       capture_output=True, text=True)
    convs = [ln.split(",")[4] for ln in v.stdout.splitlines() if ln.startswith("onednn_verbose,exec,cpu,convolution")]
    check(v.returncode == 0 and len(convs) == 4, f"{what}: four convolutions ran in oneDNN ({convs} {v.stderr[-300:]})")
    check(not any(c.startswith("ref") for c in convs), f"{what}: none ran oneDNN's reference kernel ({convs})")
    with open("/proc/cpuinfo") as fp:
        avx512 = " avx512f " in fp.read()
    if avx512:
        check(all("avx512" in c for c in convs), f"{what}: every one ran an AVX-512 kernel ({convs})")
    if v.returncode == 0:
        with torch.no_grad():
            want = net(x).numpy()
        got = np.load(os.path.join(out, "got.npy"))
        err = float(np.abs(got - want).max()) / float(np.abs(want).max())
        check(got.shape == want.shape and err < 1e-5, f"{what}: matches PyTorch (max error {err:.1e} of the scale)")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--grouped":
        return run_grouped(sys.argv[2])
    if len(sys.argv) > 1 and sys.argv[1] == "--efficient":
        return run_efficient(sys.argv[2])
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        return child(sys.argv[2], sys.argv[3])
    if len(sys.argv) > 1 and sys.argv[1] == "--reorders":
        return reorders_of_one_call(sys.argv[2])
    if "torch" not in sys.modules:  # its import at the top failed
        tap.skip("PyTorch is not installed (apt-get install python3-torch)")
    shapec, src = sys.argv[1], sys.argv[2]
    tap.require_onednn()
    sys.path.insert(0, os.path.join(src, "tools"))
    from shapec_tools.convert import convert
    with tempfile.TemporaryDirectory() as tmp:
        net = make_net()
        path = convert(net, inputs((2, 16, 16), 0), tmp, input_names=["x", "k"])
        with open(os.path.join(tmp, "spec.json"), "w") as fp:
            json.dump({"dynamic_shapes": {"x": [A, None, A, A], "k": [None, None, None, None]}}, fp)
        out = os.path.join(tmp, "out")  # not the model's own folder, which an export refuses
        r = subprocess.run([shapec, "export", path, "--dynamic", os.path.join(tmp, "spec.json"), "-o", out, "-v"],
                           capture_output=True, text=True)
        check(r.returncode == 0, f"exports ({r.stderr.strip()[-300:]})")
        if r.returncode:
            return 1
        # c2, c4, c7 and c8 take the adds; every convolution's output but c7's (read by a
        # sigmoid) and the last one's (the program's) is read only by convolutions and the
        # max pool, as an input or a residual: c1, dw, pw, c3 (y), c2 (y again), c4 (z), c5,
        # c6 (e), c8; and the max pool's output, read by the last convolution
        absorbed = re.search(r"convolutions absorbed (\d+) residual adds and \d+ global average pools; (\d+) outputs of convolutions and max pools stay", r.stderr)
        check(absorbed is not None and absorbed.groups() == ("4", "10"),
              f"the convolutions absorbed 4 residual adds and 10 outputs stay in their layout "
              f"({absorbed.group(0) if absorbed else r.stderr.strip()[-300:]})")
        cases = {}
        for shape in SHAPES:
            for seed in (1, 7, 11):
                key = "_".join(map(str, shape)) + f"_{seed}"
                x, k = inputs(shape, seed)
                cases["x_" + key], cases["k_" + key] = x.numpy(), k.numpy()
                with torch.no_grad():
                    cases["want_" + key] = net(x, k).numpy()
        np.savez(os.path.join(out, "cases.npz"), **cases)
        for mode in ("always", "default", "0"):
            env = dict(os.environ)
            env.pop("SHAPEC_ONEDNN", None)
            if mode != "default":
                env["SHAPEC_ONEDNN"] = mode
            c = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", mode, out], env=env,
                               capture_output=True, text=True)
            sys.stdout.write(c.stdout)
            check(c.returncode == 0, f"{mode}: the process passes {c.stderr.strip()[-500:]}")
        # c1's output (batch norm and ReLU folded in) feeds only dw, and dw's only pw: those
        # tensors stay in oneDNN's layout and are never reordered to NCHW (cg_conv_layout.c)
        env = dict(os.environ, SHAPEC_ONEDNN="always", DNNL_VERBOSE="1")
        v = subprocess.run([sys.executable, os.path.abspath(__file__), "--reorders", out], env=env,
                           capture_output=True, text=True)
        second = v.stdout.split("SECOND CALL", 1)[-1].splitlines()
        convs = [ln for ln in second if ln.startswith("onednn_verbose,exec,cpu,convolution")]
        to_nchw = [ln.split(",")[-2] for ln in second if ln.startswith("onednn_verbose,exec,cpu,reorder")
                   and "dst_f32::blocked:abcd:" in ln]
        check(v.returncode == 0 and len(convs) == 11, f"always: eleven convolutions ran in oneDNN ({len(convs)})")
        sums = [ln for ln in convs if "post-ops:sum" in ln]
        check(len(sums) == 4, f"always: four convolutions added their residual as a sum post-op ({len(sums)})")
        with open("/proc/cpuinfo") as fp:
            avx512 = " avx512f " in fp.read()
        if avx512:  # c3, 3x3 with stride 1 over 9x12 outputs, takes Winograd's kernel
            wino = [ln for ln in convs if "wino" in ln]
            check(any("ic48oc48_ih9oh9kh3sh1dh0" in ln for ln in wino), f"always: c3 ran Winograd's kernel ({wino})")
        pools = [ln for ln in second if ln.startswith("onednn_verbose,exec,cpu,pooling")]
        check(not pools, f"always: the max pool ran the built-in blocked kernel ({pools})")
        check(all(s not in to_nchw for s in ("1x32x17x23", "1x32x9x12", "1x48x9x12", "1x20x3x4")),
              f"always: the tensors between convolutions stay in oneDNN's layout (reorders to NCHW: {to_nchw})")
    for channels, groups, widen in ((48, 6, 1), (128, 32, 2)):  # regnet's groups of 8, resnext's of 4
        with tempfile.TemporaryDirectory() as tmp:
            check_grouped(shapec, tmp, channels, groups, widen)
    with tempfile.TemporaryDirectory() as tmp:
        check_efficient(shapec, tmp)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
