#!/usr/bin/python3
"""fit_gelu_table.py - the piecewise polynomial of backends/llvm/gelu_table.h: 0.5 erf(|x| / sqrt 2)
for the exact GELU of libraries built for AVX-512, where a 32-entry permute of two registers
(vpermi2ps) picks each piece's coefficients (no division: the rational fit of erf_fit.h needs
one, which is the chain's bottleneck on Intel's 512-bit units).

Piece k (0..31) covers |x| / sqrt 2 in [k / 8, (k + 1) / 8]: with t = |x| (8 / sqrt 2) - 0.5,
k = round(t) and u = t - k in [-1/2, 1/2], the piece is a degree-4 polynomial in u, fitted by
least squares on Chebyshev points (close to minimax), highest coefficient first: each is
rounded to float32 before the lower ones are fitted again, so that they absorb its rounding.
The last piece, [3.875, 4], is the constant 1/2 (0.5 erf rounds to 1/2 in float32 all
through it) and t stops in it (T_CLAMP = 31), so the result is exactly 1/2 from there on with
no final min: the script checks that no piece passes 1/2 over a dense sweep (the unit test
checks every float there).  Prints the max error of the float32 evaluation (fused
multiply-adds) and the table as C.

usage: /usr/bin/python3 scripts/fit_gelu_table.py       (NumPy)"""
import math

import numpy as np

PIECES, DEGREE = 32, 4
PER_UNIT = PIECES / 4  # pieces per unit of |x| / sqrt 2
CLAMP = float.fromhex("0x1.62b9dep+2")  # SC_GELU_CLAMP (erf_fit.h): 0.5 erf rounds to 1/2 from here
f32 = np.float32
erf = np.vectorize(math.erf)


def fma(a, b, c):
    """float32 fused multiply-add: the product of two floats is exact in double."""
    return (a.astype(np.float64) * b + c).astype(f32)


SCALE = f32(PER_UNIT / math.sqrt(2))
T_CLAMP = f32(PIECES - 1)  # the middle of the last piece, the constant 1/2


def fit():
    table = np.zeros((DEGREE + 1, PIECES))
    u = np.cos(np.linspace(0, math.pi, 800)) * 0.5
    vander = np.vander(u, DEGREE + 1, increasing=True)
    for k in range(PIECES - 1):
        target = 0.5 * erf((k + u + 0.5) / PER_UNIT)
        for top in range(DEGREE, -1, -1):  # fit degrees 0..top, the ones above already rounded
            rest = target - vander[:, top + 1:] @ table[top + 1:, k]
            table[top, k] = f32(np.linalg.lstsq(vander[:, :top + 1], rest, rcond=None)[0][top])
    table[0, PIECES - 1] = 0.5
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
    return p


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
    print(f"1/2 from |x| = {ax[np.argmax(he >= 0.5)]:.7f} (float32's erf from {CLAMP:.7f}); "
          f"at most {he.max()!r}")
    assert he.max() == 0.5, "a piece passes 1/2"
    print(f"#define SC_GELU_T_SCALE {c_float(SCALE)}")
    print(f"#define SC_GELU_T_CLAMP {c_float(T_CLAMP)}")
    print("static const float sc_gelu_table[SC_GELU_DEGREE + 1][SC_GELU_PIECES] = {")
    for d in range(DEGREE + 1):
        row = ", ".join(c_float(c) for c in table[d])
        print(f"    {{{row}}},")
    print("};")


main()
