#!/usr/bin/env bash
# Every test: installs dependencies, then builds and runs the whole suite twice, once
# normally and once under AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
jobs=$(nproc)
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
  # first run's
  skip=()
  [ "$config" = asan ] && skip=(-LE runtime_variant)
  (cd "$dir" && ctest --output-on-failure -j"$jobs" "${skip[@]}")
done
echo "== all tests passed"
