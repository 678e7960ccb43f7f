"""gen_tiny_ops.py - small programs for the runtime's paths for tiny tensors (average
pooling, nearest upsampling, softmax over short rows, depthwise and transposed
convolutions, attention with fewer queries than keys), exported by real torch with torch's
outputs at two shapes; test_tiny_ops.py holds shapec to them without torch.

    scripts/real-torch.sh --torch 2.14 run test/cpu/gen_tiny_ops.py [CASE ...]

With case names, only those are written.  Writes test/cpu/tiny_ops/<case>/: model.pt2
(dynamic dims as given here), and for shape k in 0, 1: in<k>_<i>.npy, out<k>_<j>.npy."""
import os
import sys

import torch
import torch.nn.functional as F
from torch.export import Dim

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from stored_cases import save_case  # noqa: E402
OUT = os.path.join(HERE, "tiny_ops")
torch.manual_seed(0)


class Fn(torch.nn.Module):
    def __init__(self, fn, **modules):
        super().__init__()
        self.fn = fn
        for name, m in modules.items():
            setattr(self, name, m)

    def forward(self, *xs):
        return self.fn(self, *xs)


def export(name, module, samples, others, dynamic):
    if sys.argv[1:] and name not in sys.argv[1:]:
        return
    module.eval()
    # Fn's forward takes *xs: its specs are one tuple
    ep = torch.export.export(module, tuple(samples), dynamic_shapes=(dynamic,) if isinstance(module, Fn) else dynamic)
    save_case(os.path.join(OUT, name), module, ep, samples, others)
    print(name, [tuple(x.shape) for x in samples], [tuple(x.shape) for x in others])


def randn(*shape):
    return torch.randn(*shape) * 10


def with_negative_zeros(x):
    """x with a few whole 2x2 windows of -0.0 (their average is +0.0 in torch: its sums
    start from 0) and some single -0.0s."""
    x = x.clone()
    x[..., 0:2, 0:2] = -0.0
    x.view(-1)[5::7] = -0.0
    return x


B, H, W = Dim("b", min=1, max=64), Dim("h", min=4, max=64), Dim("w", min=4, max=64)
export("avg_pool_2x2", Fn(lambda s, x: F.avg_pool2d(x, 2)), [with_negative_zeros(randn(2, 3, 8, 8))],
       [with_negative_zeros(randn(1, 3, 7, 13))], ({0: B, 2: H, 3: W},))
export("avg_pool_windows",
       Fn(lambda s, x: (F.avg_pool2d(x, 3, 2, 1), F.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
                        F.avg_pool2d(x, 3, 2, 0, ceil_mode=True), F.avg_pool2d(x, 2, divisor_override=3),
                        F.avg_pool2d(x, 2, divisor_override=4), F.avg_pool2d(x, (1, 3), (1, 2)))),
       [randn(2, 3, 9, 11)], [randn(1, 3, 6, 5)], ({0: B, 2: Dim.AUTO, 3: Dim.AUTO},))
export("upsample_nearest",
       Fn(lambda s, x: (F.interpolate(x, scale_factor=2), F.interpolate(x, scale_factor=(4, 2)),
                        x[:, :, :, None, :].expand(-1, -1, -1, 3, -1).reshape(x.shape[0], x.shape[1], -1, x.shape[3]) + 1,
                        x.sum(1, keepdim=True).expand(-1, 3, -1, -1) * 2)),
       [randn(2, 2, 4, 4)], [randn(1, 2, 3, 5)], ({0: B, 2: Dim.AUTO, 3: Dim.AUTO},))


def softmaxes(s, x):
    """Softmax and log-softmax over rows of 1 to 8 (one vector each), one row with -inf
    entries (a mask) and one all -inf (NaN in torch)."""
    outs = []
    for n in (1, 3, 4, 7, 8):
        part = x[..., :n]
        outs += [torch.softmax(part, -1), F.log_softmax(part, -1)]
    masked = x[..., :6].masked_fill(x[..., :6] > 5, float("-inf"))
    return tuple(outs) + (torch.softmax(masked, -1), torch.softmax(x[..., :4] * float("-inf"), -1))


export("softmax_short", Fn(softmaxes), [randn(3, 9)], [randn(5, 9) * 3], ({0: B},))


class Pieces(torch.nn.Module):
    """Pieces of tensors that are runs of their memory, named in place of a copy: a split of
    a parameter's rows (two linear layers' weights), a select, a narrow and a slice of the
    input along its first dim, one of them a graph output; a piece along a later dim of the
    parameter is not a run and is copied."""

    def __init__(self):
        super().__init__()
        self.p = torch.nn.Parameter(torch.randn(6, 4))
        self.b = torch.nn.Parameter(torch.randn(6))

    def forward(self, x):
        w1, w2 = self.p.split([2, 4])
        b1, b2 = self.b.split([2, 4])
        cols = self.p[:, 1:3]
        y = F.linear(x, w1, b1), F.linear(x, w2, b2)
        return y + (x[0] + 1, x.narrow(0, 1, 2).relu(), x[1:], cols * 2, x[2:3])


export("pieces", Pieces(), [randn(4, 4)], [randn(7, 4)], ({0: Dim("b3", min=3, max=64)},))
mha = torch.nn.MultiheadAttention(8, 2, batch_first=True)
export("mha_cross", Fn(lambda s, q, kv: s.a(q, kv, kv, need_weights=False)[0], a=mha), [randn(2, 3, 8) / 10, randn(2, 5, 8) / 10],
       [randn(3, 4, 8) / 10, randn(3, 9, 8) / 10], ({0: B, 1: Dim.AUTO}, {0: B, 1: Dim.AUTO}))
export("depthwise", Fn(lambda s, x: s.c(x).relu(), c=torch.nn.Conv2d(4, 4, 3, padding=1, groups=4)), [randn(2, 4, 6, 6)],
       [randn(3, 4, 5, 7)], ({0: B, 2: Dim.AUTO, 3: Dim.AUTO},))
export("small_convs",
       Fn(lambda s, x: (s.a(x), s.b(x).clamp(0, 6), s.d(x)), a=torch.nn.Conv2d(3, 8, 3, padding=1),
          b=torch.nn.Conv2d(3, 2, (2, 5), padding=(0, 2)), d=torch.nn.Conv2d(3, 6, 1, padding=1, groups=3)),
       [randn(2, 3, 8, 8)], [randn(1, 3, 5, 3)], ({0: B, 2: Dim.AUTO, 3: Dim.AUTO},))
# short rows under a broadcast (masked vectors), and y[:1] of a dynamic batch, whose size is
# Min(1, b) to the analysis and 1 when it runs: it broadcasts
export("short_broadcast_rows",
       Fn(lambda s, x, y: (x / (x.pow(2).mean(1, keepdim=True) + 1e-8).sqrt(), y * y[:, :1] + 1,
                           torch.tanh(y[:, :, :31] * y[:, :1, :31]), y.sigmoid() * y[:1],
                           y[:1].expand(y.shape[0], -1, -1).contiguous(), y[:1].expand(y.shape[0], -1, -1) + 1)),
       [randn(2, 4, 4, 4) / 10, randn(2, 3, 33) / 10], [randn(3, 4, 5, 3) / 10, randn(3, 3, 33) / 10],
       ({0: B, 2: Dim.AUTO, 3: Dim.AUTO}, {0: B}))
# transposed convolutions whose taps never overlap (stride = kernel): the in-place way for
# kw = 2 (8 columns a step, row tails of 1 to 7), output padding, kw = 3 with groups and
# kw = 1 (one output at a time), and 20 input channels (the product way)
export("conv_transpose_disjoint",
       Fn(lambda s, x, v, z: (s.a(x), s.p(x), s.g(v), s.k(x), s.a2(v), s.wide(z)),
          a=torch.nn.ConvTranspose2d(3, 4, 2, stride=2), a2=torch.nn.ConvTranspose2d(4, 2, 2, stride=2), p=torch.nn.ConvTranspose2d(3, 2, 2, stride=2, output_padding=1),
          g=torch.nn.ConvTranspose2d(4, 6, 3, stride=3, groups=2), k=torch.nn.ConvTranspose2d(3, 2, (2, 1), stride=(2, 1)),
          wide=torch.nn.ConvTranspose2d(20, 3, 2, stride=2)),
       [randn(2, 3, 5, 11) / 10, randn(2, 4, 3, 6) / 10, randn(2, 20, 3, 5) / 10],
       [randn(1, 3, 4, 12) / 10, randn(1, 4, 2, 13) / 10, randn(1, 20, 2, 8) / 10],
       ({0: B, 2: Dim.AUTO, 3: Dim.AUTO}, {0: B, 2: Dim.AUTO, 3: Dim.AUTO}, {0: B, 2: Dim.AUTO, 3: Dim.AUTO}))
# a view that reaches fused loops through identities (dropout in eval, detach, alias) is
# read in place; one that is also an output is copied
export("views_through_identities",
       Fn(lambda s, x, y: (s.drop(x.transpose(0, 1)) + y, x.transpose(0, 1).detach() * 2 - y,
                           torch.ops.aten.alias.default(x[:, 1:].transpose(0, 1)) + 1,
                           s.drop(x.transpose(0, 1)), s.drop(x.transpose(0, 1)).sigmoid()),
          drop=torch.nn.Dropout(0.25)),
       [randn(4, 3, 8), randn(3, 4, 8)], [randn(6, 3, 8), randn(3, 6, 8)], ({0: B}, {1: B}))
# outputs that a layer computes for the activation, residual add or batch norm folded
# into it: computed in the caller's tensor (and, by outputs_over_inputs.c, aside when that
# tensor is an input's memory)
def scaled_linear(k, n, by):
    layer = torch.nn.Linear(k, n)
    with torch.no_grad():
        layer.weight *= by
    return layer


export("folded_outputs",
       Fn(lambda s, x, y: (F.relu(s.a(x)), x + s.b(x), F.relu6(s.c(x) * 4), F.relu6(s.d(x)), F.relu(s.n(s.k(y))),
                           s.k(y) + y),
          a=torch.nn.Linear(8, 8), b=torch.nn.Linear(8, 8), c=torch.nn.Linear(8, 8), d=scaled_linear(8, 8, 30),
          k=torch.nn.Conv2d(2, 2, 3, padding=1), n=torch.nn.BatchNorm2d(2)),
       [randn(3, 8) / 10, randn(2, 2, 5, 5) / 10], [randn(5, 8) / 10, randn(1, 2, 5, 5) / 10],
       ({0: B}, {0: Dim("b2", min=1, max=64)}))
# linear layers over a permutation of their input's leading dims: read in place, rows in
# the input's order, where only chains of views to attention read the result
# (nn.MultiheadAttention's batch-first inputs, self-attention); in order where anything
# else reads it (an output, a ReLU, a view that is also an output)
mha_self = torch.nn.MultiheadAttention(8, 2, batch_first=True)


def rows_orders(s, x):
    t = x.transpose(0, 1)
    shared = s.c(x.permute(1, 0, 2))
    heads = shared.view(shared.shape[0], shared.shape[1] * 2, 4).transpose(0, 1)
    return (s.a(x, x, x, need_weights=False)[0], s.b(t), F.relu(s.b(t)), heads,
            F.scaled_dot_product_attention(heads, heads, heads))


export("linear_rows_order", Fn(rows_orders, a=mha_self, b=torch.nn.Linear(8, 6), c=torch.nn.Linear(8, 8)),
       [randn(2, 4, 8) / 10], [randn(3, 5, 8) / 10], ({0: B, 1: Dim("l", min=1, max=64)},))


# small linear layers with code of their own (backends/llvm/cg_tiny_linear.c): no bias over 3
# outputs (a partial vector; NaN and inf in), 20 outputs with a folded ReLU, 20 with a folded
# residual, 32 x 32 twice over the same weights (at 300 rows, split over the threads), a 3-D
# input; the first shape's 7 rows leave remainders after the row blocks.  Layer norms over
# the rows of a layer taken into its code: 20 wide after a residual, 9 wide without weights,
# and 8 and 5 wide (blocks of eight rows normalized as one)
def tiny_linears(s, x, h):
    c = s.c(s.c(s.d(h)))
    return (s.a(x), F.relu(s.b(h)), h + s.f(h), c, s.e(x.unsqueeze(1).expand(-1, 2, -1)), s.n(h + s.g(h)),
            F.layer_norm(s.q(x), (9,)), s.m(s.u(h) + s.j(x)), F.layer_norm(s.o(h), (5,)))


def random_norm(n):
    norm = torch.nn.LayerNorm(n)
    with torch.no_grad():
        norm.weight.uniform_(0.5, 1.5)
        norm.bias.uniform_(-0.5, 0.5)
    return norm


def with_specials(x):
    x = x.clone()
    x[0, 1], x[-1, 2] = float("nan"), float("-inf")
    return x


export("tiny_linears", Fn(tiny_linears, a=torch.nn.Linear(5, 3, bias=False), b=torch.nn.Linear(20, 20),
                          f=torch.nn.Linear(20, 20), c=torch.nn.Linear(32, 32), d=torch.nn.Linear(20, 32),
                          e=torch.nn.Linear(5, 9), g=torch.nn.Linear(20, 20), n=random_norm(20),
                          q=torch.nn.Linear(5, 9), u=torch.nn.Linear(20, 8), j=torch.nn.Linear(5, 8), m=random_norm(8),
                          o=torch.nn.Linear(20, 5)),
       [with_specials(randn(7, 5) / 10), randn(7, 20) / 10], [with_specials(randn(300, 5) / 10), randn(300, 20) / 10],
       ({0: Dim("rows", min=1, max=4096)}, {0: Dim("rows", min=1, max=4096)}))


# Layer norms taken into tiny layers' code on batches large enough to split over threads
# (from 1,025 rows for 8 x 8): a thread's share can end in rows left over after the blocks
# of eight, which must be normalized with the block's very steps.  8 wide after a residual
# (its mean a multiply-add: 1/8 is exact), 6 wide (a division).
export("linear_norm_threads", Fn(lambda s, x: (s.m(x + s.a(x)), s.n(s.b(x))), a=torch.nn.Linear(8, 8),
                                 b=torch.nn.Linear(8, 6), m=random_norm(8), n=random_norm(6)),
       [randn(1500, 8) / 10], [randn(2311, 8) / 10], ({0: Dim("rows", min=1, max=8192)},))


# nn.MultiheadAttention's batch-first result read twice (by a ReLU and an add): the
# out-projection's rows in batch-first order are a compact tensor both loops read
# (backends/llvm/cg_batch_first.c)
def mha_reads(s, x):
    o = s.a(x, x, x, need_weights=False)[0]
    return o.relu(), o + x


export("mha_reads", Fn(mha_reads, a=torch.nn.MultiheadAttention(8, 2, batch_first=True)), [randn(2, 4, 8) / 10],
       [randn(3, 6, 8) / 10], ({0: B, 1: Dim("l", min=1, max=64)},))


# addmm and mm over t(w), as older exports write nn.Linear, take the small layers' code
# (cg_tiny_linear.c); where the rows come transposed (x.t(), read by BLAS's flag) they must not
class AddmmLayers(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w, self.b = torch.nn.Parameter(torch.randn(6, 5)), torch.nn.Parameter(torch.randn(6))

    def forward(self, x, xt):
        return torch.addmm(self.b, x, self.w.t()), torch.mm(x, self.w.t()), torch.addmm(self.b, xt.t(), self.w.t())


export("addmm_layers", AddmmLayers(), [randn(7, 5), randn(5, 7)], [randn(20, 5), randn(5, 20)],
       ({0: Dim("rows", min=1, max=4096)}, {1: Dim("rows", min=1, max=4096)}))


def inplace_activations(s, x):
    """The in-place variants torch.export keeps (torchvision's inplace=True modules): each
    updates a fresh tensor, and sub_ reads one that hardswish_ updated before."""
    y = x * 1.5
    a = F.hardswish(y, inplace=True)
    b = F.silu(x + 1, inplace=True)
    c = F.dropout(x - 1, 0.5, training=False, inplace=True)
    d = torch.sigmoid_(x * 2)
    e = F.leaky_relu(x * 3, 0.1, inplace=True)
    f = (x * 4).clamp_(-1, 2)
    g = F.hardsigmoid(x * 5, inplace=True)
    h = F.elu(x * 0.5, inplace=True)
    i = (x * 6).tanh_()
    j = (x * 7).sub_(y)
    return a + b + c + d + e, f + g + h + i + j


export("inplace_activations", Fn(inplace_activations), [randn(3, 8) / 10], [randn(5, 8) / 10], ({0: B},))


def bilinear(s, x, z):
    """upsample_bilinear2d.vec in its forms: whole scale factors with and without
    align_corners, an output size (shrinking one side), a size read from another input, and a
    transposed (strided) input."""
    return (F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False),
            F.interpolate(x, scale_factor=3, mode="bilinear", align_corners=True),
            F.interpolate(x, size=(7, 3), mode="bilinear", align_corners=False),
            F.interpolate(x, size=z.shape[-2:], mode="bilinear", align_corners=False),
            F.interpolate(x.transpose(2, 3), scale_factor=2, mode="bilinear", align_corners=False))


export("upsample_bilinear", Fn(bilinear), [randn(2, 3, 4, 5), randn(2, 1, 9, 11)], [randn(3, 3, 6, 4), randn(3, 1, 5, 13)],
       ({0: B, 2: H, 3: W}, {0: B, 2: Dim("zh", min=2, max=64), 3: Dim("zw", min=2, max=64)}))


# a linear layer of many rows (test_slow_blas.py: OpenBLAS computes it on two threads, unless
# the process's OpenBLAS runs slower kernels than this CPU's)
export("tall_linear", Fn(lambda s, x: s.l(x), l=torch.nn.Linear(64, 96)), [randn(128, 64) / 10], [randn(80, 64) / 10],
       ({0: Dim("rows", min=1, max=4096)},))

# products that are not linear layers, split in parts by the library's pool
# (test_slow_blas.py): a batched one read through a transpose, a plain one of many rows
PB, PN = Dim("pb", min=1, max=64), Dim("pn", min=2, max=4096)
export("tall_products", Fn(lambda s, x, y: (torch.bmm(x, y.transpose(1, 2)), x.reshape(-1, 64) @ y[0].t())),
       [randn(4, 128, 64) / 10, randn(4, 128, 64) / 10], [randn(2, 96, 64) / 10, randn(2, 96, 64) / 10],
       ({0: PB, 1: PN}, {0: PB, 1: PN}))
# a plain product alone: no layer of the library loads oneDNN for it
export("tall_mm", Fn(lambda s, x, y: x @ y.t()), [randn(512, 64) / 10, randn(128, 64) / 10],
       [randn(300, 64) / 10, randn(96, 64) / 10], ({0: Dim("mm_rows", min=2, max=4096)}, {0: Dim("mm_cols", min=2, max=4096)}))


def gelu_sweep(rows):
    """rows x 64 values over [-12, 12], with the neighbourhoods of GELU's clamp (|x| = 5.5426)
    and of the edges of gelu_table.h's pieces (|x| = k sqrt 2 / 4) at float32's spacing."""
    x = torch.linspace(-12, 12, rows * 64)
    edges = torch.tensor([k * 2 ** 0.5 / 4 for k in range(1, 17)] + [5.5425944] * 8)
    near = (edges[:, None] * (1 + torch.arange(-4, 4)[None, :] * 2.0 ** -23)).reshape(-1)
    x[: near.numel()] = near
    x[near.numel(): 2 * near.numel()] = -near
    return x.reshape(rows, 64)


# the exact GELU of a linear layer, computed by the runtime's pass after the product, and of a
# fused loop, computed by the generated code: an identity layer leaves x as it is, so the two
# outputs must have the same bits (test_tiny_ops.py)
identity = torch.nn.Linear(64, 64)
with torch.no_grad():
    identity.weight.copy_(torch.eye(64))
    identity.bias.zero_()
export("gelu_layer_and_loop", Fn(lambda s, x: (F.gelu(s.l(x)), F.gelu(x)), l=identity), [gelu_sweep(300)],
       [gelu_sweep(77)], ({0: Dim("gelu_rows", min=1, max=4096)},))
