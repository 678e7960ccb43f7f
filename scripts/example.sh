#!/usr/bin/env bash
# The main job on the bundled tutorial model: installs dependencies, builds shapec,
# exports the model with its dynamic_shapes spec (shape analysis + model.so), runs the
# library on the sample inputs, shows a wrong-shaped input being refused, and prints the
# range constraints.
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
echo
echo "== range constraints (shapec-out/constraints.json)"
cat shapec-out/constraints.json
