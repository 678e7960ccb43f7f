#!/usr/bin/python3
"""Peer measurement for bench_analysis: PyTorch's own symbolic shape tracing of the same
deep MLP (Sequential of LAYERS x [Linear(W, W), ReLU()], dynamic batch), timed the way
torch.export's front end works on Debian's PyTorch 1.13: make_fx(..., tracing_mode="symbolic")
over a functional form of the module, parameters passed as inputs.

usage: peer_make_fx.py [LAYERS] [WIDTH] [REPEATS]   (run with Debian's /usr/bin/python3)"""
import statistics
import sys
import time

import torch
from torch.fx.experimental.proxy_tensor import make_fx
from torch.nn.utils import stateless


def main():
    layers = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    width = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    torch.manual_seed(0)
    mods = []
    for _ in range(layers):
        mods += [torch.nn.Linear(width, width), torch.nn.ReLU()]
    model = torch.nn.Sequential(*mods).eval()
    params = dict(model.named_parameters())
    names = list(params)

    def forward(x, *flat):
        return stateless.functional_call(model, dict(zip(names, flat)), (x,))

    x = torch.randn(8, width)
    times = []
    nodes = 0
    for _ in range(repeats):
        t0 = time.perf_counter()
        gm = make_fx(forward, tracing_mode="symbolic")(x, *params.values())
        times.append((time.perf_counter() - t0) * 1e3)
        nodes = len(gm.graph.nodes)
    print(f"torch {torch.__version__} make_fx symbolic: {layers} layers, {nodes} graph nodes")
    print(f"torch_ms median={statistics.median(times):.1f} min={min(times):.1f} max={max(times):.1f} "
          f"(over {repeats} runs)")


if __name__ == "__main__":
    main()
