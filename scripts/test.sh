#!/usr/bin/env bash
# Every test: installs dependencies, then builds and runs the whole suite twice, once
# normally and once under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
jobs=$(nproc)
# the model libraries leave out of their loops' teams the cores other processes keep busy
# (backends/cpu/runtime/core_load.c); the suite runs tests side by side, and each test's
# runs must not depend on what its neighbours do: off, except in cpu_contention, which
# tests it
export SHAPEC_ADAPTIVE_THREADS=0
for config in release asan; do
  dir=build-test-$config
  flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
  [ "$config" = asan ] && flags=(-DCMAKE_BUILD_TYPE=Debug -DSHAPEC_SANITIZE=ON)
  echo "== $config build"
  cmake -S . -B "$dir" "${flags[@]}" >/dev/null
  cmake --build "$dir" -j"$jobs" >/dev/null
  echo "== $config tests"
  # under the sanitizers, not the repeats that change only the model library's run-time
  # switches (label runtime_variant, test/CMakeLists.txt): their instrumented code is the
  # first run's; nor the fuzzers' smoke run (label own_sanitizers), built by clang with its
  # own ASan + UBSan whatever the pass.  A 32 MB quarantine of freed blocks (ASan's default:
  # 256 MB) still catches a use after free of anything freed recently, and halves an
  # export's time: most of it went to faulting in LLVM's freed memory
  skip=()
  [ "$config" = asan ] && skip=(-LE 'runtime_variant|own_sanitizers')
  if [ "$config" = asan ]; then export ASAN_OPTIONS=quarantine_size_mb=32; fi
  (cd "$dir" && ctest --output-on-failure -j"$jobs" "${skip[@]}")
done
echo "== all tests passed"
