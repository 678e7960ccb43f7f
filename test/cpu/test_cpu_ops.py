#!/usr/bin/python3
"""The CPU backend op by op: each case is a tiny module around one ATen op, converted,
exported with dynamic dims, compiled, and run through `shapec run` at two shapes (the
sample and another inside the ranges); the outputs must match the reference evaluator
(PyTorch's ATen) within float32 tolerance, exactly for integer and bool results.
Exit 77 without PyTorch.   usage: test_cpu_ops.py SHAPEC SOURCE_DIR [CASE ...]

SHAPEC_TEST_TARGET=cpu,cuda (or cuda): each case is also built for CUDA; its PTX must
assemble with ptxas for sm_80 and sm_90, the library must fail cleanly without a GPU
(SHAPEC_NO_GPU_PROBE), and where a GPU exists its outputs there are compared too.

SHAPEC_OPS_EVERY=K takes every K-th case only (the sanitizer pass's cuda_ops: the CUDA
code of every case is already sanitized by cuda_emulated_ops, so a sample of the combined
cpu,cuda libraries suffices there)."""
import functools
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # test/, for tap
import tap  # noqa: E402

tap.require_torch()
import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

shapec, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "tools"))
from shapec_tools.convert import convert  # noqa: E402
from shapec_tools.evaluate import evaluate  # noqa: E402

sys.path.insert(0, os.path.join(src, "test", "cuda"))
import cuda_checks  # noqa: E402
import bundle  # noqa: E402

DEVICES = cuda_checks.devices()
print(f"# target {cuda_checks.TARGET}; computing on {', '.join(DEVICES) or 'nothing (no GPU here)'}")

A = "_DimHint.AUTO"


class Op(torch.nn.Module):
    def __init__(self, fn, params=None):
        super().__init__()
        self.fn = fn
        for k, v in (params or {}).items():
            self.register_parameter(k, torch.nn.Parameter(v))

    def forward(self, *xs):
        return self.fn(self, *xs)


def f(shape):
    return ("f32", shape)


def i64(shape, high):
    return ("i64", shape, high)


def fpos(shape):
    return ("f32pos", shape)


def b8(shape):
    return ("bool", shape)


def fnan(shape):  # with a NaN in about one element of eight, to check that NaN propagates
    return ("f32nan", shape)


# Named Dims declared from 0: a case using them runs its second shape with empty tensors
ZERO_DIMS = {"z0": {"min": 0, "max": 4096}, "z1": {"min": 0, "max": 4096}}
Z0, Z1 = "z0", "z1"

# The cases' weights are drawn here, at import: seeded, so that every run checks the same
# numbers. Unseeded, one run in a few thousand drew weights for linear_act_unfused whose output
# sum nearly cancels, and float32 rounding alone then exceeded the tolerance.
torch.manual_seed(0)

# name: (fn(self, *inputs), inputs at the sample, inputs at a second shape, spec leaves, params)
CASES = {
    # 0-length edges: empty rows through elementwise ops, products, norms, softmax, reductions, cat
    "empty_elementwise": (lambda s, x, y: torch.relu(x * 2 + y).sigmoid(), [f([3, 4]), f([4])], [f([0, 4]), f([4])],
                          [[Z0, None], [None]]),
    "empty_rows_matmul": (lambda s, x: F.linear(x, s.w, s.b), [f([3, 5])], [f([0, 5])], [[Z0, None]],
                          {"w": torch.randn(6, 5), "b": torch.randn(6)}),
    "empty_inner_matmul": (lambda s, x, y: x @ y, [f([3, 4]), f([4, 2])], [f([3, 0]), f([0, 2])], [[None, Z0], [Z0, None]]),
    "empty_norms": (lambda s, x: (torch.softmax(x, -1), F.layer_norm(x, (6,))), [f([3, 6])], [f([0, 6])], [[Z0, None]]),
    "empty_reduce": (lambda s, x: (x.sum(0), x.amax(-1), x.mean(-1)), [f([3, 6])], [f([0, 6])], [[Z0, None]]),
    "empty_cat": (lambda s, x, y: torch.cat([x, y], 0), [f([2, 3]), f([4, 3])], [f([0, 3]), f([5, 3])], [[Z0, None], [Z1, None]]),
    "add": (lambda s, x, y: x + y, [f([4, 3]), f([3])], [f([5, 7]), f([7])], [[A, A], [A]]),
    "sub_alpha": (lambda s, x, y: torch.sub(x, y, alpha=2), [f([4, 3]), f([4, 3])], [f([2, 6]), f([2, 6])], [[A, A], [A, A]]),
    "mul_scalar": (lambda s, x: x * 3.5, [f([4, 3])], [f([6, 2])], [[A, A]]),
    "div": (lambda s, x, y: x / (y.abs() + 1), [f([4, 3]), f([1, 3])], [f([5, 2]), f([1, 2])], [[A, A], [None, A]]),
    "div_floor": (lambda s, x, y: torch.div(x, y.abs() + 0.5, rounding_mode="floor"), [f([8]), f([8])], [f([3]), f([3])], [[A], [A]]),
    "pow_scalar": (lambda s, x: x.pow(2) + x.abs().pow(0.5), [f([4, 3])], [f([2, 9])], [[A, A]]),
    # the exponents ATen computes without pow: x * x * x, 1 / sqrt, 1 / x, 1 / (x * x); and one it does not
    "pow_special": (lambda s, x: (x.pow(3), (x.abs() + 0.25).pow(-0.5), x.pow(-1), x.pow(-2), (x.abs() + 0.1).pow(2.5)),
                    [f([4, 33])], [f([3, 65])], [[A, A]]),
    "pow_int_cube": (lambda s, i: i.pow(3), [i64([4, 3], 50)], [i64([2, 9], 50)], [[A, A]]),
    "unary_chain": (lambda s, x: torch.exp(-x.abs()) + torch.log(x.abs() + 1) + torch.sqrt(x.abs()) + torch.rsqrt(x.abs() + 1)
                    + torch.sin(x) + torch.cos(x) + torch.tanh(x) + torch.erf(x) + torch.sigmoid(x) + x.reciprocal().clamp(-5, 5),
                    [f([4, 33])], [f([3, 65])], [[A, A]]),
    # erf and gelu are inline float32 rationals (cg_elementwise.c): far into the tails too
    "erf_wide": (lambda s, x: torch.erf(x * 3) + F.gelu(x * 5) - torch.erf(x * 0.001) * 1000, [f([4, 40])], [f([3, 77])], [[A, A]]),
    # rows of 5 under a broadcast: masked loops of 8 lanes, where libraries for AVX-512 take
    # the GELU's 8-lane pieces (vpermi2ps, cg_gelu_table.c)
    "gelu_short_rows": (lambda s, x: F.gelu(x * 4 + s.b), [f([6, 5])], [f([9, 5])], [[A, None]], {"b": torch.randn(5)}),
    # past the fit's clamp erf is exactly +-1: gelu(-inf) is NaN and gelu(-10) is 0, as in ATen
    "gelu_infinities": (lambda s, x: F.gelu(x.masked_fill(x > 1.0, float("inf")).masked_fill(x < -1.0, float("-inf")) * 12),
                        [f([4, 19])], [f([3, 41])], [[A, A]]),
    "activations": (lambda s, x: F.relu(x) + F.gelu(x) + F.gelu(x, approximate="tanh") + F.silu(x) + F.hardtanh(x, -0.5, 0.5)
                    + F.hardswish(x) + F.hardsigmoid(x) + F.leaky_relu(x, 0.1) + torch.clamp(x, min=-0.2), [f([2, 3, 5])], [f([3, 2, 7])], [[A, A, A]]),
    # rounding and sign at halves, zeros and NaN (round: PyTorch 1.13 cannot trace it
    # symbolically; the real-torch corpus has it, test/real/cases.py unary_more)
    "rounding_sign": (lambda s, x: (torch.floor(x * 4), torch.ceil(x * 4), torch.trunc(x * 4),
                                    torch.sign(x.masked_fill(x.abs() < 0.2, 0.0)),
                                    torch.floor(x.masked_fill(x > 0.5, float("nan")) * 8) / 2),
                      [f([4, 33])], [f([3, 65])], [[A, A]]),
    "rounding_int": (lambda s, i: (torch.floor(i), torch.ceil(i), torch.sign(i - 25)), [i64([4, 3], 50)], [i64([2, 9], 50)],
                     [[A, A]]),
    # log1p, expm1 and log2 near 0 and at the edges
    "log1p_expm1": (lambda s, x: (torch.log1p(x.abs() * 1e-6), torch.log1p(x * 0.9), torch.expm1(x * 1e-7), torch.expm1(x * 30),
                                  torch.log2(x.abs() * 64)), [f([4, 33])], [f([3, 65])], [[A, A]]),
    "elu_softplus": (lambda s, x: (F.elu(x * 3), F.elu(x, alpha=0.5), F.softplus(x * 30), F.softplus(x * 4, beta=2, threshold=5),
                                   F.celu(x, 1.5)), [f([2, 3, 5])], [f([3, 2, 7])], [[A, A, A]]),
    # flips of one, two and every dim (padding: PyTorch 1.13 cannot trace it symbolically;
    # the real-torch corpus has it, test/real/cases.py pad_flip)
    # (group norm, nearest upsampling and 1-D pooling: PyTorch 1.13 cannot trace them
    # symbolically; the real-torch corpus has them, test/real/cases.py group_norm_upsample
    # and pool1d)
    "flip": (lambda s, x: (torch.flip(x, [0]), torch.flip(x, [1, 2]), torch.flip(x, [-1, 0, 1]) * 2),
             [f([2, 3, 5])], [f([3, 4, 7])], [[A, A, A]]),
    "max_min": (lambda s, x, y: torch.maximum(x, y) - torch.minimum(x, y), [f([4, 3]), f([4, 3])], [f([2, 5]), f([2, 5])], [[A, A], [A, A]]),
    "where": (lambda s, c, x, y: torch.where(c, x, y), [b8([4, 1]), f([3]), f([4, 3])], [b8([5, 1]), f([6]), f([5, 6])], [[A, None], [A], [A, A]]),
    "compare": (lambda s, x, y: (x > y) | (x <= 0.1) & ~(x == y), [f([4, 3]), f([4, 3])], [f([2, 5]), f([2, 5])], [[A, A], [A, A]]),
    "masked_fill": (lambda s, x: x.masked_fill(x > 0, -1.0), [f([4, 3])], [f([7, 2])], [[A, A]]),
    "to_int": (lambda s, x: (x * 10).to(torch.int64), [f([4, 3])], [f([2, 8])], [[A, A]]),
    "mm": (lambda s, x, y: x @ y, [f([4, 3]), f([3, 5])], [f([2, 7]), f([7, 9])], [[A, A], [A, A]]),
    "bmm": (lambda s, x, y: torch.bmm(x, y), [f([2, 4, 3]), f([2, 3, 5])], [f([3, 2, 6]), f([3, 6, 4])], [[A, A, A], [A, A, A]]),
    "matmul_3d_2d": (lambda s, x: x @ s.w, [f([2, 4, 3])], [f([5, 2, 3])], [[A, A, None]], {"w": torch.randn(3, 6)}),
    "matmul_vec": (lambda s, x, v: x @ v, [f([4, 3]), f([3])], [f([6, 5]), f([5])], [[A, A], [A]]),
    "linear": (lambda s, x: F.linear(x, s.w, s.b), [f([2, 4, 3])], [f([3, 7, 3])], [[A, A, None]], {"w": torch.randn(5, 3), "b": torch.randn(5)}),
    # activations after linear layers, applied by the layer (cg_fold.c): exact GELU and ReLU
    # through oneDNN's post-op (large) or after OpenBLAS (small); not where the layer's
    # output is read twice, nor the tanh GELU
    "linear_gelu": (lambda s, x: F.gelu(F.linear(x, s.w, s.b)), [f([2, 5, 64])], [f([3, 7, 64])], [[A, A, None]],
                    {"w": torch.randn(300, 64), "b": torch.randn(300)}),
    "linear_relu_small": (lambda s, x: F.relu(F.linear(x, s.w)) + F.gelu(F.linear(x, s.w2, s.b)), [f([3, 6])],
                          [f([5, 6])], [[A, None]], {"w": torch.randn(4, 6), "w2": torch.randn(4, 6), "b": torch.randn(4)}),
    "linear_act_unfused": (lambda s, x: (F.relu(F.linear(x, s.w, s.b)) * F.linear(x, s.w, s.b).sum(),
                                         F.gelu(F.linear(x, s.w2), approximate="tanh")), [f([9, 70])], [f([4, 70])],
                           [[A, None]], {"w": torch.randn(120, 70), "b": torch.randn(120), "w2": torch.randn(120, 70)}),
    "view_permute": (lambda s, x: x.reshape(x.shape[0], -1).t().contiguous() + 0, [f([4, 3, 2])], [f([2, 5, 3])], [[A, A, A]]),
    "transpose_expand": (lambda s, x, y: x.transpose(0, 1) + y.expand(3, -1), [f([4, 3]), f([1, 4])], [f([6, 3]), f([1, 6])],
                         [[A, A], [None, A]]),
    "unsqueeze_squeeze": (lambda s, x: x.unsqueeze(1).squeeze(1) + x.unsqueeze(-1).sum(-1), [f([4, 3])], [f([2, 6])], [[A, A]]),
    "cat": (lambda s, x, y: torch.cat([x, y, x], dim=1), [f([4, 3]), f([4, 2])], [f([3, 5]), f([3, 3])], [[A, A], [A, A]]),
    "stack": (lambda s, x, y: torch.stack([x, y], dim=1), [f([4, 3]), f([4, 3])], [f([2, 5]), f([2, 5])], [[A, A], [A, A]]),
    "index_select": (lambda s, x, i: torch.index_select(x, 1, i), [f([4, 5]), i64([3], 5)], [f([2, 5]), i64([7], 5)], [[A, None], [A]]),
    "embedding": (lambda s, i: F.embedding(i, s.w), [i64([2, 3], 10)], [i64([4, 5], 10)], [[A, A]], {"w": torch.randn(10, 4)}),
    "repeat": (lambda s, x: x.repeat(2, 1, 3), [f([4, 3])], [f([2, 5])], [[A, A]]),
    "reductions": (lambda s, x: (x.sum(1), x.mean((0, 2)), x.amax(-1), x.var(1), x.sum()), [f([2, 4, 3])], [f([3, 5, 2])], [[A, A, A]]),
    # reductions over adjacent dims take the vectorized [outer, len, inner] path (reduce.c): rows
    # past one 32768-element chunk, columns past one 256-column block, 32-element steps with tails
    "reductions_long": (lambda s, x: (x.sum((1, 2)), x.amax((1, 2)), x.var((1, 2)), x.mean(1), x.amin(0), x.sum(0)),
                        [f([2, 40, 900])], [f([3, 37, 1001])], [[A, A, A]]),
    "reductions_nan": (lambda s, x: (x.sum(-1), x.amax(-1), x.amin(0), x.mean(0)), [fnan([5, 40])], [fnan([7, 301])], [[A, A]]),
    # rows shorter than 256 elements of a static length, every operand the output's shape: one
    # flat array cut in rows of 4096 (cg_elementwise.c, flat_rows); 700 x 16 leaves a partial last row
    "short_rows_flat": (lambda s, x, y: torch.tanh(x) * 2 + torch.exp(-y.abs()) - torch.sigmoid(x * y),
                        [f([4, 16]), f([4, 16])], [f([700, 16]), f([700, 16])], [[A, None], [A, None]]),
    # views whose every reader is a fused loop are read in place through strides (cg_strided_views.c;
    # slices, selects and a slice that a sum reads too: test_products.py's strided_views, which
    # torch 1.13's tracer cannot follow)
    "views_in_place_expand": (lambda s, x, y: x * y.expand(-1, 6, -1), [f([4, 6, 5]), f([4, 1, 5])], [f([3, 6, 7]), f([3, 1, 7])],
                              [[A, None, A], [A, None, A]]),
    "views_in_place_permute": (lambda s, x: (x.transpose(1, 2) * 3, x.permute(2, 0, 1) + x.permute(2, 0, 1).sigmoid()),
                               [f([4, 6, 5])], [f([3, 6, 7])], [[A, None, A]]),
    "short_rows_flat_3d": (lambda s, x: torch.erf(x) + x.abs().sqrt(), [f([2, 3, 7])], [f([301, 5, 7])], [[A, A, None]]),
    # a chain reading 41 tensors: more than one fused loop may read, so part of it gets a buffer
    "wide_chain": (lambda s, x: functools.reduce(lambda acc, k: acc * 0.5 + getattr(s, f"w{k}"), range(40), x),
                   [f([3, 4])], [f([5, 4])], [[A, None]], {f"w{k}": torch.randn(4) for k in range(40)}),
    "softmax": (lambda s, x: torch.softmax(x, -1) + torch.log_softmax(x, 1), [f([2, 4, 3])], [f([3, 5, 2])], [[A, A, A]]),
    # rows long enough for the 8-lane path and its tail; -inf entries (log of a 0 mask) as attention masks make
    "softmax_rows": (lambda s, x: torch.softmax(x + torch.log((x > -0.8).float()), -1) + torch.log_softmax(x, -1),
                     [f([3, 37])], [f([5, 133])], [[A, A]]),
    # rows longer than the kernels' float partial sums run before folding into a double,
    # not a multiple of the vector width, far from zero (the variance's cancellation)
    "layer_norm_long": (lambda s, x: F.layer_norm(x * 3 + 100, (2053,), s.w, s.b) + F.layer_norm(x, (2053,)),
                        [f([3, 2053])], [f([2, 2053])], [[A, None]], {"w": torch.randn(2053), "b": torch.randn(2053)}),
    "softmax_long": (lambda s, x: torch.softmax(x * 10, -1) * 1000 + torch.log_softmax(x * 10, -1), [f([2, 3001])],
                     [f([3, 3001])], [[A, None]]),
    "layer_norm": (lambda s, x: F.layer_norm(x, (4,), s.w, s.b), [f([2, 3, 4])], [f([5, 2, 4])], [[A, A, None]], {"w": torch.randn(4), "b": torch.randn(4)}),
    "conv1d": (lambda s, x: F.conv1d(x, s.w, s.b, stride=2, padding=1), [f([2, 3, 11])], [f([3, 3, 6])], [[A, None, A]],
               {"w": torch.randn(4, 3, 3), "b": torch.randn(4)}),
    "conv2d_groups": (lambda s, x: F.conv2d(x, s.w, None, padding=1, dilation=2, groups=2), [f([2, 4, 9, 8])], [f([3, 4, 7, 12])],
                      [[A, None, A, A]], {"w": torch.randn(6, 2, 3, 3)}),
    # one channel per group (the direct depthwise loop): strided, padded, dilated, with bias
    "conv2d_depthwise": (lambda s, x: F.conv2d(x, s.w, s.b, stride=(2, 1), padding=(1, 2), dilation=(1, 2), groups=5),
                         [f([2, 5, 9, 11])], [f([3, 5, 16, 7])], [[A, None, A, A]], {"w": torch.randn(5, 1, 3, 3), "b": torch.randn(5)}),
    # more weights than one image's output: the images' columns side by side in one GEMM, with ReLU fused
    "conv2d_deep_batch": (lambda s, x: F.relu(F.conv2d(x, s.w, s.b, stride=(1, 2), padding=1)), [f([3, 8, 5, 6])],
                          [f([2, 8, 3, 5])], [[A, None, A, A]], {"w": torch.randn(6, 8, 3, 3), "b": torch.randn(6)}),
    # a 1x1 convolution with stride 1 reads its input as the column matrix
    "conv2d_pointwise": (lambda s, x: F.conv2d(x, s.w, s.b), [f([2, 6, 5, 7])], [f([3, 6, 9, 4])], [[A, None, A, A]],
                         {"w": torch.randn(4, 6, 1, 1), "b": torch.randn(4)}),
    # transposed convolution: stride, padding, output padding, dilation, groups, 1-D
    "conv_transpose2d": (lambda s, x: F.conv_transpose2d(x, s.w, s.b, stride=2, padding=1, output_padding=1, groups=2, dilation=(1, 2)),
                         [f([2, 4, 5, 6])], [f([3, 4, 3, 7])], [[A, None, A, A]], {"w": torch.randn(4, 3, 3, 2), "b": torch.randn(6)}),
    "conv_transpose1d": (lambda s, x: F.conv_transpose1d(x, s.w, None, stride=3), [f([2, 3, 5])], [f([3, 3, 2])], [[A, None, A]],
                         {"w": torch.randn(3, 2, 4)}),
    "pools": (lambda s, x: (F.max_pool2d(x, 3, 2, 1), F.avg_pool2d(x, 2), F.adaptive_avg_pool2d(x, (3, 2))), [f([2, 3, 9, 8])],
              [f([2, 3, 12, 7])], [[A, None, A, A]]),
    # the global pool is each plane's mean through the reductions' rows (nn.c)
    "adaptive_avg_pool2d_global": (lambda s, x: F.adaptive_avg_pool2d(x, 1) + F.adaptive_avg_pool2d(x, (1, 1)),
                                   [f([2, 5, 7, 9])], [f([3, 5, 14, 14])], [[A, None, A, A]]),
    "batch_norm": (lambda s, x: F.batch_norm(x, s.m, s.v, s.w, s.b, False, 0.1, 1e-5), [f([2, 3, 5, 4])], [f([3, 3, 2, 6])],
                   [[A, None, A, A]], {"m": torch.randn(3), "v": torch.rand(3) + 0.5, "w": torch.randn(3), "b": torch.randn(3)}),
    # a convolution absorbs the batch norm after it and then the ReLU / ReLU6 (cg_fold.c)
    "conv_bn_relu": (lambda s, x: F.relu(F.batch_norm(F.conv2d(x, s.cw, s.cb, padding=1), s.m, s.v, s.w, s.b, False, 0.1,
                                                      1e-5)), [f([2, 3, 9, 8])], [f([1, 3, 6, 11])], [[A, None, A, A]],
                     {"cw": torch.randn(4, 3, 3, 3), "cb": torch.randn(4), "m": torch.randn(4), "v": torch.rand(4) + 0.5,
                      "w": torch.randn(4), "b": torch.randn(4)}),
    "depthwise_bn_relu6": (lambda s, x: F.hardtanh(F.batch_norm(F.conv2d(x, s.cw, None, stride=2, padding=1, groups=4), s.m,
                                                                s.v, s.w, s.b, False, 0.1, 1e-3), 0.0, 6.0),
                           [f([2, 4, 9, 8])], [f([1, 4, 13, 6])], [[A, None, A, A]],
                           {"cw": torch.randn(4, 1, 3, 3) * 3, "m": torch.randn(4), "v": torch.rand(4) + 0.5,
                            "w": torch.randn(4) * 3, "b": torch.randn(4) + 2}),
    "creation": (lambda s, x: x + torch.ones(x.shape[1]) + torch.zeros_like(x) + torch.full((1, x.shape[1]), 2.0)
                 + torch.arange(x.shape[1]), [f([4, 3])], [f([2, 7])], [[A, A]]),
}

# Ops that PyTorch 1.13's symbolic tracer cannot trace (slice, select, narrow, split,
# chunk, unbind, max.dim, argmax, gather, baddbmm): their programs are written directly.
# name: (target, inputs at the sample, inputs at a second shape, spec leaves, node args)
def T(n):
    return {"as_tensor": {"name": n}}


def I(v):
    return {"as_int": v}


def attention(xs, causal=False):
    """scaled_dot_product_attention written with 1.13's ops: softmax(q k^T / sqrt(e) + mask) v."""
    q, k, v = xs[:3]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if len(xs) > 3:
        scores = scores + xs[3]
    if causal:
        keep = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).tril()
        scores = scores.masked_fill(~keep, float("-inf"))
    return torch.softmax(scores, -1) @ v


def attention_bool(xs):
    """The same with a bool mask (True: attend), as torch's math kernel applies it."""
    return attention(list(xs[:3]) + [torch.zeros(xs[3].shape).masked_fill(~xs[3], float("-inf"))])


def F_(v):
    return {"as_float": v}


def B_(v):
    return {"as_bool": v}


def IS(v):
    return {"as_ints": v}


def aten(name):
    return f"torch.ops.aten.{name}"


X0, X1 = ("self", T("x0")), ("other", T("x1"))
M43 = [f([4, 3])]
M52 = [f([5, 2])]

SDPA = "torch.ops.aten.scaled_dot_product_attention.default"
QKV = [("query", T("x0")), ("key", T("x1")), ("value", T("x2"))]

DIRECT = {
    # operators PyTorch 1.13's tracer writes in another form, each on its own
    "add_scalar": (aten("add.Scalar"), M43, M52, [[A, A]], [X0, ("other", F_(2.5))]),
    "sub_scalar": (aten("sub.Scalar"), M43, M52, [[A, A]], [X0, ("other", F_(1.5))]),
    "rsub_scalar": (aten("rsub.Scalar"), M43, M52, [[A, A]], [X0, ("other", F_(3.0))]),
    "mul_scalar_op": (aten("mul.Scalar"), M43, M52, [[A, A]], [X0, ("other", F_(-2.0))]),
    "div_scalar": (aten("div.Scalar"), M43, M52, [[A, A]], [X0, ("other", F_(4.0))]),
    "pow_tensor_tensor": (aten("pow.Tensor_Tensor"), [fpos([4, 3]), f([4, 3])], [fpos([5, 2]), f([5, 2])], [[A, A], [A, A]],
                          [X0, ("exponent", T("x1"))]),
    "relu_": (aten("relu_.default"), M43, M52, [[A, A]], [X0]),
    "hardtanh_": (aten("hardtanh_.default"), M43, M52, [[A, A]], [X0, ("min_val", F_(-0.5)), ("max_val", F_(0.5))]),
    "clamp_min": (aten("clamp_min.default"), M43, M52, [[A, A]], [X0, ("min", F_(0.1))]),
    "clamp_max": (aten("clamp_max.default"), M43, M52, [[A, A]], [X0, ("max", F_(0.2))]),
    "eq_scalar": (aten("eq.Scalar"), [i64([4, 3], 3)], [i64([5, 2], 3)], [[A, A]], [X0, ("other", I(1))]),
    "ne_scalar": (aten("ne.Scalar"), [i64([4, 3], 3)], [i64([5, 2], 3)], [[A, A]], [X0, ("other", I(1))]),
    "lt_scalar": (aten("lt.Scalar"), M43, M52, [[A, A]], [X0, ("other", F_(0.0))]),
    "ge_scalar": (aten("ge.Scalar"), M43, M52, [[A, A]], [X0, ("other", F_(0.0))]),
    "ne_tensor": (aten("ne.Tensor"), [i64([4, 3], 2), i64([3], 2)], [i64([5, 2], 2), i64([2], 2)], [[A, A], [A]], [X0, X1]),
    "lt_tensor": (aten("lt.Tensor"), [f([4, 3]), f([3])], [f([5, 2]), f([2])], [[A, A], [A]], [X0, X1]),
    "le_tensor": (aten("le.Tensor"), [f([4, 3]), f([3])], [f([5, 2]), f([2])], [[A, A], [A]], [X0, X1]),
    "ge_tensor": (aten("ge.Tensor"), [f([4, 3]), f([3])], [f([5, 2]), f([2])], [[A, A], [A]], [X0, X1]),
    "logical_not": (aten("logical_not.default"), [b8([4, 3])], [b8([5, 2])], [[A, A]], [X0]),
    "logical_and": (aten("logical_and.default"), [b8([4, 3]), b8([4, 3])], [b8([5, 2]), b8([5, 2])], [[A, A], [A, A]], [X0, X1]),
    "logical_or": (aten("logical_or.default"), [b8([4, 3]), b8([3])], [b8([5, 2]), b8([2])], [[A, A], [A]], [X0, X1]),
    "to_dtype": (aten("to.dtype"), M43, M52, [[A, A]], [X0, ("dtype", {"as_scalar_type": 5})]),
    # operators of torch.export's default IR (test/real/corpus): in-place forms, whole-tensor
    # max/min, var.dim's `unbiased`, unflatten, new_zeros/new_ones, lift_fresh_copy
    "add_inplace": (aten("add_.Tensor"), [f([4, 3]), f([3])], [f([5, 2]), f([2])], [[A, A], [A]], [X0, X1]),
    "mul_inplace": (aten("mul_.Tensor"), [f([4, 3]), f([4, 3])], [f([5, 2]), f([5, 2])], [[A, A], [A, A]], [X0, X1]),
    "detach_inplace": (aten("detach_.default"), M43, M52, [[A, A]], [X0]),
    "lift_fresh_copy": (aten("lift_fresh_copy.default"), M43, M52, [[A, A]], [X0]),
    "max_all": (aten("max.default"), M43, M52, [[A, A]], [X0]),
    "min_all": (aten("min.default"), M43, M52, [[A, A]], [X0]),
    "var_dim_unbiased": (aten("var.dim"), [f([4, 3])], [f([5, 2])], [[A, A]], [X0, ("dim", IS([0])), ("keepdim", B_(True))]),
    "var_dim_biased": (aten("var.dim"), [f([4, 3])], [f([5, 2])], [[A, A]], [X0, ("dim", IS([1])), ("unbiased", B_(False))]),
    "view_as": (aten("view_as.default"), [f([4, 6]), f([8, 3])], [f([3, 2]), f([2, 3])], [[A, A], [A, A]], [X0, X1]),
    "unflatten": (aten("unflatten.int"), [f([3, 8])], [f([2, 8])], [[A, None]], [X0, ("dim", I(1)), ("sizes", IS([2, -1]))]),
    "new_zeros": (aten("new_zeros.default"), M43, M52, [[A, A]], [X0, ("size", IS([2, 3]))]),
    "new_ones": (aten("new_ones.default"), M43, M52, [[A, A]], [X0, ("size", IS([3]))]),
    "dropout_eval": (aten("dropout.default"), M43, M52, [[A, A]], [("input", T("x0")), ("p", F_(0.5)), ("train", B_(False))]),
    "mv": (aten("mv.default"), [f([4, 5]), f([5])], [f([3, 2]), f([2])], [[A, A], [A]], [X0, ("vec", T("x1"))]),
    "linear_op": (aten("linear.default"), [f([3, 5]), f([6, 5]), f([6])], [f([2, 4]), f([3, 4]), f([3])],
                  [[A, A], [A, A], [A]], [("input", T("x0")), ("weight", T("x1")), ("bias", T("x2"))]),
    "conv1d_op": (aten("conv1d.default"), [f([2, 3, 9]), f([4, 3, 3]), f([4])], [f([3, 3, 6]), f([4, 3, 3]), f([4])],
                  [[A, None, A], [None, None, None], [None]],
                  [("input", T("x0")), ("weight", T("x1")), ("bias", T("x2")), ("stride", IS([2])), ("padding", IS([1]))]),
    "conv2d_op": (aten("conv2d.default"), [f([2, 3, 9, 8]), f([4, 3, 3, 3])], [f([3, 3, 6, 7]), f([4, 3, 3, 3])],
                  [[A, None, A, A], [None, None, None, None]],
                  [("input", T("x0")), ("weight", T("x1")), ("stride", IS([1, 2])), ("padding", IS([1, 0])),
                   ("dilation", IS([2, 1]))]),
    "max_pool2d_op": (aten("max_pool2d.default"), [f([2, 3, 9, 8])], [f([1 + 2, 3, 6, 7])], [[A, None, A, A]],
                      [X0, ("kernel_size", IS([3, 3])), ("stride", IS([2, 2])), ("padding", IS([1, 1]))]),
    "max_pool2d_dilated_ceil": (aten("max_pool2d.default"), [f([2, 3, 11, 10])], [f([1, 3, 9, 13])], [[A, None, A, A]],
                                [X0, ("kernel_size", IS([3, 2])), ("stride", IS([2, 3])), ("padding", IS([1, 1])),
                                 ("dilation", IS([2, 1])), ("ceil_mode", {"as_bool": True})]),
    "max_pool2d_nan": (aten("max_pool2d.default"), [fnan([2, 3, 9, 8])], [fnan([1, 3, 7, 9])], [[A, None, A, A]],
                       [X0, ("kernel_size", IS([3, 3])), ("stride", IS([2, 2])), ("padding", IS([1, 1]))]),
    # the 2x2 / 2 pool's own loop (nn.c, max_pool_2x2), an odd width's last column left out
    "max_pool2d_2x2_nan": (aten("max_pool2d.default"), [fnan([2, 3, 8, 9])], [fnan([1, 3, 6, 7])], [[A, None, A, A]],
                           [X0, ("kernel_size", IS([2, 2])), ("stride", IS([2, 2]))]),
    # rows of 9 and 14 outputs: steps of four and tails of one and two, an odd height's last row left out
    "max_pool2d_2x2_wide": (aten("max_pool2d.default"), [fnan([2, 2, 6, 19])], [fnan([3, 2, 5, 29])], [[A, None, A, A]],
                            [X0, ("kernel_size", IS([2, 2])), ("stride", IS([2, 2]))]),
    "max_pool2d_with_indices_op": (aten("max_pool2d_with_indices.default"), [f([2, 3, 9, 8])], [f([1, 3, 6, 7])],
                                   [[A, None, A, A]], [X0, ("kernel_size", IS([3, 3])), ("stride", IS([2, 2])),
                                                       ("padding", IS([1, 1]))]),
    "adaptive_avg_pool2d_op": (aten("adaptive_avg_pool2d.default"), [f([2, 3, 9, 8])], [f([3, 3, 7, 5])], [[A, None, A, A]],
                               [X0, ("output_size", IS([3, 2]))]),
    "batch_norm_op": (aten("batch_norm.default"), [f([2, 3, 4, 5]), f([3]), f([3]), f([3]), fpos([3])],
                      [f([3, 3, 2, 6]), f([3]), f([3]), f([3]), fpos([3])], [[A, None, A, A]] + [[None]] * 4,
                      [("input", T("x0")), ("weight", T("x1")), ("bias", T("x2")), ("running_mean", T("x3")),
                       ("running_var", T("x4")), ("training", B_(False)), ("momentum", F_(0.1)), ("eps", F_(1e-5)),
                       ("cudnn_enabled", B_(False))]),
    "layer_norm_op": (aten("layer_norm.default"), [f([2, 3, 6]), f([6]), f([6])], [f([4, 2, 6]), f([6]), f([6])],
                      [[A, A, None], [None], [None]],
                      [("input", T("x0")), ("normalized_shape", IS([6])), ("weight", T("x1")), ("bias", T("x2")),
                       ("eps", F_(1e-5))]),
    "softmax_int": (aten("softmax.int"), [f([3, 7])], [f([2, 9])], [[A, A]], [X0, ("dim", I(-1))]),
    "log_softmax_int": (aten("log_softmax.int"), [f([3, 7])], [f([2, 9])], [[A, A]], [X0, ("dim", I(0))]),
    "mean_all": (aten("mean.default"), M43, M52, [[A, A]], [X0]),
    "amin": (aten("amin.default"), [f([3, 4, 5])], [f([2, 6, 3])], [[A, A, A]], [X0, ("dim", IS([1])), ("keepdim", B_(False))]),
    "unsafe_view": (aten("_unsafe_view.default"), [f([4, 6])], [f([4, 6])], [[None, None]], [X0, ("size", IS([2, 12]))]),
    "reshape_op": (aten("reshape.default"), [f([4, 6])], [f([4, 6])], [[None, None]], [X0, ("shape", IS([3, -1]))]),
    "flatten_op": (aten("flatten.using_ints"), [f([2, 3, 4])], [f([3, 2, 5])], [[A, A, A]],
                   [X0, ("start_dim", I(1)), ("end_dim", I(-1))]),
    "permute_op": (aten("permute.default"), [f([2, 3, 4])], [f([3, 2, 5])], [[A, A, A]], [X0, ("dims", IS([2, 0, 1]))]),
    "squeeze_dims": (aten("squeeze.dims"), [f([2, 1, 4])], [f([3, 1, 5])], [[A, None, A]], [X0, ("dim", IS([1]))],
                     lambda xs: xs[0].squeeze(1)),  # squeeze.dims is newer than PyTorch 1.13
    "contiguous_op": (aten("contiguous.default"), M43, M52, [[A, A]], [X0]),
    "alias_op": (aten("alias.default"), M43, M52, [[A, A]], [X0]),
    "split_with_sizes": (aten("split_with_sizes.default"), [f([3, 7])], [f([4, 7])], [[A, None]],
                         [X0, ("split_sizes", IS([2, 5])), ("dim", I(1))]),
    "arange_start": (aten("arange.start"), M43, M43, [[None, None]], [("start", I(2)), ("end", I(9))]),
    "arange_start_step": (aten("arange.start_step"), M43, M43, [[None, None]], [("start", I(1)), ("end", I(10)), ("step", I(3))]),
    "zeros_op": (aten("zeros.default"), M43, M43, [[None, None]], [("size", IS([2, 3]))]),
    "ones_like": (aten("ones_like.default"), M43, M52, [[A, A]], [X0]),
    "full_like": (aten("full_like.default"), M43, M52, [[A, A]], [X0, ("fill_value", F_(2.5))]),
    "scalar_tensor": (aten("scalar_tensor.default"), M43, M43, [[None, None]], [("s", F_(3.5))]),
    # attention (PyTorch 1.13 has no such op: checked against the formula)
    "sdpa": (SDPA, [f([2, 3, 5, 4]), f([2, 3, 6, 4]), f([2, 3, 6, 7])], [f([3, 2, 3, 8]), f([3, 2, 9, 8]), f([3, 2, 9, 2])],
             [[A, A, A, A]] * 3, QKV, attention),
    "sdpa_causal": (SDPA, [f([2, 5, 4]), f([2, 5, 4]), f([2, 5, 3])], [f([3, 7, 4]), f([3, 7, 4]), f([3, 7, 3])],
                    [[A, A, None]] * 2 + [[A, A, A]], QKV + [("is_causal", {"as_bool": True})],
                    lambda xs: attention(xs, causal=True)),
    "sdpa_mask2d": (SDPA, [f([2, 5, 4]), f([2, 6, 4]), f([2, 6, 3]), f([5, 6])],
                    [f([3, 2, 4]), f([3, 7, 4]), f([3, 7, 3]), f([2, 7])],
                    [[A, A, A], [A, A, A], [A, A, A], [A, A]], QKV + [("attn_mask", T("x3"))], attention),
    "sdpa_mask_batched": (SDPA, [f([2, 3, 5, 4]), f([2, 3, 6, 4]), f([2, 3, 6, 7]), f([2, 1, 5, 6])],
                          [f([3, 2, 2, 4]), f([3, 2, 7, 4]), f([3, 2, 7, 2]), f([3, 1, 2, 7])],
                          [[A, A, A, A]] * 3 + [[A, None, A, A]], QKV + [("attn_mask", T("x3"))], attention),
    # a padding mask [b, 1, 1, s] read over every head and query row; bool masks
    "sdpa_mask_rows": (SDPA, [f([2, 3, 5, 4]), f([2, 3, 6, 4]), f([2, 3, 6, 7]), f([2, 1, 1, 6])],
                       [f([3, 2, 2, 4]), f([3, 2, 7, 4]), f([3, 2, 7, 2]), f([3, 1, 1, 7])],
                       [[A, A, A, A]] * 3 + [[A, None, None, A]], QKV + [("attn_mask", T("x3"))], attention),
    "sdpa_bool_mask": (SDPA, [f([2, 3, 5, 4]), f([2, 3, 6, 4]), f([2, 3, 6, 7]), b8([2, 1, 5, 6])],
                       [f([3, 2, 2, 4]), f([3, 2, 7, 4]), f([3, 2, 7, 2]), b8([3, 1, 2, 7])],
                       [[A, A, A, A]] * 3 + [[A, None, A, A]], QKV + [("attn_mask", T("x3"))], attention_bool),
    "sdpa_kv_broadcast": (SDPA, [f([2, 3, 5, 4]), f([1, 3, 6, 4]), f([1, 3, 6, 7])], [f([4, 2, 3, 4]), f([1, 2, 5, 4]), f([1, 2, 5, 3])],
                          [[A, A, A, A], [None, A, A, A], [None, A, A, A]], QKV, attention),
    "slice": ("torch.ops.aten.slice.Tensor", [f([4, 9])], [f([3, 6])], [[A, A]],
              [("self", T("x0")), ("dim", I(1)), ("start", I(1)), ("end", I(9223372036854775807))]),
    "slice_step": ("torch.ops.aten.slice.Tensor", [f([4, 9])], [f([3, 8])], [[A, A]],
                   [("self", T("x0")), ("dim", I(1)), ("start", I(0)), ("end", I(9223372036854775807)), ("step", I(2))]),
    "select": ("torch.ops.aten.select.int", [f([4, 5])], [f([3, 2])], [[A, A]], [("self", T("x0")), ("dim", I(0)), ("index", I(-1))]),
    "narrow": ("torch.ops.aten.narrow.default", [f([4, 5])], [f([3, 7])], [[A, A]],
               [("self", T("x0")), ("dim", I(1)), ("start", I(1)), ("length", I(2))]),
    "split": ("torch.ops.aten.split.Tensor", [f([3, 7])], [f([2, 8])], [[A, A]],
              [("self", T("x0")), ("split_size", I(3)), ("dim", I(1))]),
    "chunk": ("torch.ops.aten.chunk.default", [f([5, 3])], [f([6, 2])], [[A, A]], [("self", T("x0")), ("chunks", I(2))]),
    "unbind": ("torch.ops.aten.unbind.int", [f([4, 3])], [f([2, 3])], [[A, None]], [("self", T("x0")), ("dim", I(1))]),
    # cumulative sums and products, sort and topk, norms: one kernel each on the CPU and the device
    "cumsum_f32": (aten("cumsum.default"), [f([3, 5])], [f([2, 7])], [[A, A]], [X0, ("dim", I(1))]),
    "cumsum_i64": (aten("cumsum.default"), [i64([3, 5], 9)], [i64([2, 7], 9)], [[A, A]], [X0, ("dim", I(0))]),
    "cumprod_f32": (aten("cumprod.default"), [f([4, 3])], [f([6, 2])], [[A, A]], [X0, ("dim", I(0))]),
    "topk": (aten("topk.default"), [f([3, 6])], [f([2, 9])], [[A, A]], [X0, ("k", I(2)), ("dim", I(1))]),
    "topk_smallest": (aten("topk.default"), [f([5, 3])], [f([8, 2])], [[A, A]],
                      [X0, ("k", I(3)), ("dim", I(0)), ("largest", B_(False))]),
    "sort_desc": (aten("sort.default"), [f([4, 5])], [f([3, 8])], [[A, A]], [X0, ("dim", I(-1)), ("descending", B_(True))]),
    "vector_norm": (aten("linalg_vector_norm.default"), [f([3, 5])], [f([2, 7])], [[A, A]],
                    [X0, ("ord", F_(2.0)), ("dim", IS([1])), ("keepdim", B_(False))]),
    "vector_norm_l1": (aten("linalg_vector_norm.default"), [f([3, 5])], [f([2, 7])], [[A, A]],
                       [X0, ("ord", F_(1.0)), ("dim", IS([0])), ("keepdim", B_(True))]),
    "weight_norm": (aten("_weight_norm.default"), [f([4, 3, 2]), f([4, 1, 1])], [f([4, 3, 2]), f([4, 1, 1])],
                    [[None, None, None], [None, None, None]], [("v", T("x0")), ("g", T("x1")), ("dim", I(0))]),
    "upsample_bilinear": (aten("upsample_bilinear2d.vec"), [f([2, 2, 3, 4])], [f([3, 3, 2, 5])], [[A, A, A, A]],
                          [("input", T("x0")), ("output_size", {"as_none": True}), ("align_corners", B_(False)),
                           ("scale_factors", {"as_floats": [2.0, 3.0]})]),
    "sum_bool": (aten("sum.dim_IntList"), [b8([3, 5])], [b8([4, 2])], [[A, A]],
                 [X0, ("dim", IS([1])), ("keepdim", B_(False))]),
    "max_dim": ("torch.ops.aten.max.dim", [f([3, 4, 5])], [f([2, 7, 3])], [[A, A, A]], [("self", T("x0")), ("dim", I(1))]),
    "argmax": ("torch.ops.aten.argmax.default", [f([3, 4, 5])], [f([2, 7, 3])], [[A, A, A]],
               [("self", T("x0")), ("dim", I(-1)), ("keepdim", {"as_bool": True})]),
    "min_dim": ("torch.ops.aten.min.dim", [f([3, 4, 5])], [f([2, 7, 3])], [[A, A, A]], [("self", T("x0")), ("dim", I(1))]),
    "min_dim_nan": ("torch.ops.aten.min.dim", [fnan([3, 9, 5])], [fnan([2, 17, 3])], [[A, A, A]],
                    [("self", T("x0")), ("dim", I(1)), ("keepdim", {"as_bool": True})]),
    "argmin": ("torch.ops.aten.argmin.default", [f([3, 4, 5])], [f([2, 7, 3])], [[A, A, A]],
               [("self", T("x0")), ("dim", I(-1)), ("keepdim", {"as_bool": True})]),
    "argmin_all": ("torch.ops.aten.argmin.default", [f([3, 4, 5])], [f([2, 7, 3])], [[A, A, A]], [("self", T("x0"))]),
    "any_dim_bool": ("torch.ops.aten.any.dim", [b8([3, 4, 5])], [b8([2, 7, 3])], [[A, A, A]],
                     [("self", T("x0")), ("dim", I(-1)), ("keepdim", {"as_bool": True})]),
    "any_dim_f32": ("torch.ops.aten.any.dim", [f([3, 4, 5])], [f([2, 7, 3])], [[A, A, A]],
                    [("self", T("x0")), ("dim", I(1))]),
    "gather": ("torch.ops.aten.gather.default", [f([4, 5]), i64([4, 3], 5)], [f([2, 5]), i64([2, 6], 5)], [[A, None], [A, A]],
               [("self", T("x0")), ("dim", I(1)), ("index", T("x1"))]),
    # data-dependent output sizes: the count of nonzeros is known only after reading the data
    "nonzero_i64": ("torch.ops.aten.nonzero.default", [i64([3, 4], 3)], [i64([5, 2], 2)], [[A, A]], [("self", T("x0"))]),
    "nonzero_f32": ("torch.ops.aten.nonzero.default", [f([7])], [f([3])], [[A]], [("self", T("x0"))]),
    "masked_select": ("torch.ops.aten.masked_select.default", [f([4, 5]), b8([4, 5])], [f([3, 2]), b8([3, 2])],
                      [[A, A], [A, A]], [("self", T("x0")), ("mask", T("x1"))]),
    "masked_select_bcast": ("torch.ops.aten.masked_select.default", [f([4, 5]), b8([5])], [f([6, 3]), b8([3])],
                            [[A, A], [A]], [("self", T("x0")), ("mask", T("x1"))]),
    # x[mask] (aten.index.Tensor with one boolean mask): the whole shape, or the leading dims (rows)
    "index_mask": ("torch.ops.aten.index.Tensor", [f([4, 5]), b8([4, 5])], [f([3, 2]), b8([3, 2])],
                   [[A, A], [A, A]], [("self", T("x0")), ("indices", {"as_tensors": [{"name": "x1"}]})]),
    "index_mask_rows": ("torch.ops.aten.index.Tensor", [f([4, 5, 3]), b8([4, 5])], [f([6, 2, 3]), b8([6, 2])],
                        [[A, A, A], [A, A]], [("self", T("x0")), ("indices", {"as_tensors": [{"name": "x1"}]})]),
    # x[i], x[i, j] and x[:, i] with integer index tensors (aten.index.Tensor): negative
    # indices, two index tensors broadcast together, a dim left whole before the index
    "index_ints": ("torch.ops.aten.index.Tensor", [f([4, 5]), ("i64neg", [3], 4)], [f([6, 2]), ("i64neg", [7], 6)],
                   [[A, A], [A]], [("self", T("x0")), ("indices", {"as_tensors": [{"name": "x1"}]})]),
    "index_ints_two": ("torch.ops.aten.index.Tensor", [f([4, 5, 3]), i64([3, 1], 4), i64([2], 5)],
                       [f([6, 5, 2]), i64([2, 1], 6), i64([2], 5)], [[A, None, A], [A, None], [None]],
                       [("self", T("x0")), ("indices", {"as_tensors": [{"name": "x1"}, {"name": "x2"}]})]),
    "index_ints_after": ("torch.ops.aten.index.Tensor", [f([3, 4, 5]), i64([2, 3], 4)], [f([2, 6, 1]), i64([1, 4], 6)],
                         [[A, A, A], [A, A]],
                         [("self", T("x0")), ("indices", {"as_optional_tensors": [{"as_none": True},
                                                                                 {"as_tensor": {"name": "x1"}}]})]),
    # aten.matmul with batch broadcasting (torch.export keeps it whole; 1.13's tracer decomposes it)
    "matmul_ranks": ("torch.ops.aten.matmul.default", [f([2, 3, 4, 5]), f([3, 5, 6])], [f([3, 2, 2, 7]), f([2, 7, 3])],
                     [[A, A, A, A], [A, A, A]], [("self", T("x0")), ("other", T("x1"))]),
    "matmul_bcast": ("torch.ops.aten.matmul.default", [f([2, 1, 4, 5]), f([1, 3, 5, 6])], [f([4, 1, 3, 2]), f([1, 3, 2, 5])],
                     [[A, None, A, A], [None, A, A, A]], [("self", T("x0")), ("other", T("x1"))]),
    "matmul_mat_batch": ("torch.ops.aten.matmul.default", [f([4, 5]), f([2, 5, 6])], [f([3, 2]), f([4, 2, 5])],
                         [[A, A], [A, A, A]], [("self", T("x0")), ("other", T("x1"))]),
    "matmul_vec": ("torch.ops.aten.matmul.default", [f([5]), f([2, 3, 5, 6])], [f([2]), f([3, 2, 2, 4])],
                   [[A], [A, A, A, A]], [("self", T("x0")), ("other", T("x1"))]),
    "baddbmm": ("torch.ops.aten.baddbmm.default", [f([2, 4, 5]), f([2, 4, 3]), f([2, 3, 5])],
                [f([3, 2, 6]), f([3, 2, 4]), f([3, 4, 6])], [[A, A, A], [A, A, A], [A, A, A]],
                [("self", T("x0")), ("batch1", T("x1")), ("batch2", T("x2")), ("beta", {"as_float": 0.5}), ("alpha", {"as_float": 2.0})]),
}


def direct_program(target, xs, args, ref=None):
    """A one-node program; its output metas come from running the node once (or from ref,
    a reference written with older ops, for an op this PyTorch lacks)."""
    from shapec_tools import files
    program = {
        "graph_module": {
            "graph": {"inputs": [T(f"x{i}") for i in range(len(xs))], "outputs": [], "nodes": [],
                      "tensor_values": {f"x{i}": files.tensor_meta(x) for i, x in enumerate(xs)},
                      "sym_int_values": {}, "sym_bool_values": {}},
            "signature": {"input_specs": [{"user_input": {"arg": T(f"x{i}")}} for i in range(len(xs))], "output_specs": []},
            "module_call_graph": [],
        },
        "opset_version": {"aten": 10}, "range_constraints": {}, "schema_version": {"major": 8, "minor": 13},
    }
    from shapec_tools.evaluate import Evaluator
    node = {"target": target, "inputs": [{"name": n, "arg": a, "kind": 1} for n, a in args], "outputs": [], "metadata": {},
            "name": "op"}
    if ref:
        result = ref(xs)
    else:
        ev = Evaluator(program, {})
        for i, x in enumerate(xs):
            ev.env[f"x{i}"] = x
        result = ev.call(node)
    results = list(result) if isinstance(result, (tuple, list)) else [result]
    g = program["graph_module"]["graph"]
    for k, r in enumerate(results):
        g["tensor_values"][f"out{k}"] = files.tensor_meta(r)
    node["outputs"] = [{"as_tensors": [{"name": f"out{k}"} for k in range(len(results))]}] if target.endswith(
        ("split.Tensor", "split_with_sizes.default", "chunk.default", "unbind.int")) else [T(f"out{k}") for k in range(len(results))]
    g["nodes"] = [node]
    g["outputs"] = [T(f"out{k}") for k in range(len(results))]
    program["graph_module"]["signature"]["output_specs"] = [{"user_output": {"arg": T(f"out{k}")}} for k in range(len(results))]
    return program


checks = tap.Checks()
check = checks.check


def make(desc, seed):
    g = torch.Generator().manual_seed(seed)
    if desc[0] == "f32":
        return torch.randn(*desc[1], generator=g)
    if desc[0] == "f32pos":  # variances: positive
        return torch.rand(*desc[1], generator=g) + 0.5
    if desc[0] == "i64":
        return torch.randint(0, desc[2], desc[1], generator=g)
    if desc[0] == "i64neg":  # indices from the end too
        return torch.randint(-desc[2], desc[2], desc[1], generator=g)
    if desc[0] == "f32nan":
        x = torch.randn(*desc[1], generator=g)
        return x.masked_fill(torch.rand(*desc[1], generator=g) < 0.125, float("nan"))
    return torch.rand(*desc[1], generator=g) > 0.5


EVERY = int(os.environ.get("SHAPEC_OPS_EVERY", "1"))
SELECTED = sys.argv[3:] or (list(CASES) + list(DIRECT))[::EVERY]
for name in SELECTED:
    ref = None
    if name in DIRECT:
        target, sample, other, leaves, node_args = DIRECT[name][:5]
        ref = DIRECT[name][5] if len(DIRECT[name]) > 5 else None
    else:
        case = CASES[name]
        fn, sample, other, leaves = case[:4]
        params = case[4] if len(case) > 4 else None
    names = [f"x{i}" for i in range(len(sample))]
    with tempfile.TemporaryDirectory() as tmp:
        if name in DIRECT:
            path = os.path.join(tmp, "model.json")
            with open(path, "w") as fp:
                json.dump(direct_program(target, [make(d, 1) for d in sample], node_args, ref), fp)
        else:
            torch.manual_seed(0)
            module = Op(fn, params).eval()
            try:
                path = convert(module, [make(d, 1) for d in sample], tmp, input_names=names)
            except Exception as e:  # noqa: BLE001
                check(False, f"{name}: converts ({type(e).__name__}: {str(e)[:200]})")
                continue
        if os.environ.get("SHAPEC_OPS_SEEN"):  # coverage: the operators this case compiles
            with open(path) as fp, open(os.environ["SHAPEC_OPS_SEEN"], "a") as seen:
                for node in json.load(fp)["graph_module"]["graph"]["nodes"]:
                    seen.write(node["target"] + "\n")
        with open(os.path.join(tmp, "spec.json"), "w") as fp:
            used = {leaf for spec_leaves in leaves for leaf in spec_leaves if leaf in ZERO_DIMS}
            json.dump({"dynamic_shapes": dict(zip(names, leaves)), **({"dims": {d: ZERO_DIMS[d] for d in used}} if used else {})}, fp)
        out = os.path.join(tmp, "out")
        r = subprocess.run([shapec, "export", path, "--dynamic", os.path.join(tmp, "spec.json"), "-o", out, "-q"]
                           + cuda_checks.export_flags(), capture_output=True, text=True)
        if r.returncode != 0:
            check(False, f"{name}: compiles ({r.stderr.strip()[:400]})")
            continue
        for arch, ok, msg in cuda_checks.ptxas(out):
            check(ok, f"{name}: its PTX assembles with ptxas -arch={arch} {msg}")
        probe = cuda_checks.no_gpu(os.path.join(out, "model.so"), [list(make(d, 1).shape) for d in sample])
        if probe:
            check(probe[0], f"{name}: without a GPU the library loads, checks its guards and says 'no CUDA device'"
                            + ("" if probe[0] else f"\n{probe[1]}"))
        bundled = []
        for k, descs in enumerate((sample, other)):
            xs = [make(d, 10 + k) for d in descs]
            want = None
            if bundle.DIR:  # for a GPU elsewhere (test/cuda/bundle.py)
                before = [x.clone() for x in xs]
                want = [ref(xs)] if ref else evaluate(path, xs)  # an in-place program changes xs
                bundled.append((before, want, xs))
                xs = [x.clone() for x in before]
            for device in DEVICES:
                args = [shapec, "run", os.path.join(out, "model.so"), "--out", os.path.join(tmp, f"r{k}{device}"),
                        "--device", device]
                for n, x in zip(names, xs):
                    p = os.path.join(tmp, f"{n}_{k}.npy")
                    np.save(p, x.numpy())
                    args += ["--input", f"{n}={p}"]
                res = subprocess.run(args, capture_output=True, text=True)
                if res.returncode != 0:
                    check(False, f"{name}: runs on {device} at shapes {[list(x.shape) for x in xs]} ({res.stderr.strip()[:300]})")
                    continue
                if want is None:
                    want = [ref(xs)] if ref else evaluate(path, xs)
                worst, exact = 0.0, True
                for o, w in zip(res.stdout.split(), want):
                    got = torch.from_numpy(np.load(o))
                    if got.shape != w.shape or got.dtype != w.dtype:
                        worst = float("inf")
                        break
                    if w.dtype.is_floating_point:
                        # NaN where ATen has NaN, equal infinities, then the largest difference
                        if not torch.equal(torch.isnan(got), torch.isnan(w)):
                            worst = float("inf")
                            continue
                        finite = torch.isfinite(w)
                        if not torch.equal(got[~finite & ~torch.isnan(w)], w[~finite & ~torch.isnan(w)]):
                            worst = float("inf")
                            continue
                        g_f, w_f = got[finite], w[finite]
                        if w_f.numel():
                            worst = max(worst, float((g_f - w_f).abs().max() / max(1.0, float(w_f.abs().max()))))
                    else:
                        exact &= bool(torch.equal(got, w))
                check(worst < 1e-4 and exact, f"{name}: matches {'the reference' if ref else 'ATen'} on {device} at {[list(x.shape) for x in xs]} (error {worst:.1e}{'' if exact else ', integers differ'})")
        if bundle.DIR:
            bundle.save("ops", name, out, names, bundled)

sys.exit(checks.finish(f"# {len(checks.failures)} failed of {len(SELECTED)} cases"))
