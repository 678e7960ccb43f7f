#!/usr/bin/env bash
# The main job on the bundled tutorial model: installs dependencies, builds shapec,
# exports the model with its dynamic_shapes spec and prints the report.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
./build/shapec export examples/tutorial/model.json --dynamic examples/tutorial/spec.json -o shapec-out
echo
echo "== shapec-out/constraints.json"
cat shapec-out/constraints.json
