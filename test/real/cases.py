"""cases.py - the programs of the real-torch corpus (test/real/): small modules, each with
sample inputs and a dynamic_shapes spec, covering every rule family of torch.export's
dynamic shapes, and the zoo.  Read by gen_corpus.py inside a real-torch chroot.

A case is (name, module, args, dynamic_shapes[, kwargs]).  Dims are made by functions so
that each case gets fresh ones (torch compares Dims by name)."""
import inspect

import torch
from torch.export import Dim

nn = torch.nn
F = torch.nn.functional
AUTO, STATIC = Dim.AUTO, Dim.STATIC
DYN = Dim.DYNAMIC


def r(*shape):
    return torch.randn(*shape)


class Fn(nn.Module):
    """A module whose forward is a plain function of its inputs."""

    def __init__(self, fn, **params):
        super().__init__()
        self.fn = fn
        for k, v in params.items():
            if isinstance(v, nn.Module):
                self.add_module(k, v)
            elif isinstance(v, nn.Parameter):
                self.register_parameter(k, v)
            else:
                self.register_buffer(k, v)

    def forward(self, *args, **kwargs):
        return self.fn(self, *args, **kwargs)


def index_around_full_dim(x, i):
    y = x.clone()
    y[i, :, torch.tensor([-1, 0])] = x[:2, :, 0] + 1  # indices around a full dim: index_put with a None
    return y


def mutate_index_put(m, k, pos):
    m.cache[:, :, pos] = k  # a cache's write through indexing (index_put_): into the state in place
    m.acc[:, :, pos] = k + m.acc[:, :, pos]  # the old rows read first: a copy is updated
    return m.cache.sum(-1) + m.acc.sum(-1)


def mutate_alias(x):
    y = x * 2
    z = y.relu_()  # y and z are one tensor
    return y + z


def mutate_view(x):
    y = x * 1
    y.view(-1).add_(1)  # updates y through a view
    return y


def mutate_contiguous(x):
    p = x.t()
    c = p.contiguous()  # a copy: p is held in another order
    c.add_(1)  # so neither p nor x changes
    y = x * 1
    y.contiguous().mul_(3)  # y is compact: contiguous() is y itself, which changes
    return c * 1, p * 2, x + 0, y


def zero_slice(x, w):
    b = w.clone()
    b[1:3].zero_()  # swin_v2's q/k/v bias with k's part zeroed
    return x * b, torch.zeros_like(x).zero_() + x.zero_()


def mutate_input_view(x, buf):
    x.view(-1).mul_(2)  # the caller's x changes
    buf.flatten().add_(1)  # the buffer's state changes
    return x + buf.sum()


def mutate_slice(x):
    y = x * 1
    y[0].add_(1)  # a part of y: torch updates row 0 (shapec: select_scatter)
    return y


def mutate_strided_slice(x):
    y = x * 1
    y[:, 1::2].mul_(3)  # every other column (slice_scatter with a step)
    y[-1].fill_(7)  # the last row, a negative index
    return y


def mutate_overlapping_views(x):
    y = x * 1
    col = y[:, 0]  # a view taken before the update...
    y[0].add_(1)  # ...that the update changes: shapec refuses (SC0318)
    return col * 2


def mutate_views_rederived(x, z):
    y = x * 1
    rows = y[1:]  # views taken before the updates, read after them:
    col = rows[:, 0]  # a view of a view,
    t = y.t()  # a transpose, which no scatter writes back
    y[0].mul_(2)  # an update through a select of the base...
    rows[:, 1].add_(3)  # ...and through a select of a slice of it
    zc = z[:, 1]  # a view of an input that an update through another view changes
    z[0].add_(1)
    return col * 2, t + 1, y, zc * 1


def mutate_through_reorders(x, z):
    y = x * 1
    y.t()[0].add_(1)  # a column of y, through t
    y.transpose(0, 1)[1, 1:].mul_(3)  # part of another, through a slice of a transpose
    w = (x * 2).unsqueeze(0)
    w.permute(2, 0, 1)[0].fill_(5)  # through a permute
    z.t()[1].mul_(2)  # an input's column: written back
    return y, w, z * 1


def mutate_diagonal(x):
    y = x * 1
    y.diagonal().add_(1)  # torch's diagonal is a view: the update reaches y (a diagonal_scatter)
    z = (x * 2).unsqueeze(1).expand(-1, 2, -1).clone()  # [n, 2, 3]
    z.diagonal(offset=-1, dim1=2, dim2=0).mul_(5)  # an offset diagonal over dims 2 and 0
    return y, z


def mutate_split_pieces(x):
    y = x * 1
    a, b = y.split(3, dim=1)  # pieces of split: slices of y (the last one shorter)
    b.add_(1)
    z = (x * 2).unbind(1)[2]  # a piece of unbind: a select
    z.mul_(3)
    w = x * 3
    w.split([1, 2, 2], dim=-1)[1].fill_(7)  # split_with_sizes over the last dim
    return y, a * 1, w


def index_put_mask(x, ids):
    y = x.clone()
    y[y > 0.5] = 0.0  # one value for every picked element
    z = x.clone()
    z[x[:, 0] > 0] = torch.arange(x.shape[1], dtype=torch.float32)  # one row for every picked row
    t = ids.clone()
    t[ids == 3] = 7  # token ids (Gemma 3's image tokens)
    w = x.clone()
    w[x < 0] = x[x < 0] * 2  # a value per picked element
    return y, z, t, w


def mixed_mask_index(x, i, keep):
    m = x[0, :, 0] > 0  # a mask over dim 1, from the data
    a = x[:, m]  # [B, u, 4]: the count in the middle
    m2 = x[:, :, 0] > 0  # [B, 5]
    b = x[m2, i]  # a mask over dims 0-1 beside an int index of size 1: [u]
    c = x[i, :, keep]  # int, slice, mask: B first, [u, 5]
    y = x.clone()
    y[m2, i] = -1.0  # one value at every picked place
    w = x.clone()
    w[:, m] = w[:, m] * 2  # values with the count among their dims
    v = x.clone()
    v[i, :, keep] += 1.0  # read, add, written back
    return a, b, c, y, w, v


def search_sorted(x, b, seq, ids):
    bs = b.sort().values  # sorted boundaries whatever the probe's data
    rows = seq.sort(dim=-1).values  # a sorted sequence per row of x
    order = b.argsort()
    return (torch.bucketize(x, bs), torch.bucketize(x.log(), bs, right=True, out_int32=True),  # NaN goes past the end
            torch.searchsorted(rows, x), torch.searchsorted(bs, x, side="right"),
            torch.bucketize(ids, bs),  # int64 values among float boundaries
            torch.searchsorted(b, x, sorter=order),  # unsorted, with the order that sorts it
            torch.bucketize(0.25, bs), torch.searchsorted(bs, 1, right=True))  # Scalar values


def complex_rotary(xq, pos):
    """Rotary embeddings written with complex numbers (Meta's reference Llama, Llama 4)."""
    inv = 1.0 / (10000 ** (torch.arange(0, xq.shape[-1], 2).float() / xq.shape[-1]))
    freqs = torch.outer(pos.float(), inv)  # [S, D/2]
    cis = torch.polar(torch.ones_like(freqs), freqs)
    x = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
    rotated = torch.view_as_real(x * cis[None, :, None, :]).flatten(3).type_as(xq)
    z = (x + x.conj()) * 0.5 - x / (cis[None, :, None, :] + 2) + (-x).reciprocal() * 0.1 + (x * 0.2).exp()
    return rotated, torch.view_as_real(z), x.abs(), torch.angle(x), torch.angle(xq), (1 - x).imag


def eye_arange_int32(x, ids):
    n = x.shape[0]
    e = torch.eye(n) + torch.eye(n, x.shape[1])[:, :1]  # [n, n] and [n, m]: the identity, a dynamic size
    b = torch.eye(3, dtype=torch.bool) | torch.eye(3, 5, dtype=torch.bool)[:, :3]
    r = torch.arange(0, n, 1.0) * 2 + torch.arange(0.0, 1.0, 0.25).sum()  # XLNet's float step; a fractional one
    emb = F.embedding(ids.to(torch.int32), x)  # int32 indices (CPM-Ant)
    return e @ x, b, r, emb


def sdpa_masked_rows(q, k, v):
    """A left-padded batch: the padded query rows see no key (torch 2.6 and 2.14 give zeros)."""
    m = torch.ones(q.shape[0], 1, q.shape[2], k.shape[2], dtype=torch.bool).tril()
    m[1:, :, :2, :] = False  # the second item's first two rows masked whole
    fm = torch.zeros(m.shape).masked_fill(~m, float("-inf"))
    return (F.scaled_dot_product_attention(q, k, v, attn_mask=m), F.scaled_dot_product_attention(q, k, v, attn_mask=fm),
            F.scaled_dot_product_attention(q, k, v, attn_mask=m[:, :, :, :1].expand(m.shape)))


def diagonal_in_place(x):
    """fill_diagonal_ and triu_ as ProphetNet's attention masks use them."""
    y = x.clone()
    y.fill_diagonal_(0.5)  # a tall or wide matrix: the leading square's diagonal
    m = torch.ones(x.shape[0], x.shape[0])
    m.triu_(1)
    t = torch.zeros(7, 3).fill_diagonal_(2.0, wrap=True)  # tall, wrapped: again after every 4 rows
    c = torch.zeros(3, 3, 3, dtype=torch.int64).fill_diagonal_(7)  # every dim of one length
    return y, m.tril_(-0) + 1, t, c


def rot90_float_power(x):
    turns = [torch.rot90(x, k, dims) for k, dims in ((1, (1, 2)), (2, (0, 2)), (3, (2, 0)), (-1, (-1, -2)), (4, (0, 1)))]
    return (*turns, torch.float_power(x, 2), torch.float_power(x.abs() + 1, x), torch.float_power(2, x),
            torch.round(x * 37, decimals=2), torch.round(x * 370, decimals=-1), torch.special.round(x * 3.7, decimals=1))


def patches_shuffles(x, img):
    """PatchTST's unfold into patches, Swin2SR's pixel_shuffle, a CTC model's all()."""
    patches = x.unfold(-1, 4, 2)  # [b, c, (t - 4) // 2 + 1, 4]
    up = F.pixel_shuffle(img, 2)
    down = F.pixel_unshuffle(up, 2)
    return patches * 2, up, down - img, (x > -3).all(-1), (x > 0).all(), (img != 0).all(dim=(1, 2))


def mutate_detach(x):
    y = x * 1
    y.detach()[1].mul_(3)  # detach shares y's memory: y's row changes
    return y


def case(name, fn, args, ds, kwargs=None, **params):
    """A module whose forward has fn's signature (less its first parameter, the module),
    so that torch matches args and dynamic_shapes to it by name."""
    params_of_fn = list(inspect.signature(fn).parameters.values())[1:]
    decl, call = [], []
    for prm in params_of_fn:
        if prm.kind == prm.KEYWORD_ONLY and "*" not in decl:
            decl.append("*")
        decl.append(prm.name)
        call.append(f"{prm.name}={prm.name}" if prm.kind == prm.KEYWORD_ONLY else prm.name)
    # a real def, so that torch's guards name the inputs as the user does (L['x'])
    namespace = {}
    exec(f"def forward(self, {', '.join(decl)}):\n    return self.fn(self, {', '.join(call)})\n", namespace)
    cls = type("Case_" + name, (Fn,), {"forward": namespace["forward"]})
    return (name, cls(fn, **params), args, ds, kwargs or {})


def small_cases():
    c = []
    # ---- AUTO / STATIC / DYNAMIC ---------------------------------------------------------
    c.append(case("auto_add", lambda m, x, y: x + y, (r(4, 8), r(4, 8)), ({0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO})))
    c.append(case("auto_no_duck", lambda m, x, y: x.sum() + y.sum(), (r(4), r(4)), ({0: AUTO}, {0: AUTO})))
    c.append(case("auto_static_wins", lambda m, x, y: x + y, (r(4, 8), r(4, 8)), ({0: AUTO, 1: AUTO}, {0: STATIC, 1: AUTO})))
    c.append(case("auto_one_specializes", lambda m, x: x * 2, (r(1, 8),), ({0: AUTO, 1: AUTO},)))
    c.append(case("auto_zero_specializes", lambda m, x: x * 2, (r(0, 8),), ({0: AUTO, 1: AUTO},)))
    c.append(case("dynamic_ok", lambda m, x: x.relu(), (r(6, 3),), ({0: DYN, 1: DYN},)))
    c.append(case("dynamic_one_fails", lambda m, x: x.relu(), (r(1, 3),), ({0: DYN},)))
    c.append(case("dynamic_pinned_fails", lambda m, x, w: x @ w, (r(6, 3), r(3, 4)), ({0: DYN, 1: DYN}, None)))
    c.append(case("static_all", lambda m, x: x.tanh(), (r(3, 5),), ({0: STATIC, 1: STATIC},)))
    c.append(case("none_spec", lambda m, x: x.exp(), (r(3, 5),), None))
    c.append(case("dynamic_linear", lambda m, x: m.l(x), (r(7, 5),), ({0: DYN},), l=nn.Linear(5, 3)))
    c.append(case("auto_linear", lambda m, x: m.l(x), (r(7, 5),), ({0: AUTO, 1: AUTO},), l=nn.Linear(5, 3)))
    # ---- named Dims and ranges -------------------------------------------------------------
    c.append(case("named_basic", lambda m, x: x * 2, (r(6, 4),), ({0: Dim("b"), 1: Dim("f")},)))
    c.append(case("named_range", lambda m, x: x + 1, (r(6, 4),), ({0: Dim("b", min=2, max=64)},)))
    c.append(case("named_min1", lambda m, x: x + 1, (r(6, 4),), ({0: Dim("b", min=1, max=64)},)))
    c.append(case("named_min0", lambda m, x: x + 1, (r(6, 4),), ({0: Dim("b", min=0, max=64)},)))
    c.append(case("named_shared", lambda m, x, y: x + y, (r(6, 4), r(6, 4)), (({0: (b := Dim("b"))}), {0: b})))
    c.append(case("named_equal_violation", lambda m, x, y: x + y, (r(6, 4), r(6, 4)), ({0: Dim("a")}, {0: Dim("b")})))
    c.append(case("named_pinned_violation", lambda m, x, w: x @ w, (r(6, 3), r(3, 4)), ({1: Dim("k")}, None)))
    c.append(case("named_range_narrowed", lambda m, x: x[:4] if x.shape[0] > 4 else x, (r(6, 4),), ({0: Dim("b", max=64)},)))
    c.append(case("named_mixed_auto", lambda m, x, y: x + y, (r(6, 4), r(6, 4)), ({0: Dim("b")}, {0: AUTO})))
    d = Dim("d")
    c.append(case("derived_plus1", lambda m, x, y: x[1:] + y, (r(7), r(6)), ({0: d + 1}, {0: d})))
    d2 = Dim("d2")
    c.append(case("derived_twice", lambda m, x, y: x.view(-1, 2).sum(1) + y, (r(12), r(6)), ({0: 2 * d2}, {0: d2})))
    d3 = Dim("d3", min=2, max=32)
    c.append(case("derived_affine", lambda m, x, y: x[:-1].view(-1, 2).sum(1) + y, (r(13), r(6)), ({0: 2 * d3 + 1}, {0: d3})))
    c.append(case("named_divisible_violation", lambda m, x: x.view(-1, 4), (r(8, 3),), ({0: Dim("n")},)))
    # ---- broadcasting ------------------------------------------------------------------------
    c.append(case("bcast_equal", lambda m, x, y: x * y, (r(5, 3), r(5, 3)), ({0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO})))
    c.append(case("bcast_row", lambda m, x, y: x * y, (r(5, 3), r(3)), ({0: AUTO, 1: AUTO}, {0: AUTO})))
    c.append(case("bcast_col", lambda m, x, y: x + y, (r(5, 3), r(5, 1)), ({0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO})))
    c.append(case("bcast_three", lambda m, x, y, z: x + y + z, (r(2, 5, 3), r(5, 3), r(3)),
                  ({0: AUTO, 1: AUTO, 2: AUTO}, {0: AUTO, 1: AUTO}, {0: AUTO})))
    c.append(case("bcast_dyn", lambda m, x, y: x - y, (r(5, 3), r(5, 3)), ({0: DYN, 1: DYN}, {0: DYN, 1: DYN})))
    c.append(case("bcast_where", lambda m, x, y: torch.where(x > 0, x, y), (r(4, 6), r(4, 6)), ({0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO})))
    c.append(case("bcast_cat", lambda m, x, y: torch.cat([x, y], 0), (r(4, 6), r(3, 6)), ({0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO})))
    c.append(case("bcast_stack", lambda m, x, y: torch.stack([x, y]), (r(4, 6), r(4, 6)), ({0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO})))
    c.append(case("matmul_inner", lambda m, x, y: x @ y, (r(4, 6), r(6, 5)), ({0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO})))
    c.append(case("bmm_batch", lambda m, x, y: torch.bmm(x, y), (r(3, 4, 6), r(3, 6, 5)),
                  ({0: AUTO, 1: AUTO, 2: AUTO}, {0: AUTO, 1: AUTO, 2: AUTO})))
    # ---- reshape, view, flatten -----------------------------------------------------------------
    c.append(case("reshape_product", lambda m, x, y, z: z.view(-1) + (x.unsqueeze(1) * y).reshape(-1),
                  (r(4), r(8), r(32)), ({0: AUTO}, {0: AUTO}, {0: AUTO})))
    c.append(case("flatten_all", lambda m, x: x.flatten(), (r(3, 4, 5),), ({0: AUTO, 1: AUTO, 2: AUTO},)))
    c.append(case("flatten_tail", lambda m, x: x.flatten(1), (r(3, 4, 5),), ({0: AUTO, 1: AUTO, 2: AUTO},)))
    c.append(case("view_split", lambda m, x: x.view(x.shape[0], -1, 2), (r(3, 8),), ({0: AUTO, 1: AUTO},)))
    c.append(case("view_static_tail", lambda m, x: x.view(-1, 4), (r(3, 8),), ({0: AUTO, 1: AUTO},)))
    c.append(case("unflatten", lambda m, x: x.unflatten(1, (2, -1)), (r(3, 8),), ({0: AUTO, 1: AUTO},)))
    c.append(case("permute_reshape", lambda m, x: x.permute(1, 0, 2).reshape(x.shape[1], -1), (r(3, 4, 5),),
                  ({0: AUTO, 1: AUTO, 2: AUTO},)))
    c.append(case("transpose_matmul", lambda m, x: x @ x.transpose(0, 1), (r(4, 6),), ({0: AUTO, 1: AUTO},)))
    c.append(case("expand_dyn", lambda m, x, y: x.expand(y.shape[0], -1) + y, (r(1, 6), r(4, 6)), ({1: AUTO}, {0: AUTO, 1: AUTO})))
    c.append(case("squeeze_unsqueeze", lambda m, x: x.unsqueeze(0).squeeze(0) * 2, (r(4, 6),), ({0: AUTO, 1: AUTO},)))
    c.append(case("slice_half", lambda m, x: x[: x.shape[0] // 2], (r(8, 3),), ({0: AUTO},)))
    c.append(case("slice_step", lambda m, x: x[::2], (r(9, 3),), ({0: AUTO},)))
    c.append(case("narrow_sym", lambda m, x, y: x[: y.shape[0]] + y, (r(9, 3), r(5, 3)), ({0: AUTO}, {0: AUTO})))
    # ---- divisibility ---------------------------------------------------------------------------
    c.append(case("div_view4", lambda m, x: x.view(-1, 4).sum(1), (r(12),), ({0: AUTO},)))
    c.append(case("div_dynamic", lambda m, x: x.view(-1, 4).sum(1), (r(12),), ({0: DYN},)))
    c.append(case("div_check", lambda m, x: x * 2, (r(12),), ({0: AUTO},)))
    c.append(case("div_chunk", lambda m, x: torch.chunk(x, 2)[0] * 2, (r(8, 3),), ({0: AUTO},)))
    c.append(case("div_split", lambda m, x: x.split(3)[0], (r(9, 2),), ({0: AUTO},)))
    c.append(case("floordiv_size", lambda m, x: x.new_zeros(x.shape[0] // 3) + 1, (r(9),), ({0: AUTO},)))
    # ---- Python-level guards --------------------------------------------------------------------
    def if_branch(m, x):
        if x.shape[0] > 4:
            return x * 2
        return x + 1
    c.append(case("if_gt", if_branch, (r(6, 2),), ({0: AUTO},)))
    def if_le(m, x):
        if x.shape[0] <= 100:
            return x.sin()
        return x.cos()
    c.append(case("if_le", if_le, (r(6, 2),), ({0: AUTO},)))
    def if_eq(m, x, y):
        if x.shape[0] == y.shape[0]:
            return x + y
        return x
    c.append(case("if_eq", if_eq, (r(6), r(6)), ({0: AUTO}, {0: AUTO})))
    def if_ne(m, x, y):
        if x.shape[0] != y.shape[0]:
            return x.sum() + y.sum()
        return x.sum()
    c.append(case("if_ne", if_ne, (r(6), r(5)), ({0: AUTO}, {0: AUTO})))
    def if_mod(m, x):
        if x.shape[0] % 2 == 0:
            return x * 2
        return x
    c.append(case("if_mod", if_mod, (r(6),), ({0: AUTO},)))
    def assert_ge(m, x):
        assert x.shape[0] >= 3
        return x * 3
    c.append(case("assert_ge", assert_ge, (r(6),), ({0: AUTO},)))
    def assert_rel(m, x, y):
        assert x.shape[0] < 2 * y.shape[0]
        return x.sum() + y.sum()
    c.append(case("assert_rel", assert_rel, (r(6), r(4)), ({0: AUTO}, {0: AUTO})))
    def check_ge(m, x):
        torch._check(x.shape[0] >= 4)
        return x + 1
    c.append(case("check_ge", check_ge, (r(6),), ({0: AUTO},)))
    def check_named(m, x):
        torch._check(x.shape[0] <= 50)
        return x + 1
    c.append(case("check_named_violation", check_named, (r(6),), ({0: Dim("n", max=100)},)))
    def check_dyn(m, x):
        torch._check(x.shape[0] % 3 == 0)
        return x + 1
    c.append(case("check_mod", check_dyn, (r(6),), ({0: DYN},)))
    def if_product(m, x, y):
        if x.shape[0] * y.shape[0] > 10:
            return x.sum() * y.sum()
        return x.sum()
    c.append(case("if_product", if_product, (r(4), r(5)), ({0: AUTO}, {0: AUTO})))
    # ---- data-dependent sizes ---------------------------------------------------------------------
    def item_size(m, x, n):
        k = n.item()
        torch._check(k >= 0)
        torch._check(k <= x.shape[0])
        return x[:k]
    c.append(case("item_slice", item_size, (r(8, 2), torch.tensor(3)), ({0: AUTO}, None)))
    def item_new(m, n):
        k = n.item()
        torch._check(k >= 0)
        return torch.zeros(k) + 1
    c.append(case("item_zeros", item_new, (torch.tensor(4),), None))
    c.append(case("nonzero", lambda m, x: torch.nonzero(x > 0), (r(10),), ({0: AUTO},)))
    c.append(case("masked_select", lambda m, x: torch.masked_select(x, x > 0), (r(4, 5),), ({0: AUTO, 1: AUTO},)))
    def item_check_max(m, x, n):
        k = n.item()
        torch._check(k >= 2)
        torch._check(k <= 16)
        return x.new_ones(k) * x.sum()
    c.append(case("item_range", item_check_max, (r(3), torch.tensor(5)), ({0: AUTO}, None)))
    # ---- int and float inputs -----------------------------------------------------------------------
    c.append(case("int_input", lambda m, x, k: x * k, (r(4, 3), 3), ({0: AUTO, 1: AUTO}, None)))
    c.append(case("float_input", lambda m, x, s: x * s, (r(4, 3), 0.5), ({0: AUTO, 1: AUTO}, None)))
    c.append(case("int_shape_use", lambda m, x, k: x.repeat(k, 1), (r(4, 3), 2), ({0: AUTO, 1: AUTO}, None)))
    c.append(case("bool_flag", lambda m, x, flag: x.relu() if flag else x, (r(4, 3), True), ({0: AUTO}, None)))
    # ints the program keeps symbolic (SymInt inputs): torch's spec serializer cannot write
    # these specs, so shapec reads the program's own dynamism
    c.append(case("int_dynamic", lambda m, x, n: x[:n] * 2 + n, (r(8, 3), 5), ({0: AUTO}, DYN)))
    c.append(case("int_reshape", lambda m, x, n: x.reshape(n, -1), (r(12), 3), ({0: AUTO}, DYN)))
    c.append(case("int_auto_scale", lambda m, x, n: x * n + n, (r(4), 3), (None, AUTO)))
    c.append(case("item_count", item_count, (r(9, 2),), {"x": {0: AUTO}}))
    # ---- pytree inputs -----------------------------------------------------------------------------
    c.append(case("list_input", lambda m, xs: xs[0] + xs[1], ([r(4, 3), r(4, 3)],), ([{0: AUTO}, {0: AUTO}],)))
    c.append(case("dict_input", lambda m, d: d["a"] * d["b"], ({"a": r(5), "b": r(5)},), ({"a": {0: AUTO}, "b": {0: AUTO}},)))
    c.append(case("nested_input", lambda m, t: t[0] + t[1]["x"].sum(), ((r(4), {"x": r(2, 3)}),),
                  ((({0: AUTO}), {"x": {0: AUTO, 1: AUTO}}),)))
    c.append(case("kwarg_input", lambda m, x, *, scale: x * scale, (r(4, 3),), {"x": {0: AUTO}, "scale": {0: AUTO}},
                  kwargs={"scale": r(4, 3)}))
    c.append(case("tuple_output", lambda m, x: (x + 1, x.sum(0)), (r(4, 3),), ({0: AUTO, 1: AUTO},)))
    # ---- buffers, parameters, constants -------------------------------------------------------------
    c.append(case("buffer_add", lambda m, x: x + m.buf, (r(4, 3),), ({0: AUTO},), buf=torch.arange(3.0)))
    c.append(case("buffer_mutation", lambda m, x: m.count.add_(1) * 0 + x, (r(4, 3),), ({0: AUTO},),
                  count=torch.zeros(3)))
    # in-place updates: state that ep.module() keeps between calls (answers["repeated_calls"])
    c.append(case("mutate_buffer_counter", lambda m, x: x + m.count.add_(1), (r(4, 3),), ({0: AUTO},),
                  count=torch.zeros(3)))
    c.append(case("mutate_running_mean", lambda m, x: x - m.avg.mul_(0.5).add_(x.mean(0)), (r(4, 3),), ({0: AUTO},),
                  avg=torch.zeros(3)))
    c.append(case("mutate_input", lambda m, x: x.add_(1) * 2, (r(4, 3),), ({0: AUTO},)))
    # a cache's write (index_copy_ at positions) that reads the old rows first, so that the
    # old cache is read twice (no write in place); and index_copy of a user tensor, with a
    # repeated index (the later row wins)
    # index_put: x[i] = v, two broadcasting indices, indices around a full dim (the
    # indexed dims go first), accumulation over a repeated index, negative indices, a
    # broadcast value; and a cache written as cache[:, :, pos] = k (state)
    c.append(case("index_put_forms", lambda m, x, i, j: (
        x.clone().index_put_((i,), x[:2] * 10),
        torch.index_put(x, (i.unsqueeze(1), j), torch.tensor(7.0)),
        index_around_full_dim(x, i),
        torch.index_put(x, (torch.tensor([0, 0, 1]),), x[:3] * 2, accumulate=True),
        torch.index_put(x, (i,), x[0, 1])),
        (r(4, 5, 3), torch.tensor([3, -2]), torch.tensor([[1], [4]]).squeeze(1)), ({1: AUTO}, None, None)))
    c.append(case("mutate_index_put", lambda m, k, pos: mutate_index_put(m, k, pos),
                  (r(1, 2, 3, 4), torch.tensor([1, 5, 6])), ({2: AUTO}, {0: AUTO}), cache=torch.zeros(1, 2, 8, 4),
                  acc=torch.zeros(1, 2, 8, 4)))
    c.append(case("mutate_index_copy", lambda m, x, pos, y: (
        m.cache.index_copy_(1, pos, x + m.cache.index_select(1, pos)) * 1,
        torch.index_copy(y, 0, torch.tensor([2, 0, 2]), y[:3] * 10)),
        (r(2, 3, 4), torch.tensor([1, 5, 2]), r(5, 2)), ({2: AUTO}, None, {1: AUTO}), cache=torch.zeros(2, 8, 4)))
    # trigonometric and hyperbolic functions, their inverses, log10, atan2, 2 ** x, //
    c.append(case("math_more", lambda m, x, y: (
        torch.tan(x) + torch.asin(torch.tanh(x)) + torch.acos(torch.tanh(x) * 0.9) + torch.atan(x * 3),
        torch.sinh(x) * torch.cosh(x * 0.5) + torch.asinh(x * 4) + torch.acosh(x.abs() + 1) + torch.atanh(torch.tanh(x) * 0.99),
        torch.log10(x.abs() + 0.1) + torch.atan2(x, y) + torch.pow(2.0, x) + torch.floor_divide(x * 4, y.abs() + 0.5)),
        (r(6, 5), r(5)), ({0: AUTO, 1: AUTO}, {0: AUTO})))
    # bitwise and logical xor, the Scalar overloads, integer // and prod, any over dims
    c.append(case("int_bits_prod", lambda m, i, j, x: (
        (i ^ j) + (i & 6) + (i | 1) + torch.bitwise_xor(i, 5) + torch.bitwise_and(j, 3),
        torch.logical_xor(i > 2, j > 2), torch.floor_divide(i, j.abs() + 1), torch.div(i, 3, rounding_mode="floor"),
        i.prod(), (j % 3 + 1).prod(0), x.prod(), x.prod(1), x.prod(-1, keepdim=True),
        (x > 1).any(dim=(1, 2)), (x > 1.5).any(dim=(0, 1), keepdim=True)),
        (torch.tensor([[3, -2, 7], [0, 5, 1]]), torch.tensor([[1, 4, -3], [2, 2, 9]]), r(3, 4, 5)),
        ({0: AUTO}, {0: AUTO}, {0: AUTO, 2: AUTO})))
    # sort (stable: ties keep their order), argsort, topk (largest and smallest; k at most the dim's size)
    c.append(case("sort_topk", lambda m, x, i: (
        *torch.sort(x, dim=1), *torch.sort(x, dim=0, descending=True), torch.argsort(x, dim=-1, descending=True),
        *torch.topk(x, 3, dim=1), *torch.topk(x, 2, dim=0, largest=False), *torch.sort(i, stable=True),
        *torch.sort(i, descending=True, stable=True), *torch.topk(i.float() * 8 - torch.arange(6), 2)),  # no ties: torch's order among equal values is unspecified
        (r(5, 7), torch.tensor([[3, 1, 3, 0, 1, 3], [2, 2, 5, 2, -1, 0]])), ({0: AUTO, 1: AUTO}, {0: AUTO})))
    # scatter with a src and a value, scatter_add with repeated indices, every scatter_reduce
    c.append(case("scatter_forms", lambda m, x, src, idx, dup: (
        x.scatter(0, idx, src), x.scatter(1, idx[:, :2], 2.5), x.scatter_add(0, dup, src),
        x.scatter_reduce(0, dup, src, "sum", include_self=False), x.scatter_reduce(0, dup, src, "prod"),
        x.scatter_reduce(0, dup, src, "mean"), x.scatter_reduce(0, dup, src, "mean", include_self=False),
        x.scatter_reduce(0, dup, src, "amax"), x.scatter_reduce(0, dup, src, "amin", include_self=False),
        (x * 10).long().scatter_add(0, dup, (src * 10).long()), torch.zeros_like(x).scatter_(1, idx[:, :1], 1.0)),
        (r(4, 6), r(3, 6), torch.tensor([[0, 1, 2, 3, 0, 1], [2, 3, 0, 1, 2, 3]]),
         torch.tensor([[0, 0, 1, 1, 3, 3], [0, 2, 1, 1, 3, 0], [2, 2, 1, 0, 3, 0]])),
        ({0: AUTO}, None, None, None)))
    # padding modes that read the input: reflect, replicate, circular, 1-d to 3-d, negative (cropping) pads
    c.append(case("pad_modes", lambda m, x, v: (
        F.pad(x, (2, 1, 1, 3), mode="reflect"), F.pad(x, (3, 0, 2, 2), mode="replicate"), F.pad(x, (1, 2, 2, 1), mode="circular"),
        F.pad(x[0], (2, 2), mode="reflect"), F.pad(x[0], (1, 3), mode="replicate"), F.pad(x, (-1, 2, 1, 0), mode="replicate"),
        F.pad(v, (1, 1, 2, 0, 1, 1), mode="reflect"), F.pad(v, (0, 2, 1, 1, 2, 0), mode="replicate"),
        F.pad(v, (1, 1, 1, 1, 1, 1), mode="circular"),
        # the core ATen operators themselves, as other exporters' programs call them
        torch.ops.aten.reflection_pad1d(x[0], [2, 1]), torch.ops.aten.reflection_pad2d(x, [1, 2, 2, 1]),
        torch.ops.aten.reflection_pad3d(v, [1, 0, 2, 1, 0, 1]), torch.ops.aten.replication_pad1d(x[0], [3, 1]),
        torch.ops.aten.replication_pad2d(x, [0, 2, 1, 1]), torch.ops.aten.replication_pad3d(v, [2, 1, 0, 1, 1, 0])),
        (r(2, 4, 5, 6), r(1, 2, 3, 4, 5)), ({0: AUTO, 2: AUTO, 3: AUTO}, {0: AUTO, 3: AUTO, 4: AUTO})))
    # diagonal (offsets, dims in either order), masked_scatter (a broadcast mask), cdist / pdist
    # (p = 2, 1, inf, 0.5), native_dropout where it does not train, empty_strided filled
    c.append(case("diag_masked_dist", lambda m, x, y, mask: (
        torch.diagonal(x, 0), torch.diagonal(x, 2, 0, 1), torch.diagonal(x, -1, 1, 0), torch.diagonal(y, 1, 2, 1),
        x.masked_scatter(mask, y.flatten() * 10), x.masked_scatter(mask[:1], y.flatten()),
        torch.cdist(x, x[:3] * 2), torch.cdist(y, y + 1, p=1), torch.cdist(x, x[:2], p=float("inf")), torch.cdist(y, y, p=0.5),
        torch.pdist(x), torch.pdist(x * 3, p=1),
        *torch.ops.aten.native_dropout(x, 0.5, False), torch.ops.aten.empty_strided([2, 3], [3, 1]).fill_(2.0) + x[:2, :3]),
        (r(6, 5), r(2, 4, 5), torch.rand(6, 5) > 0.6), ({0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO})))
    # as_strided: explicit on a compact tensor (with an offset), and the one run_decompositions()
    # writes after an average pool of a channels-last (permuted) input (ConvNeXt, Swin)
    c.append(case("as_strided_pool", lambda m, x: (
        torch.as_strided(x, (2, 3), (1, 2)), torch.as_strided(x, (3, 2), (4, 1), 5),
        F.adaptive_avg_pool2d(x.permute(0, 3, 1, 2), 1).flatten(1), F.adaptive_avg_pool2d(x.permute(0, 3, 1, 2), 1)),
        (r(2, 5, 6, 4),), ({0: AUTO, 1: AUTO, 2: AUTO},)))
    # 3-D convolution (stride, padding, dilation, groups, bias), batch norm, max / average /
    # adaptive pools over a clip: the video models' operators
    c.append(case("video_3d", lambda m, x: (
        m.pool(F.relu(m.bn(m.conv(x)))), F.adaptive_avg_pool3d(m.grouped(m.conv(x)), (1, 2, 2)),
        F.avg_pool3d(x, (2, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1), count_include_pad=False),
        F.avg_pool3d(x, 2, ceil_mode=True), *F.max_pool3d(x, (2, 2, 3), stride=(1, 2, 2), padding=(1, 0, 1), return_indices=True)),
        (r(2, 3, 4, 10, 12),), ({0: AUTO, 2: AUTO, 3: AUTO, 4: AUTO},),
        conv=nn.Conv3d(3, 4, 3, stride=(1, 2, 2), padding=1), bn=nn.BatchNorm3d(4),
        pool=nn.MaxPool3d((1, 3, 3), stride=(1, 2, 2), padding=(0, 1, 1)),
        grouped=nn.Conv3d(4, 6, (1, 3, 3), padding=(0, 2, 2), dilation=(1, 2, 2), groups=2, bias=False)))
    # transposed 3-D convolution: stride, padding, output padding, dilation, groups, no bias
    c.append(case("conv_transpose_3d", lambda m, x: (m.up(x), m.grouped(x), F.relu(m.up(x)).sum()),
                  (r(2, 4, 3, 5, 6),), ({0: AUTO, 2: AUTO, 3: AUTO, 4: AUTO},),
                  up=nn.ConvTranspose3d(4, 3, 3, stride=2, padding=1, output_padding=1),
                  grouped=nn.ConvTranspose3d(4, 6, (2, 3, 3), stride=(1, 2, 3), padding=(0, 2, 1), dilation=(2, 1, 2),
                                             groups=2, bias=False)))
    # grid_sample (bilinear and nearest; zeros, border and reflection padding; both corner
    # conventions; points beyond [-1, 1]) and swapaxes / swapdims
    c.append(case("grid_swap", lambda m, x, grid: (
        *[F.grid_sample(x, grid * 1.3, mode=mode, padding_mode=pad, align_corners=ac)
          for mode in ("bilinear", "nearest") for pad in ("zeros", "border", "reflection") for ac in (False, True)],
        torch.swapaxes(x, 1, 3), torch.swapdims(x, 0, 2), x.swapaxes(-1, -2) * 2),
        (r(2, 3, 5, 7), torch.rand(2, 4, 6, 2) * 2 - 1), ({0: AUTO, 2: AUTO, 3: AUTO}, {0: AUTO, 1: AUTO, 2: AUTO})))
    # einsum: batched products, transposes, a diagonal, sums, dots, outer products, an ellipsis
    # that broadcasts, the implicit output
    c.append(case("einsum_forms", lambda m, a, b, q, k: (
        torch.einsum("bij,bjk->bik", a, b), torch.einsum("bij->bji", a), torch.einsum("bhqd,bhkd->bhqk", q, k),
        torch.einsum("...ij,...jk->...ik", a, b[:1]), torch.einsum("ij,jk", a[0], b[0]), torch.einsum("bij->", a),
        torch.einsum("i,i->", a[0, 0], a[1, 0]), torch.einsum("i,j->ij", a[0, 0], b[0, 0]), torch.einsum("ii->i", a[0, :, :3]),
        torch.einsum("bij,bkj->bik", a, a * 2), torch.einsum("abc->cba", q[0]), torch.einsum("bhqd->bqd", q)),
        (r(2, 3, 4), r(2, 4, 5), r(2, 3, 6, 4), r(2, 3, 5, 4)),
        ({0: AUTO, 1: AUTO}, {0: AUTO, 2: AUTO}, {0: AUTO, 2: AUTO}, {0: AUTO, 2: AUTO})))
    # RAFT's and MViT's operators: instance norm (batch statistics and running ones), repeat_interleave,
    # linspace, meshgrid (both indexings), tensor_split at indices
    c.append(case("raft_mvit_ops", lambda m, x, a: (
        F.instance_norm(x), m.inorm(x), F.instance_norm(x, m.rm, m.rv, use_input_stats=False),
        torch.repeat_interleave(x, 3, dim=1), torch.repeat_interleave(a, 2), torch.linspace(-1, 1, 7) + a[:1],
        *torch.meshgrid(a, torch.linspace(0, 2, 5), indexing="ij"), *torch.meshgrid(a, a * 2, indexing="xy"),
        *torch.tensor_split(x, [1, 3], dim=1), *torch.tensor_split(a, [2, 9])),
        (r(2, 4, 5, 6), r(6)), ({0: AUTO, 2: AUTO, 3: AUTO}, {0: AUTO}),
        inorm=nn.InstanceNorm2d(4, affine=True), rm=torch.rand(4), rv=torch.rand(4) + 0.5))
    # the default IR's squeeze without dims and broadcast_to; max / min / amax / amin of integers
    c.append(case("squeeze_broadcast_intmax", lambda m, x, i: (
        torch.squeeze(x) * 2, torch.broadcast_to(x, (3, x.shape[0], 1, 4)) + 1, i.max(), i.min(), i.amax(0), i.amin(1, keepdim=True),
        i.long().amax((0, 1)), torch.max(i, 1)[0]),
        (r(5, 1, 4), torch.randint(-50, 50, (5, 4), dtype=torch.int32)), ({0: AUTO}, {0: AUTO, 1: AUTO})))
    # composite operators the default IR keeps: frac, hardshrink, log_sigmoid, logit, mish, lgamma,
    # addcmul, addcdiv, lerp (both weights), triu, tril, logsumexp
    c.append(case("composite_elementwise", lambda m, x, y: (
        torch.frac(x * 3), F.hardshrink(x, 0.7), F.logsigmoid(x * 20), torch.logit(torch.sigmoid(x)), torch.logit(x.abs(), eps=0.1),
        F.mish(x * 3), torch.lgamma(x.abs() + 0.5), torch.addcmul(x, x, y, value=0.5), torch.addcdiv(x, y, x.abs() + 1, value=2),
        torch.lerp(x, y, 0.3), torch.lerp(x, y, 0.8), torch.lerp(x, y, torch.sigmoid(y)), torch.triu(x), torch.tril(x, -1),
        torch.triu(x.unsqueeze(0).expand(2, -1, -1) * 1, 2), torch.logsumexp(x, 1), torch.logsumexp(x * 50, (0, 1), keepdim=True)),
        (r(5, 6), r(5, 6)), ({0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO})))
    # more composites the default IR keeps: erfinv, digamma, std (three overloads), var, var_mean, std_mean,
    # cumprod (float and int), cummax / cummin (ties take the later index), tile, vstack, hstack, outer, kron,
    # linalg.norm (None, 'fro', a vector order)
    c.append(case("composite_more", lambda m, x, y, v, i: (
        torch.erfinv(torch.tanh(x) * 0.999), torch.erfinv(torch.tensor([0.0, 1.0, -1.0, 0.9999999])) + x.sum() * 0,
        torch.digamma(x * 4), torch.digamma(torch.tensor([0.0, -0.0, -2.0, -1.5, 30.0])) + x.sum() * 0,
        torch.std(x, 1), torch.std(x, (0, 1), keepdim=True), torch.std(x), torch.std(x, 0, correction=0), torch.var(x),
        torch.var_mean(x, 0)[0], torch.var_mean(x, 1, correction=0)[1], torch.std_mean(x, 1)[0], torch.std_mean(x)[1],
        torch.cumprod(x, 0), torch.cumprod(i, 1), torch.cummax(torch.round(x * 2), 1)[0], torch.cummax(torch.round(x * 2), 1)[1],
        torch.cummin(i, 0)[0], torch.cummin(i, 0)[1], torch.cummax(x, 0)[1],
        torch.tile(x, (2, 3)), torch.tile(x, (2,)), torch.tile(v, (2, 2)),
        torch.vstack([x, y]) * 1, torch.vstack([v, v * 2]), torch.hstack([x, y[:, :2]]), torch.hstack([v, v]),
        torch.outer(v, v[:3]), torch.kron(x, y[:2, :2]), torch.kron(v[:2], x),
        torch.linalg.norm(x), torch.linalg.norm(x, dim=1), torch.linalg.norm(x, 'fro'), torch.linalg.norm(v, 3),
        torch.linalg.norm(x, 1, dim=0, keepdim=True), torch.norm(x, dim=1)),
        (r(5, 4), r(5, 4), r(6), torch.tensor([[3, 1, -2, 2], [7, 0, 5, 1], [2, 2, 9, -1]])),
        ({0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO}, {0: AUTO}, {0: AUTO})))
    # bicubic upsampling (to a size, by a factor, both corner conventions), square, concat
    c.append(case("bicubic_square_concat", lambda m, x, i: (
        F.interpolate(x, size=(7, 9), mode="bicubic"), F.interpolate(x, scale_factor=2, mode="bicubic", align_corners=True),
        F.interpolate(x, size=(3, 2), mode="bicubic", align_corners=False), torch.square(x) - 1, torch.square(i),
        torch.concat([x, x * 2], 1), torch.concatenate([i, i], 0)),
        (r(2, 3, 5, 4), torch.tensor([[3, -1, 2], [7, 0, 5]])), ({0: AUTO}, {0: AUTO})))
    # F.fold (col2im) of F.unfold's blocks: overlapping blocks summed, with padding, stride and dilation
    c.append(case("fold_blocks", lambda m, x, y: (
        F.fold(F.unfold(x, 3, padding=1), (8, 8), 3, padding=1), F.fold(F.unfold(x, 3, padding=1, stride=2), (8, 8), 3, padding=1, stride=2),
        F.fold(y, (5, 6), (2, 3), dilation=(2, 1)), F.fold(y[0], (5, 6), (2, 3), dilation=(2, 1))),
        (r(2, 3, 8, 8), r(2, 12, 12)), ({0: AUTO}, {0: AUTO})))
    # rms_norm as nn.RMSNorm and F.rms_norm write it (weight or none, eps given or float32's)
    c.append(case("rms_norm_forms", lambda m, x: (
        m.norm(x), F.rms_norm(x, (6,)), F.rms_norm(x * 10, (4, 6), eps=1e-3)),
        (r(3, 4, 6),), ({0: AUTO, 1: AUTO},), norm=nn.RMSNorm(6)))
    # index_add (MoE layers gather their experts' outputs with it), with alpha and along dim 1;
    # slices from a negative symbolic start or to a negative symbolic end (x[:, -n:], XLM's)
    c.append(case("index_add_neg_slice", lambda m, x, y, i: (
        torch.zeros(6, 3).index_add(0, i, x), x.index_add(1, torch.tensor([2, 0, 2]), x[:, :3], alpha=2),
        torch.zeros(6, 3, dtype=torch.int64).index_add(0, i, (x * 10).long()),
        x[:, -y.shape[1]:] * 1, x[:, :-y.shape[1]] * 2, x[:, -(y.shape[1] // 2):] + 1),
        (r(4, 3), r(4, 2), torch.tensor([5, 0, 5, 2])), ({0: AUTO, 1: AUTO}, {1: AUTO}, None)))
    # histc over a given range and over the data's own, cumsum into another dtype (Mixtral's router counts)
    c.append(case("histc_cumsum", lambda m, x, i: (
        torch.histc(x, bins=7, min=-1, max=1), torch.histc(x, bins=5), torch.histc(torch.round(x * 2), bins=4, min=-2, max=2),
        torch.cumsum(x * 3, 0, dtype=torch.int32), torch.cumsum(i, 1, dtype=torch.float32), torch.cumsum(x, 1, dtype=torch.float64)),
        (r(6, 5), torch.tensor([[3, 1, -2], [7, 0, 5]])), ({0: AUTO, 1: AUTO}, {0: AUTO})))
    # a buffer updated by scatter_ (state kept from call to call)
    c.append(case("mutate_scatter", lambda m, x, pos: (m.acc.scatter_add_(0, pos, x) * 1, m.seen.scatter_(0, pos, 1.0) * 1),
                  (r(3, 4), torch.tensor([[0, 1, 2, 5], [4, 4, 0, 1], [5, 3, 3, 2]])), ({0: AUTO}, {0: AUTO}),
                  acc=torch.zeros(6, 4), seen=torch.zeros(6, 4)))
    c.append(case("mutate_alias", lambda m, x: mutate_alias(x), (r(4, 3),), ({0: AUTO},)))
    c.append(case("mutate_view", lambda m, x: mutate_view(x), (r(4, 3),), ({0: AUTO},)))
    c.append(case("mutate_contiguous", lambda m, x: mutate_contiguous(x), (r(4, 3),), ({0: AUTO},)))
    c.append(case("zero_slice", lambda m, x: zero_slice(x, m.w), (r(4, 5),), ({0: AUTO},), w=nn.Parameter(torch.ones(5) * 3)))
    c.append(case("mutate_input_view", lambda m, x: mutate_input_view(x, m.buf), (r(4, 3),), ({0: AUTO},),
                  buf=torch.zeros(2, 3)))
    c.append(case("mutate_slice", lambda m, x: mutate_slice(x), (r(4, 3),), ({0: AUTO},)))
    c.append(case("mutate_strided_slice", lambda m, x: mutate_strided_slice(x), (r(4, 5),), ({0: AUTO, 1: AUTO},)))
    c.append(case("mutate_overlapping_views", lambda m, x: mutate_overlapping_views(x), (r(4, 3),), ({0: AUTO},)))
    c.append(case("mutate_views_rederived", lambda m, x, z: mutate_views_rederived(x, z), (r(4, 3), r(5, 2)),
                  ({0: AUTO}, {0: AUTO})))
    c.append(case("mutate_through_reorders", lambda m, x, z: mutate_through_reorders(x, z), (r(4, 3), r(5, 2)),
                  ({0: AUTO}, {0: AUTO})))
    c.append(case("mutate_diagonal", lambda m, x: mutate_diagonal(x), (r(4, 3),), ({0: AUTO},)))
    c.append(case("mutate_split_pieces", lambda m, x: mutate_split_pieces(x), (r(4, 5),), ({0: AUTO},)))
    c.append(case("index_put_mask", lambda m, x, ids: index_put_mask(x, ids),
                  (r(5, 4), torch.tensor([[1, 3, 2], [3, 3, 0]])), ({0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO})))
    c.append(case("mixed_mask_index", lambda m, x, i, keep: mixed_mask_index(x, i, keep),
                  (r(3, 5, 4), torch.tensor([2]), torch.tensor([True, False, True, True])),
                  ({0: AUTO}, None, None)))
    c.append(case("search_sorted", lambda m, x, b, seq, ids: search_sorted(x, b, seq, ids),
                  (r(3, 4), r(5), r(3, 6), torch.tensor([[0, 1], [2, -1]])),
                  ({0: AUTO, 1: AUTO}, {0: AUTO}, {0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO})))
    c.append(case("complex_rotary", lambda m, xq, pos: complex_rotary(xq, pos), (r(2, 5, 3, 8), torch.arange(5)),
                  ({0: AUTO, 1: Dim("s")}, {0: Dim("s")})))
    c.append(case("eye_arange_int32", lambda m, x, ids: eye_arange_int32(x, ids),
                  (r(5, 4), torch.tensor([[0, 3, 1], [4, 2, 2]])), ({0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO})))
    c.append(case("sdpa_masked_rows", lambda m, q, k, v: sdpa_masked_rows(q, k, v), (r(2, 2, 5, 8), r(2, 2, 5, 8), r(2, 2, 5, 8)),
                  ({0: AUTO, 2: Dim("s")}, {0: AUTO, 2: Dim("s")}, {0: AUTO, 2: Dim("s")})))
    c.append(case("diagonal_in_place", lambda m, x: diagonal_in_place(x), (r(5, 3),), ({0: AUTO, 1: AUTO},)))
    c.append(case("rot90_float_power", lambda m, x: rot90_float_power(x), (r(2, 3, 4),), ({0: AUTO, 1: AUTO, 2: AUTO},)))
    c.append(case("patches_shuffles", lambda m, x, img: patches_shuffles(x, img), (r(2, 3, 11), r(2, 8, 3, 5)),
                  ({0: AUTO, 2: AUTO}, {0: AUTO, 2: AUTO, 3: AUTO})))
    c.append(case("mutate_detach", lambda m, x: mutate_detach(x), (r(4, 3),), ({0: AUTO},)))
    c.append(case("param_scale", lambda m, x: x * m.w, (r(4, 3),), ({0: AUTO},), w=nn.Parameter(torch.ones(3) * 2)))
    c.append(case("const_tensor", lambda m, x: x + torch.tensor([1.0, 2.0, 3.0]), (r(4, 3),), ({0: AUTO},)))
    c.append(case("embedding", lambda m, i: m.e(i), (torch.randint(0, 10, (4, 5)),), ({0: AUTO, 1: AUTO},),
                  e=nn.Embedding(10, 6)))
    # ---- ops of the default IR -----------------------------------------------------------------------
    c.append(case("inplace_add", lambda m, x, y: x.clone().add_(y), (r(4, 3), r(4, 3)), ({0: AUTO}, {0: AUTO})))
    c.append(case("inplace_relu", lambda m, x: F.relu(x.clone(), inplace=True), (r(4, 3),), ({0: AUTO},)))
    c.append(case("max_reduce", lambda m, x: x.max() + x.amax(1).sum(), (r(4, 3),), ({0: AUTO, 1: AUTO},)))
    c.append(case("softmax_ln", lambda m, x: F.layer_norm(F.softmax(x, -1), (x.shape[-1],)), (r(4, 8),), ({0: AUTO},)))
    c.append(case("sdpa", lambda m, q, k, v: F.scaled_dot_product_attention(q, k, v), (r(2, 4, 8), r(2, 6, 8), r(2, 6, 8)),
                  ({0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO})))
    # padding modes: "same" (dilated odd kernel, both sides) compiles; an even kernel pads
    # one more on the right, which shapec refuses (lib/frontend/conv_padding.c)
    c.append(case("conv_same", lambda m, x: m.c(x) + m.v(x), (r(2, 3, 9, 9),), ({0: AUTO, 2: AUTO, 3: AUTO},),
                  c=nn.Conv2d(3, 4, 3, padding="same", dilation=2), v=nn.Conv2d(3, 4, 1, padding="valid")))
    c.append(case("conv_same_even", lambda m, x: m.c(x), (r(2, 3, 9, 9),), ({0: AUTO},),
                  c=nn.Conv2d(3, 4, 4, padding="same")))
    # nn.EmbeddingBag: mean over bags of 3, max with a padding index over 2-D ids, sum
    # weighted per sample with the last offset closing the last bag (offsets made from the
    # dynamic length, so that every probe's data is valid)
    c.append(case("embedding_bag_modes",
                  lambda m, ids, ids2, w: (m.mean(ids, torch.arange(0, ids.shape[0], 3)), m.max(ids2),
                                           m.sum(ids, torch.arange(0, ids.shape[0] + 1, 4), per_sample_weights=w)),
                  (torch.tensor([1, 2, 4, 5, 4, 3, 2, 9]), torch.tensor([[1, 2, 3], [2, 2, 2], [0, 7, 2]]), torch.rand(8)),
                  ({0: AUTO}, {0: AUTO}, {0: AUTO}),
                  mean=nn.EmbeddingBag(10, 5, mode="mean"), max=nn.EmbeddingBag(10, 5, mode="max", padding_idx=2),
                  sum=nn.EmbeddingBag(10, 5, mode="sum", include_last_offset=True)))
    # the Python-named spellings of ops that torch.export keeps in the default IR
    c.append(case("python_name_aliases",
                  lambda m, x, y: (torch.multiply(x, y) + torch.subtract(x, y, alpha=2) + torch.divide(x, y.abs() + 1) +
                                   torch.divide(x * 4, y.abs() + 1, rounding_mode="floor") + torch.true_divide(x, 3.0) +
                                   torch.negative(x) + torch.absolute(y) + torch.clip(x, -0.5, 0.5) + torch.clip(x, min=y) +
                                   torch.fix(x * 3) + torch.positive(y),
                                   torch.greater(x, y) & torch.greater_equal(x, -0.5) | torch.less(x, y) ^ torch.less_equal(x, 0.1),
                                   torch.not_equal(x, y) & torch.not_equal(x, 0.0) & torch.greater(x, -2.0) & torch.less(x, 2.0),
                                   torch.arccos(x.clamp(-1, 1)) + torch.arcsin(x.clamp(-1, 1)) + torch.arctan(x) +
                                   torch.arctan2(x, y) + torch.arcsinh(x) + torch.arctanh(x.clamp(-0.5, 0.5)) +
                                   torch.arccosh(x.abs() + 1),
                                   torch.special.expit(x) + torch.special.erf(x) + torch.special.expm1(x) +
                                   torch.special.log1p(x.abs()) + torch.special.logit(x.sigmoid(), 1e-6),
                                   torch.special.log_softmax(x, 1), torch.special.softmax(x, 1), torch.ger(x[0], y[0])),
                  (r(4, 5), r(4, 5)), ({0: AUTO}, {0: AUTO})))
    # elementwise ops with two operands or special values: NaN, infinities and zeros placed
    # by the case (fmax/fmin ignore a NaN, xlogy's 0 * log(0), logaddexp of equal infinities)
    def specials(x, y):
        x = torch.cat([x, torch.tensor([[float("nan"), float("inf"), float("-inf"), 0.0, 0.0]])])
        y = torch.cat([y, torch.tensor([[1.0, float("inf"), float("-inf"), 0.0, float("nan")]])])
        return x, y

    def elementwise_more(m, x, y):
        x, y = specials(x, y)
        return (torch.fmax(x, y), torch.fmin(x, y), torch.copysign(x, y), torch.hypot(x, y), torch.logaddexp(x, y),
                torch.xlogy(x, y.abs()), torch.heaviside(x, y), torch.deg2rad(x), torch.rad2deg(x),
                torch.nextafter(x, y), torch.nan_to_num(x), torch.nan_to_num(x, nan=1.5, posinf=9.0, neginf=-9.0),
                torch.sgn(x), torch.special.xlogy(x.abs(), y) if hasattr(torch.special, "xlogy") else x)

    c.append(case("elementwise_more", elementwise_more, (r(4, 5), r(4, 5)), ({0: AUTO}, {0: AUTO})))
    # glu (Conformer's convolution module), masked_fill with a 0-d tensor (SEW-D), and the
    # channel and SELU dropouts in eval mode (MobileNetV2's segmentation head)
    c.append(case("glu_fill_dropouts",
                  lambda m, x, mask: (F.glu(x, dim=1), F.glu(x), x.masked_fill(mask, torch.tensor(-1.5)),
                                      m.d2(x.unsqueeze(-1)).squeeze(-1), F.alpha_dropout(x, 0.2, training=False),
                                      F.feature_alpha_dropout(x.unsqueeze(-1), 0.2, training=False)),
                  (r(3, 4, 6), torch.rand(3, 4, 6) > 0.5), ({0: AUTO, 2: AUTO}, {0: AUTO, 2: AUTO}),
                  d2=nn.Dropout2d(0.3)))
    # dropout that trains (a model exported without model.eval()): refused, never an identity
    c.append(case("dropout_training", lambda m, x: F.dropout(x, 0.5, training=True) * 2, (r(4, 6),), ({0: AUTO},)))
    # movedim / moveaxis (one dim, lists, negative dims) and fliplr / flipud, which the
    # default IR keeps
    c.append(case("dim_moves", lambda m, x: (torch.movedim(x, 1, -1) * 2, torch.moveaxis(x, (0, -1), (2, 0)) + 1,
                                             torch.movedim(x, [2, 0], [0, 1]), torch.fliplr(x), torch.flipud(x[0])),
                  (r(2, 3, 4),), ({0: AUTO, 2: AUTO},)))
    # torch.fft inside a program (FNet's fftn; rfft / irfft): complex64 intermediates, real
    # results; lengths of powers of two and not, a dynamic length, each norm
    def fft_ops(m, x, y):
        f = torch.fft.fft(x)
        r = torch.fft.rfft(x, norm="ortho")
        n2 = torch.fft.fftn(x, dim=(0, 1), norm="forward")
        g = torch.fft.fftn(y)
        return (f.real, f.imag, r.abs(), torch.view_as_real(r), torch.fft.irfft(r, norm="ortho"), n2.real,
                torch.fft.ifft(f).real, torch.fft.ifftn(n2, dim=(0, 1), norm="forward").real, g.real,
                torch.fft.irfft(torch.fft.rfft(y, dim=0), dim=0))

    c.append(case("fft_ops", fft_ops, (r(5, 6), r(8, 4)), ({0: AUTO}, None)))

    # randperm: shapec draws its own permutation (not torch's numbers), so the case checks
    # what every permutation gives: the same sum of the permuted rows, 0 .. n-1 once sorted
    c.append(case("randperm_sum", lambda m, x: (x[torch.randperm(x.shape[0])].sum(0),
                                                torch.randperm(x.shape[0]).sort().values,
                                                torch.randperm(x.shape[1] + 2, dtype=torch.float32).sort().values),
                  (r(6, 3),), ({0: AUTO, 1: AUTO},)))
    # and a dilated even kernel in 1-D: 3 * (2 - 1) = 3 padded as 1 left, 2 right
    c.append(case("conv1d_same_dilated", lambda m, x: m.c(x).relu(), (r(2, 3, 11),), ({0: AUTO, 2: AUTO},),
                  c=nn.Conv1d(3, 4, 2, padding="same", dilation=3)))
    # roll (Swin's shifted windows), fmod and remainder (C's and Python's signs)
    c.append(case("roll_dims", lambda m, x: torch.roll(x, shifts=(-3, 2), dims=(1, 2)) + torch.roll(x, 5),
                  (r(2, 5, 7),), ({0: AUTO, 1: AUTO, 2: AUTO},)))
    c.append(case("fmod_remainder", lambda m, x, y: (torch.fmod(x * 7, y), torch.remainder(x * 7, y),
                                                     torch.fmod(x * 7, -1.5), torch.remainder(x * 7, -1.5),
                                                     torch.remainder(torch.arange(x.shape[0]) - 3, 4)),
                  (r(6, 4), r(6, 4) + 2), ({0: AUTO}, {0: AUTO})))
    c.append(case("diff_prepend", lambda m, x: (torch.diff(x, dim=1, prepend=x[:, :1] * 2, append=x[:, -2:]),
                                                torch.diff(torch.arange(x.shape[0]) * 3, prepend=torch.zeros(1, dtype=torch.int64))),
                  (r(5, 4),), ({0: AUTO, 1: AUTO},)))
    c.append(case("conv_pool", lambda m, x: F.max_pool2d(m.c(x).relu(), 2), (r(2, 3, 16, 16),), ({0: AUTO, 2: AUTO, 3: AUTO},),
                  c=nn.Conv2d(3, 4, 3, padding=1)))
    c.append(case("batchnorm_eval", lambda m, x: m.bn(x), (r(4, 3, 5, 5),), ({0: AUTO},), bn=nn.BatchNorm2d(3).eval()))
    c.append(case("gelu_erf", lambda m, x: F.gelu(x) + torch.erf(x), (r(4, 3),), ({0: AUTO},)))
    c.append(case("mean_var", lambda m, x: x.mean(0) + x.var(0), (r(6, 3),), ({0: AUTO},)))
    c.append(case("arange_len", lambda m, x: x + torch.arange(x.shape[0]).unsqueeze(1), (r(6, 3),), ({0: AUTO},)))
    c.append(case("full_like", lambda m, x: torch.full_like(x, 2.0) * x, (r(6, 3),), ({0: AUTO, 1: AUTO},)))
    c.append(case("index_select", lambda m, x, i: x.index_select(0, i), (r(6, 3), torch.tensor([0, 2, 4])), ({0: AUTO}, {0: AUTO})))
    c.append(case("dropout_eval", lambda m, x: F.dropout(x, 0.5, training=False), (r(6, 3),), ({0: AUTO},)))
    c.append(case("clamp_sigmoid", lambda m, x: torch.sigmoid(x).clamp(0.2, 0.8), (r(6, 3),), ({0: AUTO},)))
    # constant padding (aten.pad, constant_pad_nd once decomposed): growing, cropping with
    # negative pads, both at once, an int tensor; flips
    c.append(case("pad_flip", lambda m, x, i: (F.pad(x, (1, 2)), F.pad(x, (0, 1, 2, 0), value=-1.5),
                                              F.pad(x, (-1, 2, 1, -1)), F.pad(x, (1, 1, 1, 1, 1, 1), value=3.0),
                                              F.pad(i, (2, 0), value=7), torch.flip(x, [1, 2]), torch.flip(i, [0])),
                  (r(2, 3, 5), torch.arange(12).reshape(4, 3)), ({0: AUTO, 1: AUTO, 2: AUTO}, {0: AUTO, 1: AUTO})))
    # group norm with weights (nn.GroupNorm) and without, nearest upsampling by scale and by
    # size (x2, x4 by 1), and by 3, which shapec refuses (float32's 1 / 3 rounds ATen's index)
    c.append(case("group_norm_upsample", lambda m, x: (m.gn(x), F.group_norm(x * 3 + 1, 4, eps=1e-3),
                                                      F.interpolate(x, scale_factor=2, mode="nearest"),
                                                      F.interpolate(x, size=(4 * x.shape[2], x.shape[3]), mode="nearest")),
                  (r(2, 4, 3, 5),), ({0: AUTO, 2: AUTO, 3: AUTO},), gn=nn.GroupNorm(2, 4)))
    # 1-D pooling (avg_pool1d and max_pool1d in torch 2.14's IR), batched and not, with
    # stride, padding, dilation and ceil mode
    c.append(case("pool1d", lambda m, x, u: (F.max_pool1d(x, 3), F.max_pool1d(x, 3, 2, 1, dilation=2), F.avg_pool1d(x, 2),
                                            F.avg_pool1d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
                                            F.max_pool1d(u, 2, ceil_mode=True)),
                  (r(2, 3, 11), r(4, 9)), ({0: AUTO, 2: AUTO}, {1: AUTO})))
    # transposed convolutions as torch 2.14's IR names them (conv_transpose2d.input,
    # conv_transpose1d): stride, padding, output padding, groups, dilation, no bias
    c.append(case("conv_transpose", lambda m, x, y: (m.up(x), m.grouped(x), m.line(y)), (r(2, 4, 5, 6), r(2, 3, 7)),
                  ({0: AUTO, 2: AUTO, 3: AUTO}, {0: AUTO, 2: AUTO}),
                  up=nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1),
                  grouped=nn.ConvTranspose2d(4, 6, (2, 3), stride=(1, 2), groups=2, dilation=(2, 1), bias=False),
                  line=nn.ConvTranspose1d(3, 2, 4, stride=3, padding=2)))
    # linalg_vector_norm of orders 2 (F.normalize, with expand_as; x.norm()), 1, inf, -inf and
    # 3, over dims and over everything, kept and not
    c.append(case("vector_norm", lambda m, x: (F.normalize(x, dim=-1), x.norm(), torch.linalg.vector_norm(x, 1, dim=(0, 2), keepdim=True),
                                              torch.linalg.vector_norm(x, float("inf"), dim=1),
                                              torch.linalg.vector_norm(x, float("-inf"), dim=-1),
                                              torch.linalg.vector_norm(x, 3, dim=1)),
                  (r(2, 3, 5),), ({0: AUTO, 1: AUTO, 2: AUTO},)))
    # cumsum of floats (summed in double, as ATen's CPU kernel), of an int64 mask as position
    # ids are made from it, of bools (into int64), over a negative dim
    c.append(case("cumsum", lambda m, x, mask: (torch.cumsum(x, 1), x.cumsum(-1) * 2, (mask.cumsum(1) - 1) * mask,
                                               (x > 0).cumsum(0)),
                  (r(3, 6, 4), torch.tensor([[1, 1, 1, 0, 0], [1, 1, 0, 0, 0]])), ({0: AUTO, 1: AUTO, 2: AUTO}, {0: AUTO, 1: AUTO})))
    # sums of bools and ints asked for in float32 (a masked mean's count), and the count
    # norm (order 0), whose decomposition is such a sum
    c.append(case("sum_as_float", lambda m, x, mask: ((x * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True, dtype=torch.float32),
                                                     torch.sum(x > 0, dtype=torch.float32), torch.linalg.vector_norm(x.relu(), 0, dim=2)),
                  (r(2, 5, 3), torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 0]])), ({0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO})))
    c.append(case("upsample_by_3", lambda m, x: F.interpolate(x, scale_factor=3, mode="nearest"), (r(1, 2, 3, 4),),
                  ({0: AUTO, 2: AUTO, 3: AUTO},)))
    # rounding (halves to even), sign, log1p / expm1 / log2, elu / celu / softplus
    c.append(case("unary_more", lambda m, x: (torch.round(torch.floor(x * 8) / 2) * 10 + torch.floor(x * 3) + torch.ceil(x) + torch.trunc(x * 5),
                                              torch.sign(x) * torch.log1p(x.abs()) + torch.expm1(x) + torch.log2(x.abs() + 1),
                                              F.elu(x) + F.celu(x, 0.5) + F.softplus(x * 8, beta=2, threshold=6)),
                  (r(6, 5),), ({0: AUTO, 1: AUTO},)))
    return c


class Tutorial(nn.Module):
    """The torch.export tutorial's model with its linear layer."""

    def __init__(self):
        super().__init__()
        self.l = nn.Linear(5, 3)

    def forward(self, w, x, y, z):
        return self.l(w), x + y, z.view(-1) + (x.unsqueeze(0) * y).reshape(-1)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.b1 = nn.BatchNorm2d(8)
        self.c2 = nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.b2 = nn.BatchNorm2d(16)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.b1(self.c1(x))), 2)
        x = F.relu(self.b2(self.c2(x)))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


class SelfAttention(nn.Module):
    """nn.MultiheadAttention on one tensor (query, key and value), as nn.TransformerEncoderLayer
    calls it."""

    def __init__(self, mha):
        super().__init__()
        self.mha = mha

    def forward(self, x):
        return self.mha(x, x, x, need_weights=False)[0]


class CrossAttention(nn.Module):
    def __init__(self, mha):
        super().__init__()
        self.mha = mha

    def forward(self, x, memory):
        return self.mha(x, memory, memory, need_weights=False)[0]


class PackedHeads(nn.Module):
    """Attention with the heads split off one projection by reshape, permute and indexing
    (the ViT / timm spelling), or by unbind."""

    def __init__(self, e, h, unbind):
        super().__init__()
        self.h, self.unbind = h, unbind
        self.qkv, self.proj = nn.Linear(e, 3 * e), nn.Linear(e, e)

    def forward(self, x):
        b, s, e = x.shape
        qkv = self.qkv(x).reshape(b, s, 3, self.h, e // self.h).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0) if self.unbind else (qkv[0], qkv[1], qkv[2])
        y = F.scaled_dot_product_attention(q, k, v, is_causal=self.unbind)
        return self.proj(y.transpose(1, 2).reshape(b, s, e))


def zoo_cases():
    """The zoo: name, module (eval mode), args, spec.  The big torchvision models are
    listed by zoo_big_cases()."""
    torch.manual_seed(0)
    mlp = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10)).eval()
    enc = nn.TransformerEncoderLayer(32, 4, 64, batch_first=True, dropout=0.0).eval()
    return [
        ("zoo_tutorial", Tutorial().eval(), (r(6, 5), r(4), r(8, 4), r(32)),
         {"w": {0: AUTO}, "x": {0: AUTO}, "y": {0: AUTO, 1: AUTO}, "z": {0: AUTO}}, {}),
        ("zoo_mlp", mlp, (r(8, 32),), ({0: Dim("batch", max=1024)},), {}),
        ("zoo_small_cnn", SmallCNN().eval(), (r(2, 3, 32, 32),), ({0: Dim("batch", max=64)},), {}),
        ("zoo_transformer_encoder", enc, (r(2, 10, 32),), ({0: Dim("batch", max=64), 1: Dim("seq", max=128)},), {}),
        # the head splits that attention reads through strides (backends/llvm/cg_view_chains.c)
        ("zoo_mha_seq_first", SelfAttention(nn.MultiheadAttention(32, 4).eval()), (r(10, 3, 32),),
         ({0: Dim("seq", max=128), 1: Dim("batch", max=64)},), {}),
        ("zoo_mha_cross", CrossAttention(nn.MultiheadAttention(32, 2, batch_first=True).eval()), (r(2, 5, 32), r(2, 7, 32)),
         ({0: Dim("batch", max=64), 1: Dim("queries", max=128)}, {0: Dim("batch", max=64), 1: Dim("keys", max=128)}), {}),
        ("zoo_heads_index", PackedHeads(32, 4, False).eval(), (r(2, 9, 32),),
         ({0: Dim("batch", max=64), 1: Dim("seq", max=128)},), {}),
        ("zoo_heads_unbind", PackedHeads(32, 4, True).eval(), (r(2, 9, 32),),
         ({0: Dim("batch", max=64), 1: Dim("seq", max=128)},), {}),
        # slices whose clamps tracing decided with n >= 2: ep.module() runs n = 0 and 1
        case("zoo_slice_floor", slice_floor, (r(5, 3),), {"x": {0: Dim("n", min=0, max=64)}}),
    ]


def item_count(m, x):
    """A count (an int64 sum of bools) read back with item() as a length."""
    u = (x[:, 0] > 0).sum().item()
    torch._check(u <= x.shape[0])
    return x[:u] * 2, (x > 0).sum(0)


def slice_floor(m, x):
    h = (x[:2] * 2).transpose(0, 1) + 1
    return h.sum(-1), x[-2:] + 1


def zoo_big_cases():
    """resnet18 and mobilenet_v2 (torchvision, no pretrained weights) at 64x64, their
    weights set by thin.fill() so that the corpus can store them thin.  Returns the cases
    and {sha256: recipe} of every weight."""
    import torchvision.models as tvm

    import thin

    recipes, out = {}, []
    for name, make in (("zoo_resnet18", tvm.resnet18), ("zoo_mobilenet_v2", tvm.mobilenet_v2)):
        model = make(weights=None).eval()
        recipes.update(thin.fill(model))
        out.append((name, model, (r(2, 3, 64, 64),), ({0: Dim("batch", max=16)},), {}))
    for name, model, args in torchvision_models():
        recipes.update(thin.fill(model))
        # RAFT's batch is specialized by torch (a guard it can only solve as 2): AUTO, as users get it
        batch = Dim.AUTO if name == "tv_raft_small" else Dim("batch", max=4)
        out.append((name, model, args, tuple({0: batch} for _ in args), {}))
    return out, recipes


class SegmentationOut(nn.Module):
    """A torchvision segmentation model's "out" map (its result is a dict)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


class FlowUpdates(nn.Module):
    """RAFT with a given number of flow updates (its forward's argument)."""

    def __init__(self, model, updates):
        super().__init__()
        self.model, self.updates = model, updates

    def forward(self, image1, image2):
        return self.model(image1, image2, num_flow_updates=self.updates)


def torchvision_models():
    """One or two torchvision models of each kind beyond resnet18 and mobilenet_v2, small
    inputs, batch up to 4 (torch 2.14 only: trixie has no torchvision): classification
    (transformers, depthwise and grouped convolutions, channel shuffles, inception
    branches), segmentation, video (3-D convolutions) and optical flow."""
    import torchvision.models as tvm
    import torchvision.models.optical_flow as flow
    import torchvision.models.segmentation as seg
    import torchvision.models.video as video

    image = (r(2, 3, 64, 64),)
    return [
        ("tv_swin_t", tvm.swin_t(weights=None).eval(), image),
        ("tv_swin_v2_t", tvm.swin_v2_t(weights=None).eval(), image),
        ("tv_convnext_tiny", tvm.convnext_tiny(weights=None).eval(), image),
        ("tv_efficientnet_b0", tvm.efficientnet_b0(weights=None).eval(), image),
        ("tv_mobilenet_v3_small", tvm.mobilenet_v3_small(weights=None).eval(), image),
        ("tv_shufflenet_v2_x0_5", tvm.shufflenet_v2_x0_5(weights=None).eval(), image),
        ("tv_squeezenet1_1", tvm.squeezenet1_1(weights=None).eval(), image),
        ("tv_mnasnet0_5", tvm.mnasnet0_5(weights=None).eval(), image),
        ("tv_regnet_y_400mf", tvm.regnet_y_400mf(weights=None).eval(), image),
        ("tv_googlenet", tvm.googlenet(weights=None, aux_logits=False, init_weights=False).eval(), image),
        ("tv_densenet121", tvm.densenet121(weights=None).eval(), image),
        ("tv_lraspp_mobilenet_v3", SegmentationOut(seg.lraspp_mobilenet_v3_large(weights=None, weights_backbone=None)).eval(),
         image),
        ("tv_deeplabv3_mobilenet_v3", SegmentationOut(seg.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None)).eval(),
         image),
        ("tv_r3d_18", video.r3d_18(weights=None).eval(), (r(2, 3, 4, 32, 32),)),
        ("tv_raft_small", FlowUpdates(flow.raft_small(weights=None), 4).eval(), (r(2, 3, 128, 128), r(2, 3, 128, 128))),
    ]
