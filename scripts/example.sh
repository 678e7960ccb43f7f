#!/usr/bin/env bash
# The main job on the bundled tutorial model: installs dependencies, builds shapec,
# exports the model with its dynamic_shapes spec (shape analysis + model.so), runs the
# library on the sample inputs, shows a wrong-shaped input being refused, builds the same
# model for CPU and CUDA where the CUDA toolkit's libdevice is present (and runs it on a
# GPU where there is one), and prints the range constraints.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
ex=examples/tutorial
echo "== shapec export $ex/model.json --dynamic $ex/spec.json -o shapec-out"
./build/shapec export $ex/model.json --dynamic $ex/spec.json -o shapec-out
echo
echo "== shapec run shapec-out/model.so on the sample inputs ($ex/inputs/*.npy)"
./build/shapec run shapec-out/model.so --input w=$ex/inputs/w.npy --input x=$ex/inputs/x.npy \
  --input y=$ex/inputs/y.npy --input z=$ex/inputs/z.npy --out shapec-out/outputs --bench 1000
echo
echo "== the same library refuses inputs that break a guard (x.npy given as z: exit 1 expected)"
if ./build/shapec run shapec-out/model.so --input w=$ex/inputs/w.npy --input x=$ex/inputs/x.npy \
  --input y=$ex/inputs/y.npy --input z=$ex/inputs/x.npy --out shapec-out/outputs; then
  echo "error: the wrong-shaped input was accepted" >&2
  exit 1
fi
libdevice=${SHAPEC_LIBDEVICE:-${CUDA_HOME:-/usr/local/cuda}/nvvm/libdevice/libdevice.10.bc}
if [ -f "$libdevice" ]; then
  echo
  echo "== the same model for CPU and CUDA in one library (--target cpu,cuda -o shapec-out-cuda)"
  ./build/shapec export $ex/model.json --dynamic $ex/spec.json -o shapec-out-cuda -q --target cpu,cuda
  ls -l shapec-out-cuda/model.so shapec-out-cuda/model.ptx shapec-out-cuda/model_kernels.ptx
  echo "-- on the GPU (--device cuda); on a machine without one, shapec run says so:"
  ./build/shapec run shapec-out-cuda/model.so --input w=$ex/inputs/w.npy --input x=$ex/inputs/x.npy \
    --input y=$ex/inputs/y.npy --input z=$ex/inputs/z.npy --out shapec-out-cuda/outputs --device cuda || true
else
  echo
  echo "== (CUDA skipped: no libdevice.10.bc at $libdevice; docs/cuda.md says what --target cuda needs)"
fi
echo
echo "== range constraints (shapec-out/constraints.json)"
cat shapec-out/constraints.json
