#!/usr/bin/python3
"""fit_erf.py - the rational approximation of erf in backends/llvm/erf_fit.h, which the generated
loops and the runtime's GELU use for float32: erf(x) = x * P(x^2) / Q(x^2) on [0, 4],
Q(0) = 1, fitted by least squares with relative weights, reweighted by 1/Q a few times.
Prints the max error of each degree pair, evaluated in float32 as the generated code does,
and the chosen (5, 5) coefficients.

usage: /usr/bin/python3 scripts/fit_erf.py       (NumPy)"""
import math

import numpy as np

erf = np.vectorize(math.erf)
x = np.concatenate([np.linspace(0, 4.0, 20001), np.geomspace(1e-6, 1, 2000)])
y = erf(x)
t = x * x


def fit(dp, dq, rounds=8):
    w = np.ones_like(x)
    for _ in range(rounds):
        cols = [x[:, None] * t[:, None] ** np.arange(dp + 1)[None, :],
                -(y[:, None] * t[:, None] ** np.arange(1, dq + 1)[None, :])]
        a = np.hstack(cols)
        rw = w / np.maximum(y, 1e-30)
        coef, *_ = np.linalg.lstsq(a * rw[:, None], y * rw, rcond=None)
        p, q = coef[:dp + 1], np.concatenate([[1.0], coef[dp + 1:]])
        w = 1 / np.abs(np.polyval(q[::-1], t))
    return p, q


def error_f32(p, q):
    xf = np.linspace(-5, 5, 400001).astype(np.float32)
    xc = np.clip(xf, -3.92, 3.92).astype(np.float32)
    tf = xc * xc
    num, den = np.zeros_like(tf), np.zeros_like(tf)
    for c in p.astype(np.float32)[::-1]:
        num = (num * tf + c).astype(np.float32)
    for c in q.astype(np.float32)[::-1]:
        den = (den * tf + c).astype(np.float32)
    r = np.clip(xc * num / den, -1, 1)
    ref = erf(xf.astype(np.float64))
    nz = ref != 0
    return np.max(np.abs(r - ref)), np.max(np.abs(r[nz] - ref[nz]) / np.abs(ref[nz]))


for dp, dq in [(4, 4), (5, 4), (5, 5), (6, 5)]:
    p, q = fit(dp, dq)
    ae, re = error_f32(p, q)
    print(f"P degree {dp}, Q degree {dq}: max abs error {ae:.2e}, max relative {re:.2e}")
    if (dp, dq) == (5, 5):
        chosen = (p, q)
print("P:", chosen[0].tolist())
print("Q:", chosen[1].tolist())
