"""gen_complex.py - two programs with a complex tensor at their boundary, for the CLI tests
(test/cli/run_cli_tests.sh): shapec computes complex64 inside a program only and refuses
these with SC0801.  Written by torch 2.14 in the sid chroot:

    scripts/real-torch.sh run test/cli/complex/gen_complex.py
"""
import os

import torch

HERE = os.path.dirname(os.path.abspath(__file__))


class ReturnsComplex(torch.nn.Module):
    def forward(self, x):
        return torch.fft.rfft(x)


class TakesComplex(torch.nn.Module):
    def forward(self, z):
        return torch.fft.irfft(z)


torch.export.save(torch.export.export(ReturnsComplex(), (torch.randn(4, 6),), strict=False),
                  os.path.join(HERE, "complex_output.pt2"))
torch.export.save(torch.export.export(TakesComplex(), (torch.randn(4, 4, dtype=torch.complex64),), strict=False),
                  os.path.join(HERE, "complex_input.pt2"))
