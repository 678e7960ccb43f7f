#!/usr/bin/env bash
# Runs the analysis benchmark and its peer side by side, on the same machine, in the same
# run, and prints the ratio.  Needs Debian's python3-torch for the peer (skipped, with a
# note, when it is absent).   usage: bench/run.sh [LAYERS] [WIDTH]
set -euo pipefail
cd "$(dirname "$0")/.."
layers=${1:-2000}; width=${2:-16}
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-bench -j"$(nproc)" --target bench_analysis >/dev/null
echo "== shapec (Release build)"
shapec_out=$(./build-bench/bench_analysis "$layers" "$width" 21)
echo "$shapec_out"
ms=$(echo "$shapec_out" | sed -n 's/^shapec_ms median=\([0-9.]*\).*/\1/p')
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo "== peer: PyTorch make_fx symbolic tracing"
  peer_out=$(/usr/bin/python3 bench/peer_make_fx.py "$layers" "$width" 1)
  echo "$peer_out"
  pm=$(echo "$peer_out" | sed -n 's/^torch_ms median=\([0-9.]*\).*/\1/p')
  awk -v a="$pm" -v b="$ms" 'BEGIN { printf "== ratio: torch / shapec = %.0fx\n", a / b }'
else
  echo "== peer skipped: python3-torch is not installed (apt-get install python3-torch)"
fi
