"""gen_products.py - programs whose matrix products read views and absorb the node after
them (backends/llvm/cg_transpose.c, cg_epilogue.c), exported by real torch, with torch's
outputs at two shapes; test_products.py holds shapec to them without torch.

    scripts/real-torch.sh --torch 2.14 run test/cpu/gen_products.py [CASE ...]

With case names, only those are written (the others' files stay as they are).

Writes test/cpu/products/<case>/: model.pt2 (torch.export.save, dynamic dims as the
program's own), and for shape k in 0, 1: in<k>_<i>.npy, out<k>_<j>.npy."""
import os
import sys

import torch
from torch.export import Dim

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from stored_cases import save_case  # noqa: E402
OUT = os.path.join(HERE, "products")
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
from shapec_tools.zoo import EncoderBlock  # noqa: E402  (heads read through strides, scale, residuals)
torch.manual_seed(0)


class OneHead(torch.nn.Module):
    """One head (size-1 dims in the strides), a scale by multiplication, the product
    written permuted into a graph output, and a view that is also a graph output."""

    def forward(self, q, k, v):
        kt = k.transpose(-2, -1)
        att = torch.softmax((q @ kt) * 0.3, dim=-1) @ v
        return att.transpose(1, 2), kt


class Permutes(torch.nn.Module):
    """Permutations on both sides of a product; one whose contiguous dim becomes a batch
    dim (materialized); a chain that composes to the identity."""

    def forward(self, x, y, w):
        s = x.permute(0, 2, 1, 3) @ y.permute(0, 2, 1, 3)      # [b,h,t,d] @ [b,h,d,t]
        z = x.transpose(1, 3) @ w                             # rows and cols both strided
        u = x.transpose(1, 2).transpose(1, 2) @ x.transpose(-2, -1)  # identity, then a swap
        return s, z, u


class SharedViews(torch.nn.Module):
    """A transpose read by a product and by an elementwise op (materialized); a scaled
    product that is also read elsewhere (no scale absorbed); a division by 3."""

    def forward(self, a, b):
        bt = b.transpose(-2, -1)
        p = a @ bt
        r = torch.relu(bt)
        scores = a @ b.transpose(-2, -1)
        return p / 3.0, r, scores * 2.0, scores.sum(-1)


class Bmm(torch.nn.Module):
    """bmm on permuted rank-3 operands, its result permuted back (time-major attention)."""

    def forward(self, a, c):
        return torch.bmm(a.transpose(0, 1), c.permute(1, 2, 0)).transpose(0, 1)


class Residuals(torch.nn.Module):
    """Residual adds after linear layers: plain, after a ReLU epilogue, on the left, and ones
    that must stay separate (the residual computed after the layer, alpha 2, a layer read
    twice)."""

    def __init__(self, d=24):
        super().__init__()
        self.l1, self.l2, self.l3, self.l4, self.l5 = (torch.nn.Linear(d, d) for _ in range(5))

    def forward(self, x):
        h = x + self.l1(x)
        h = torch.relu(self.l2(h)) + h
        l3 = self.l3(h)
        h = l3 + torch.sin(h)
        h = torch.add(h, self.l4(h), alpha=2.0)
        l5 = self.l5(h)
        return h + l5, l5 * 0.5


class DropoutResiduals(torch.nn.Module):
    """Residual adds with an inference dropout between the layer and the add, as in
    nn.TransformerEncoderLayer: taken through it; not when the value is read again (torch's
    trace reads the dropout's output for every later use of l2 and d3)."""

    def __init__(self, d=24):
        super().__init__()
        self.l1, self.l2, self.l3 = (torch.nn.Linear(d, d) for _ in range(3))
        self.drop = torch.nn.Dropout(0.1)

    def forward(self, x):
        h = x + self.drop(self.l1(x))
        l2 = self.l2(h)
        h = h + self.drop(l2)
        d3 = self.drop(self.l3(h))
        return h + d3, l2 * 2.0, d3 * 0.5


class LongAttention(torch.nn.Module):
    """Attention spelled out with bmm over more keys than one chunk of the fused kernel
    (backends/cpu/runtime/attention.c), a head width that leaves a partial tile, a
    division by a number that is not a power of two."""

    def forward(self, q, k, v):
        scores = torch.bmm(q, k.transpose(1, 2)) / 3.0
        return torch.bmm(torch.softmax(scores, dim=-1), v)


class StridedViews(torch.nn.Module):
    """Views that the fused loops reading them read in place (backends/llvm/cg_strided_views.c):
    a stepped slice, two selects, a narrow, an expand, a transpose, a permutation read twice;
    and a slice that a sum reads too (copied)."""

    def forward(self, x, y):
        a = x[:, ::2, :] + 1
        b = x.select(1, 2) - x[:, -1]
        c = torch.narrow(x, 2, 1, 3) * 2
        d = x * y.expand(-1, x.shape[1], -1)
        e = x.transpose(1, 2) * 3
        f = x.permute(2, 0, 1) + x.permute(2, 0, 1).sigmoid()
        n = x[:, 1:4]
        g = torch.relu(n) + n.sum(1, keepdim=True)
        return a, b, c, d, e, f, g


class TorchLayer(torch.nn.Module):
    """torch's own nn.TransformerEncoderLayer: scaled_dot_product_attention reads q, k and v
    through the chain of views that splits the heads off the in-projection (unflatten,
    transpose, contiguous, select, view; backends/llvm/cg_view_chains.c) and writes its
    result permuted for the out-projection."""

    def __init__(self, width=32, feed_forward=48):
        super().__init__()
        self.layer = torch.nn.TransformerEncoderLayer(width, 4, feed_forward, batch_first=True, dropout=0.0)

    def forward(self, x):
        return self.layer(x)


class ChainsShared(torch.nn.Module):
    """Chains of views before attention that must stay copies, next to ones that need not:
    a selected head that is also a graph output (copied, and so are the steps before it,
    which the other two heads read in place), a transpose, contiguous and transpose back
    (in place), and one head tensor read as query, key and value."""

    def forward(self, x, y):
        b, t, e = x.shape
        qkv = x.reshape(b, t, 3, 2, e // 6).permute(2, 0, 3, 1, 4)
        q, k = qkv[0], qkv[1]
        v = qkv[2].transpose(-2, -1).contiguous().transpose(-2, -1)
        a = torch.nn.functional.scaled_dot_product_attention(q, k, v)
        yq = y.view(b, t, 2, -1).transpose(1, 2)
        c = torch.nn.functional.scaled_dot_product_attention(yq, yq, yq, is_causal=True)
        return a, c, k


def export(name, module, samples, others, dynamic):
    if sys.argv[1:] and name not in sys.argv[1:]:
        return
    module.eval()
    ep = torch.export.export(module, tuple(samples), dynamic_shapes=dynamic)
    save_case(os.path.join(OUT, name), module, ep, samples, others)
    print(name, [n.target.__name__ for n in ep.graph.nodes if n.op == "call_function"].count("matmul.default"), "matmuls")


def randn(*shape):
    return torch.randn(*shape)


B, T = Dim("b", min=1, max=64), Dim("t", min=2, max=512)
export("encoder", EncoderBlock(32, 4, 48), [randn(2, 16, 32)], [randn(3, 7, 32)], ({0: B, 1: T},))
export("one_head", OneHead(), [randn(2, 1, 16, 8), randn(2, 1, 12, 8), randn(2, 1, 12, 8)],
       [randn(1, 1, 5, 8), randn(1, 1, 9, 8), randn(1, 1, 9, 8)],
       ({0: B, 2: T}, {0: B, 2: Dim("s", min=2, max=512)}, {0: B, 2: Dim("s", min=2, max=512)}))
export("permutes", Permutes(), [randn(2, 16, 3, 8), randn(2, 8, 3, 16), randn(2, 8, 16, 5)],
       [randn(3, 6, 3, 8), randn(3, 8, 3, 6), randn(3, 8, 6, 5)],
       ({0: B, 1: T}, {0: B, 3: T}, {0: B, 2: T}))
export("shared_views", SharedViews(), [randn(2, 3, 16, 8), randn(2, 3, 12, 8)], [randn(4, 3, 5, 8), randn(4, 3, 9, 8)],
       ({0: B, 2: T}, {0: B, 2: Dim("s", min=2, max=512)}))
export("bmm", Bmm(), [randn(16, 4, 8), randn(12, 4, 8)], [randn(5, 2, 8), randn(9, 2, 8)],
       ({0: T, 1: B}, {0: Dim("s", min=2, max=512), 1: B}))
export("residuals", Residuals(), [randn(2, 10, 24)], [randn(1, 3, 24)], ({0: B, 1: T},))
export("dropout_residuals", DropoutResiduals(), [randn(2, 10, 24)], [randn(1, 3, 24)], ({0: B, 1: T},))
S = Dim("s", min=2, max=2048)
export("long_attention", LongAttention(), [randn(6, 37, 20), randn(6, 300, 20), randn(6, 300, 20)],
       [randn(2, 9, 20), randn(2, 530, 20), randn(2, 530, 20)], ({0: B, 1: T}, {0: B, 1: S}, {0: B, 1: S}))
W = Dim("w", min=4, max=64)
export("strided_views", StridedViews(), [randn(4, 6, 5), randn(4, 1, 5)], [randn(3, 10, 7), randn(3, 1, 7)],
       ({0: B, 1: Dim("t", min=4, max=64), 2: W}, {0: B, 2: W}))
export("torch_layer", TorchLayer(), [randn(2, 16, 32)], [randn(1, 5, 32)], ({0: B, 1: T},))
export("chains_shared", ChainsShared(), [randn(2, 9, 24), randn(2, 9, 16)], [randn(3, 4, 24), randn(3, 4, 16)],
       ({0: B, 1: T}, {0: B, 1: T}))
# wider than the linear layers with code of their own (backends/llvm/cg_tiny_linear.c): all
# six run in the runtime (oneDNN or OpenBLAS), with its epilogues
export("wide_encoder", EncoderBlock(96, 4, 192), [randn(2, 16, 96)], [randn(3, 7, 96)], ({0: B, 1: T},))
# the same at 96 wide: the out-projection (96 x 96) runs in the runtime, over batch-first
# rows (backends/llvm/cg_batch_first.c), with the residual as its epilogue
export("wide_torch_layer", TorchLayer(96, 128), [randn(2, 16, 96)], [randn(1, 5, 96)], ({0: B, 1: T},))
