#!/usr/bin/env bash
# fuzz.sh - builds the libFuzzer harnesses of test/fuzz/ and runs them (docs/fuzzing.md).
#
#   scripts/fuzz.sh [--seconds N] [--jobs J] [--build DIR] [--shapec PATH] [--smoke|--coverage] [TARGET...]
#
# Targets: model analysis spec pt2 safetensors npy pickle expr baseline observations
# pt2_members entry (default: all).  entry calls libraries that PATH (default: DIR/../shapec,
# the main build's when DIR is its fuzz/ folder) exports; without one it is skipped.
# Each runs N seconds (default 60), J at a time (default: the number of CPUs), on a corpus
# DIR/corpus/TARGET seeded from the project's own test files; what it finds (crashes,
# leaks, timeouts, out-of-memory) goes to DIR/findings/TARGET/.  Prints one line per
# target: executions, corpus size, findings.  Exit 1 when anything was found, 77 when
# nothing can run (entry alone, without a shapec).
# --smoke: replays the seeds and runs a few seconds each (the CTest test fuzz_smoke); entry
# then calls three of its libraries.  FUZZ_ENTRY_SKIP=a,b leaves entry's programs a and b out;
# FUZZ_OPTS adds libFuzzer options (later ones win: FUZZ_OPTS="-rss_limit_mb=2048 -timeout=10").
# --coverage: runs nothing new; replays each target's corpus and prints, per source file of
# lib/, ir/ and passes/, the edges it reaches (to compare harnesses on the same sources).
# Needs clang-19 and libclang-rt-19-dev (scripts/bootstrap.sh installs them).
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
seconds=60 jobs=$(nproc) build="$src/build-fuzz" smoke=0 coverage=0 targets=() shapec=""
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --shapec) shapec="$2"; shift 2 ;;
    --smoke) smoke=1; seconds=4; shift ;;
    --coverage) coverage=1; shift ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ ${#targets[@]} -gt 0 ] || targets=(model analysis spec pt2 safetensors npy pickle expr baseline observations pt2_members entry)

command -v clang-19 >/dev/null || { echo "fuzz: clang-19 is missing (scripts/bootstrap.sh)" >&2; exit 77; }
ls /usr/lib/llvm-19/lib/clang/19/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 ||
  { echo "fuzz: libFuzzer is missing (apt-get install libclang-rt-19-dev)" >&2; exit 77; }

cmake -S "$src/test/fuzz" -B "$build" -DCMAKE_C_COMPILER=clang-19 -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build "$build" -j"$jobs" >/dev/null

# ---- entry: the libraries it calls, exported by shapec ---------------------------------------
if printf '%s\n' "${targets[@]}" | grep -qx entry; then
  [ -n "$shapec" ] || shapec="$(dirname "$build")/shapec"
  models=()
  [ "$smoke" = 1 ] && models=(tutorial gather index_select)
  if [ -x "$shapec" ] && python3 "$src/test/fuzz/entry_models.py" "$shapec" "$src" "$build/entry-models" "${models[@]}" >/dev/null; then
    export SHAPEC_FUZZ_ENTRY_MODELS="$build/entry-models"
  else
    echo "fuzz: entry skipped: no shapec at $shapec to export its libraries (--shapec PATH)" >&2
    targets=($(printf '%s\n' "${targets[@]}" | grep -vx entry || true))
    [ ${#targets[@]} -gt 0 ] || exit 77
  fi
fi

# ---- seed corpora: the project's own files -----------------------------------------------
seed() { # seed TARGET FILE... : copies the files (at most 256 KB each) into the corpus
  local t="$1"; shift
  mkdir -p "$build/corpus/$t"
  for f in "$@"; do
    [ -f "$f" ] && [ "$(stat -c %s "$f")" -le 262144 ] && cp "$f" "$build/corpus/$t/seed-$(basename "$(dirname "$f")")-$(basename "$f")"
  done
  return 0
}
seed_from_archives() { # seed TARGET MEMBER-SUFFIX: a member of every stored archive
  local t="$1" suffix="$2"
  mkdir -p "$build/corpus/$t"
  python3 - "$src" "$build/corpus/$t" "$suffix" <<'PY'
import os, sys, zipfile
src, out, suffix = sys.argv[1:4]
root = os.path.join(src, "test", "real")
k = 0
for d, _, fs in os.walk(root):
    for f in fs:
        if not (f.endswith(".pt2") or f.endswith(".pt2.thin")):
            continue
        try:
            z = zipfile.ZipFile(os.path.join(d, f))
        except zipfile.BadZipFile:
            continue
        for m in z.namelist():
            if m.endswith(suffix) and z.getinfo(m).file_size <= 262144:
                k += 1
                with open(os.path.join(out, f"seed-archive-{k}"), "wb") as fh:
                    fh.write(z.read(m))
PY
}
for t in "${targets[@]}"; do
  # what earlier runs found (kept in the repository) is always replayed first
  mkdir -p "$build/corpus/$t"
  for f in "$src"/test/fuzz/regressions/"$t"/*; do [ -f "$f" ] && cp "$f" "$build/corpus/$t/regression-$(basename "$f")"; done
  [ -n "$(ls "$build/corpus/$t" | grep -v '^regression-' | head -n 1)" ] && continue
  case "$t" in
    model|analysis)
      seed "$t" "$src"/test/golden/models/*.json "$src"/examples/tutorial/model.json
      seed_from_archives "$t" "models/model.json"
      seed_from_archives "$t" "serialized_exported_program.json" ;;
    spec) seed "$t" "$src"/test/golden/specs/*.json "$src"/examples/tutorial/spec.json "$src"/test/real/corpus/*/*/spec.json ;;
    pt2) seed "$t" "$src"/test/real/corpus/2.*/*/model.pt2 "$src"/test/real/fixtures/*.pt2 "$src"/../shared/real-files/*.pt2 ;;
    safetensors) seed "$t" "$src"/examples/*/*.safetensors "$src"/test/*/*.safetensors ;;
    npy) seed "$t" "$src"/examples/*/inputs/*.npy ;;
    pickle) seed_from_archives "$t" ".pt" ;;
    expr) seed "$t" "$src"/test/fuzz/seeds/expr/* ;;
    baseline) seed "$t" "$src"/test/golden/expected/*.report.json ;;
    observations) seed "$t" "$src"/test/fuzz/seeds/observations/* ;;
    pt2_members) # the members of every archive, in the harness's field format
      python3 "$src/test/fuzz/pt2_members_seeds.py" "$build/corpus/$t" 262144 "$src"/test/real/corpus/2.*/*/*.pt2 \
        --pickles "$src"/test/real/fixtures/*.pt >/dev/null ;;
    entry) seed "$t" "$src"/test/fuzz/seeds/entry/* ;;
  esac
done

# ---- coverage of what the corpora hold ------------------------------------------------------
if [ "$coverage" = 1 ]; then
  for t in "${targets[@]}"; do
    echo "== $t: edges reached by its corpus ($(ls "$build/corpus/$t" | wc -l) inputs)"
    "$build/fuzz_$t" -runs=0 -print_coverage=1 -rss_limit_mb=2560 -timeout=20 "$build/corpus/$t" 2>&1 |
      awk -v src="$src/" '/^(UN)?COVERED_FUNC/ {
          split($5, e, "/"); f = $NF; sub(/:[0-9]+$/, "", f)
          if (index(f, src) == 1) f = substr(f, length(src) + 1)
          if (f ~ /^(lib|ir|passes)\//) { c[f] += e[1]; n[f] += e[2]; d = f; sub(/\/[^\/]*$/, "", d); cd[d] += e[1]; nd[d] += e[2] } }
        END { for (f in c) if (c[f]) printf "  %-36s %6d of %6d edges\n", f, c[f], n[f]
              for (d in cd) printf "  %-36s %6d of %6d edges (all)\n", d "/", cd[d], nd[d] }' | sort
  done
  exit 0
fi

# ---- runs ------------------------------------------------------------------------------
# this run's findings only (earlier ones are kept under test/fuzz/regressions/); another
# run's targets, on the same build folder at the same time, keep theirs
for t in "${targets[@]}"; do rm -rf "${build:?}/findings/$t"; done
run_one() {
  local t="$1" log="$build/logs/$1.log"
  mkdir -p "$build/findings/$t" "$build/logs"
  local opts=(-max_total_time="$seconds" -timeout=20 -rss_limit_mb=2560 -print_final_stats=1
              -artifact_prefix="$build/findings/$t/" -max_len=262144)
  case "$t" in model|analysis|spec|baseline|observations) opts+=(-dict="$src/test/fuzz/json.dict") ;; esac
  if [ "$t" = pt2_members ]; then # the JSON tokens and the pickle's
    cat "$src/test/fuzz/json.dict" "$src/test/fuzz/pt2_members.dict" >"$build/pt2_members.dict"
    opts+=(-dict="$build/pt2_members.dict")
  fi
  # a long run goes on past a finding (each one is kept); the smoke run stops at the first
  [ "$smoke" = 1 ] || opts+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  [ "$t" = expr ] && opts+=(-max_len=4096)
  [ "$t" = entry ] && opts+=(-max_len=4096)
  opts+=(${FUZZ_OPTS:-})
  "$build/fuzz_$t" "${opts[@]}" "$build/corpus/$t" >"$log" 2>&1 || true
  local execs corpus found
  execs=$(grep -o 'stat::number_of_executed_units: [0-9]*' "$log" | awk '{print $2}' | tail -n 1)
  [ -n "$execs" ] || execs=$(grep -o '^#[0-9]*:' "$log" | tr -d '#:' | tail -n 1) # fork mode's progress lines
  corpus=$(ls "$build/corpus/$t" | wc -l)
  found=$(ls "$build/findings/$t" | wc -l)
  printf '%-12s %10s executions in %ss, corpus %5s, findings %s\n' "$t" "${execs:-?}" "$seconds" "$corpus" "$found"
}
export -f run_one
export build seconds src smoke
printf '%s\n' "${targets[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one {}'
total=0
for t in "${targets[@]}"; do total=$((total + $(find "$build/findings/$t" -type f 2>/dev/null | wc -l))); done
if [ "$total" -gt 0 ]; then
  echo "fuzz: $total findings under $build/findings (reproduce: $build/fuzz_TARGET FILE)"
  exit 1
fi
echo "fuzz: nothing found"
