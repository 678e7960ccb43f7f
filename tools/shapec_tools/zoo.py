"""The model zoo for tests and benchmarks, generated at test time with fixed seeds.

Each entry: a factory for the module, its sample inputs, their names, and the
dynamic_shapes spec the tests export it with."""
import math
import os

import torch
import torch.nn.functional as F


class TutorialModel(torch.nn.Module):
    """The torch.export tutorial's DynamicModel: w [6, 5], x [4], y [8, 4], z [32]."""

    def __init__(self):
        super().__init__()
        self.l = torch.nn.Linear(5, 3)

    def forward(self, w, x, y, z):
        x0 = x + y
        x1 = self.l(w)
        x2 = x0.flatten()
        x3 = x2 + z
        return x1, x3


class EncoderBlock(torch.nn.Module):
    """A transformer encoder block from basic ops: layer norm, multi-head attention with
    softmax, GELU feed-forward (post-norm, like nn.TransformerEncoderLayer)."""

    def __init__(self, d_model=256, heads=4, ff=1024):
        super().__init__()
        self.d, self.h = d_model, heads
        self.q = torch.nn.Linear(d_model, d_model)
        self.k = torch.nn.Linear(d_model, d_model)
        self.v = torch.nn.Linear(d_model, d_model)
        self.o = torch.nn.Linear(d_model, d_model)
        self.norm1 = torch.nn.LayerNorm(d_model)
        self.norm2 = torch.nn.LayerNorm(d_model)
        self.ff1 = torch.nn.Linear(d_model, ff)
        self.ff2 = torch.nn.Linear(ff, d_model)

    def forward(self, x):
        b, t, _ = x.shape
        dh = self.d // self.h

        def heads(y):
            return y.reshape(b, t, self.h, dh).transpose(1, 2)

        q, k, v = heads(self.q(x)), heads(self.k(x)), heads(self.v(x))
        att = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(dh), dim=-1) @ v
        x = self.norm1(x + self.o(att.transpose(1, 2).reshape(b, t, self.d)))
        return self.norm2(x + self.ff2(F.gelu(self.ff1(x))))


class Chain(torch.nn.Module):
    """gelu(x*w + b) + x: bound by memory bandwidth (the benchmarks' elementwise chain)."""

    def __init__(self, n=4096):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(n))
        self.b = torch.nn.Parameter(torch.randn(n))

    def forward(self, x):
        return F.gelu(x * self.w + self.b) + x


def mlp():
    return torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
                               torch.nn.ReLU(), torch.nn.Linear(512, 10))


def resnet18():
    import torchvision
    return torchvision.models.resnet18()


def mobilenet_v2():
    import torchvision
    return torchvision.models.mobilenet_v2()


AUTO = "_DimHint.AUTO"

ZOO = {
    "mlp": (mlp, {"x": [8, 784]}, {"x": [AUTO, None]}),
    "resnet18": (resnet18, {"x": [2, 3, 64, 64]}, {"x": [AUTO, None, AUTO, AUTO]}),
    "mobilenet_v2": (mobilenet_v2, {"x": [2, 3, 64, 64]}, {"x": [AUTO, None, AUTO, AUTO]}),
    "encoder": (EncoderBlock, {"x": [2, 16, 256]}, {"x": [AUTO, AUTO, None]}),
    "tutorial": (TutorialModel, {"w": [6, 5], "x": [4], "y": [8, 4], "z": [32]},
                 {"w": [AUTO, AUTO], "x": [AUTO], "y": [AUTO, AUTO], "z": [AUTO]}),
}


def build(name, seed=0):
    """(module, input names, sample inputs, spec dict) for a zoo entry, reproducibly."""
    factory, shapes, spec = ZOO[name]
    torch.manual_seed(seed)
    module = factory().eval()
    names = list(shapes)
    inputs = [torch.randn(*shapes[n]) for n in names]
    return module, names, inputs, {"dynamic_shapes": spec}


def program_files(name, folder):
    """A zoo entry converted by the PyTorch installed here into `folder`: the command-line
    arguments `shapec export` takes for it, [program file, "--dynamic", spec file]."""
    import json

    from .convert import convert
    module, names, inputs, spec = build(name)
    path = convert(module, inputs, os.path.join(folder, name + "-src"), input_names=names)
    spec_path = os.path.join(folder, name + "-spec.json")
    with open(spec_path, "w") as fp:
        json.dump(spec, fp)
    return [path, "--dynamic", spec_path]

