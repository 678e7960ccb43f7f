#!/usr/bin/env bash
# Builds the tutorial model and calls it from several threads at once (test/cpu/threads.c).
#   usage: run_threads.sh SHAPEC THREADS_BINARY SOURCE_DIR
set -euo pipefail
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$1" export "$3/examples/tutorial/model.json" --dynamic "$3/examples/tutorial/spec.json" -o "$work/out" -q 2>/dev/null
"$2" "$work/out/model.so"
