#!/usr/bin/python3
"""fit_gelu_table.py - the piecewise polynomial of backends/llvm/gelu_table.h: 0.5 erf(|x| / sqrt 2)
for the exact GELU of libraries built for AVX-512, where a 16-entry permute picks each piece's
coefficients (no division: the rational fit of erf_fit.h needs one, which is the chain's
bottleneck on Intel's 512-bit units).

Piece k (0..15) covers |x| / sqrt 2 in [k / 4, (k + 1) / 4]: with t = |x| (4 / sqrt 2) - 0.5,
k = round(t) and u = t - k in [-1/2, 1/2], the piece is a degree-5 polynomial in u, fitted by
least squares on Chebyshev points (close to minimax).  The last piece also passes 1/2 from the
clamp on (t is clamped at the clamp's t), so that min(piece, 1/2) is exactly 1/2 there, as
float32's erf is.  Prints the max error of the float32 evaluation (fused multiply-adds) over a
dense sweep and the table as C.

usage: /usr/bin/python3 scripts/fit_gelu_table.py       (NumPy)"""
import math

import numpy as np

PIECES, DEGREE = 16, 5
PER_UNIT = PIECES / 4  # pieces per unit of |x| / sqrt 2
CLAMP = float.fromhex("0x1.62b9dep+2")  # SC_GELU_CLAMP (erf_fit.h): 0.5 erf rounds to 1/2 from here
f32 = np.float32
erf = np.vectorize(math.erf)


def fma(a, b, c):
    """float32 fused multiply-add: the product of two floats is exact in double."""
    return (a.astype(np.float64) * b + c).astype(f32)


SCALE = f32(PER_UNIT / math.sqrt(2))
T_CLAMP = fma(np.array([CLAMP], f32), SCALE, f32(-0.5))[0]


def fit():
    table = np.zeros((DEGREE + 1, PIECES))
    u = np.cos(np.linspace(0, math.pi, 600)) * 0.5
    for k in range(PIECES):
        target = 0.5 * erf((k + u + 0.5) / PER_UNIT)
        weight = np.ones_like(u)
        vander = np.vander(u, DEGREE + 1, increasing=True)
        if k == PIECES - 1:
            # the clamp's point, heavily weighted, a quarter of an ulp above 1/2 (erf is 1/2
            # within 2e-8 there), so that rounding leaves the piece at least 1/2
            uc = float(T_CLAMP) - k
            vander = np.vstack([vander, np.vander([uc], DEGREE + 1, increasing=True)])
            target = np.append(target, 0.5 + 2.0 ** -25)
            weight = np.append(weight, 1e4)
        table[:, k] = np.linalg.lstsq(vander * weight[:, None], target * weight, rcond=None)[0]
    return table.astype(f32)


def half_erf(table, ax):
    t = np.minimum(fma(ax, SCALE, f32(-0.5)), T_CLAMP)
    magic = f32(12582912.0)  # 1.5 * 2^23: t + magic rounds t to an integer in the low bits
    m = (t + magic).astype(f32)
    u = (t - (m - magic).astype(f32)).astype(f32)
    k = m.view(np.int32) & (PIECES - 1)
    p = table[DEGREE][k]
    for d in range(DEGREE - 1, -1, -1):
        p = fma(p, u, table[d][k])
    return np.minimum(p, f32(0.5))


def c_float(v):
    """v as a C float literal, exactly: hexadecimal without the trailing zeros."""
    mant, exp = float(v).hex().split("p")
    return f"{mant.rstrip('0').rstrip('.')}p{exp}f"


def main():
    table = fit()
    ax = np.concatenate([np.linspace(0, 6, 2000001), np.geomspace(1e-8, 1, 20001)]).astype(f32)
    he = half_erf(table, ax)
    want = 0.5 * erf(ax.astype(np.float64) / math.sqrt(2))
    print(f"max abs error of 0.5 erf: {np.max(np.abs(he - want)):.3e} ({np.max(np.abs(he - want)) / 2.0 ** -25:.2f} "
          "ulp of values just under 1/2)")
    print(f"1/2 from |x| = {ax[np.argmax(he >= 0.5)]:.7f} (the clamp {CLAMP:.7f}); "
          f"at the clamp {half_erf(table, np.array([CLAMP], f32))[0]!r}")
    print(f"#define SC_GELU_T_SCALE {c_float(SCALE)}")
    print(f"#define SC_GELU_T_CLAMP {c_float(T_CLAMP)}")
    print("static const float sc_gelu_table[SC_GELU_DEGREE + 1][SC_GELU_PIECES] = {")
    for d in range(DEGREE + 1):
        row = ", ".join(c_float(c) for c in table[d])
        print(f"    {{{row}}},")
    print("};")


main()
