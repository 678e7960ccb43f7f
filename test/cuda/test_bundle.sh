#!/bin/sh
# The GPU bundle's round trip without a GPU (test/cuda/bundle.py, run_bundle.py): a few op
# cases and the tutorial exported with --cuda-emulate into a bundle, with ATen's outputs,
# then run by run_bundle.py through the Python package as a GPU machine runs it.  A
# tampered reference must make the runner fail and name the case.
# usage: test_bundle.sh SHAPEC SOURCE_DIR
set -eu
shapec=$1 src=$2
/usr/bin/python3 -c 'import torch' 2>/dev/null || { echo "skipped: PyTorch is not installed"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export SHAPEC_TEST_TARGET=cuda SHAPEC_TEST_CUDA_EMULATE=1 SHAPEC_TEST_BUNDLE="$dir/bundle"
/usr/bin/python3 "$src/test/cpu/test_cpu_ops.py" "$shapec" "$src" add mm where to_int empty_norms reductions add_inplace >"$dir/ops.log"
/usr/bin/python3 "$src/test/cpu/test_cpu_zoo.py" "$shapec" "$src" tutorial mlp@external >"$dir/zoo.log"
unset SHAPEC_TEST_BUNDLE
/usr/bin/python3 "$src/test/cuda/run_bundle.py" "$dir/bundle" --emulated | tee "$dir/run.log"
grep -q '^# 0 failed\|, 0 failed$' "$dir/run.log"
test "$(grep -c '^ok - .*matches ATen' "$dir/run.log")" -eq 19 || { echo "not ok - expected 19 compared runs"; exit 1; }
test "$(grep -c '^ok - add_inplace: input x0 afterwards holds' "$dir/run.log")" -eq 2 || { echo "not ok - the in-place input is not checked"; exit 1; }
echo "ok - the emulated bundle runs and matches ATen, the input changed in place included"

# one wrong reference: the runner fails and names the case
/usr/bin/python3 - "$dir/bundle/ops/mm/want1_0.npy" <<'PY'
import sys
import numpy as np
a = np.load(sys.argv[1])
a.flat[0] += 1.0
np.save(sys.argv[1], a)
PY
if /usr/bin/python3 "$src/test/cuda/run_bundle.py" "$dir/bundle" --emulated >"$dir/bad.log"; then
    echo "not ok - a tampered reference passed"; exit 1
fi
grep -q '^not ok - mm: matches ATen at \[\[2, 7\], \[7, 9\]\]' "$dir/bad.log" || { echo "not ok - the failing case is not named"; cat "$dir/bad.log"; exit 1; }
grep -q '^# ops: .*1 cases with a failure: ops/mm' "$dir/bad.log" || { echo "not ok - the summary does not name ops/mm"; exit 1; }
echo "ok - a wrong reference fails the run and is named"
