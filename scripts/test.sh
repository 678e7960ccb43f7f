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
  (cd "$dir" && ctest --output-on-failure -j"$jobs")
done
echo "== all tests passed"
