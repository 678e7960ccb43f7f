#!/usr/bin/env bash
# run_rank_tests.sh - automatic dynamic across ranks, end to end: N processes with
# different input shapes record them (shapec run --record-shapes, and the Python package
# for one rank) into one shared folder, each process then exports with --observed from
# its own folder, and all get one spec and byte-identical report, header and library.
# Then the errors: a missing rank, a duplicate, another model, a contradiction, a bad file.
#   usage: run_rank_tests.sh SHAPEC SOURCE_DIR
set -u
SHAPEC=$(realpath "$1")
SRC=$(realpath "$2")
MODEL=$SRC/examples/tutorial/model.json
PY=/usr/bin/python3
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
n_fail=0 n=0
ok() { n=$((n + 1)); echo "ok - $1"; }
not_ok() { n=$((n + 1)); n_fail=$((n_fail + 1)); echo "not ok - $1"; [ -n "${2:-}" ] && sed 's/^/#   /' "$2" | head -20; }
check() { if eval "$2"; then ok "$1"; else not_ok "$1" "${3:-}"; fi; }

# inputs NAME W X Y: the tutorial's four inputs for w [W, 5], x [X], y [Y, X], z [X*Y]
inputs() {
  $PY - "$WORK/in/$1" "$2" "$3" "$4" <<'PY'
import os, sys, numpy as np
d, w, x, y = sys.argv[1], *map(int, sys.argv[2:])
os.makedirs(d, exist_ok=True)
rng = np.random.default_rng(w * 100 + x * 10 + y)
for name, shape in (("w", (w, 5)), ("x", (x,)), ("y", (y, x)), ("z", (x * y,))):
    np.save(os.path.join(d, name + ".npy"), rng.standard_normal(shape).astype(np.float32))
PY
}
run_args() { echo "-i w=$WORK/in/$1/w.npy -i x=$WORK/in/$1/x.npy -i y=$WORK/in/$1/y.npy -i z=$WORK/in/$1/z.npy"; }

# ---- 1. the model as torch exported it: static at its sample sizes ----------------------
"$SHAPEC" export "$MODEL" -o "$WORK/static" -q 2>"$WORK/err" || { not_ok "static export" "$WORK/err"; exit 1; }
inputs r0a 6 4 8; inputs r0b 3 4 2; inputs r1 10 4 8; inputs r2 6 3 5

# ---- 2. four ranks record at once, each in its own working directory -----------------------
SHARED=$WORK/shared
record() { # RANK CASE...
  local rank=$1; shift
  mkdir -p "$WORK/rank$rank" && cd "$WORK/rank$rank" || exit 2
  for c in "$@"; do
    # shellcheck disable=SC2046
    RANK=$rank WORLD_SIZE=4 "$SHAPEC" run "$WORK/static/model.so" $(run_args "$c") --out "$WORK/rank$rank/out" \
      --record-shapes "$SHARED/" >/dev/null 2>>"$WORK/rank$rank/err"
  done
}
record 0 r0a r0b & record 1 r1 & record 2 r2 &
mkdir -p "$WORK/rank3"
( cd "$WORK/rank3" && RANK=3 WORLD_SIZE=4 PYTHONPATH=$SRC/python $PY - "$WORK/static/model.so" "$SHARED/" <<'PY'
import sys, numpy as np, shapec
m = shapec.load(sys.argv[1], record_shapes=sys.argv[2])
m(np.zeros((6, 5), np.float32), np.zeros(4, np.float32), np.zeros((8, 4), np.float32), np.zeros(32, np.float32))
try:
    m(np.zeros((1, 5), np.float32), np.zeros(4, np.float32), np.zeros((8, 4), np.float32), np.zeros(32, np.float32))
    sys.exit("a refused call ran")
except shapec.GuardError:
    pass  # the static library refuses it, and its shapes are recorded all the same
PY
) 2>"$WORK/py.err" &
wait
check "every rank wrote its own file: rank-0.json .. rank-3.json" \
  '[ "$(cd "$SHARED" && ls rank-*.json | sort | tr "\n" " ")" = "rank-0.json rank-1.json rank-2.json rank-3.json " ]' "$WORK/py.err"
check "rank 0 recorded both calls, with its rank, world size and the model's SHA-256" \
  '$PY -c "import json,sys; d=json.load(open(sys.argv[1])); assert d[\"rank\"]==0 and d[\"world_size\"]==4 and len(d[\"calls\"])==2 and d[\"model_sha256\"]==sys.argv[2] and d[\"calls\"][1][\"w\"]==[3,5]" "$SHARED/rank-0.json" "$(sha256sum "$MODEL" | cut -d" " -f1)"'
check "a shape the static library refuses (rank 1's w [10, 5]) is recorded all the same" \
  'grep -q "\"w\":\[10,5\]" "$SHARED/rank-1.json"'

# ---- 3. every rank exports at once from its own folder; one spec, identical artifacts --------
export_rank() { # RANK
  cd "$WORK/rank$1" && RANK=$1 WORLD_SIZE=4 "$SHAPEC" export "$MODEL" --observed ../shared --wait 30 -o "out-$1/lib" \
    >"$WORK/rank$1/export.out" 2>"$WORK/rank$1/export.err"
  echo $? >"$WORK/rank$1/export.rc"
}
for r in 0 1 2 3; do export_rank $r & done
wait
check "all four exports succeed" '[ "$(cat "$WORK"/rank*/export.rc | tr -d "\n")" = "0000" ]' "$WORK/rank0/export.err"
for f in spec.json constraints.json model.h model.so; do
  check "$f is byte-identical on every rank" \
    'cmp -s "$WORK/rank0/out-0/lib/$f" "$WORK/rank1/out-1/lib/$f" && cmp -s "$WORK/rank0/out-0/lib/$f" "$WORK/rank2/out-2/lib/$f" && cmp -s "$WORK/rank0/out-0/lib/$f" "$WORK/rank3/out-3/lib/$f"'
done
L=$WORK/rank0/out-0/lib
check "the spec: a dim that varies on any rank is AUTO, one that never does stays static" \
  '$PY -c "import json,sys; s=json.load(open(sys.argv[1]))[\"dynamic_shapes\"]; A=\"_DimHint.AUTO\"; assert s=={\"w\":[A,5],\"x\":[A],\"y\":[A,A],\"z\":[A]}, s" "$L/spec.json"'
check "no path, time or rank's own shape in the report: model and spec named by file and SHA-256" \
  '! grep -q "$WORK\|rank-\|\"/" "$L/constraints.json" && grep -q "\"model\": \"model.json\"" "$L/constraints.json" && grep -q "\"spec\": \"spec.json\"" "$L/constraints.json"'
check "the summary says what was decided for each dim" 'grep -q "w.size()\[1\]: static (5 in every call)" "$WORK/rank2/export.err"'
for c in r0a r0b r1 r2; do
  # shellcheck disable=SC2046
  check "the library runs rank input $c" '"$SHAPEC" run "$L/model.so" $(run_args $c) --out "$WORK/runs/$c" >/dev/null 2>"$WORK/run.err"' "$WORK/run.err"
done
"$SHAPEC" spec infer "$SHARED/rank-3.json" "$SHARED/rank-1.json" "$SHARED/rank-0.json" "$SHARED/rank-2.json" \
  --model "$MODEL" -q >"$WORK/infer-shuffled.json" 2>"$WORK/err"
check "spec infer on the files in another order writes the same spec" 'cmp -s "$WORK/infer-shuffled.json" "$L/spec.json"' "$WORK/err"
"$SHAPEC" spec infer "$SHARED" --ranges --model "$MODEL" -o "$WORK/ranges.json" -q 2>"$WORK/err"
check "--ranges: named Dims with the observed ranges; dims the program relates share one" \
  '$PY -c "import json,sys; d=json.load(open(sys.argv[1])); s, dims = d[\"dynamic_shapes\"], d[\"dims\"]; assert s[\"w\"]==[\"w_dim0\",5] and dims[\"w_dim0\"]=={\"min\":1,\"max\":10,\"derived\":[]} and s[\"y\"][1]==s[\"x\"][0], d" "$WORK/ranges.json"' "$WORK/err"

# ---- 4. errors -------------------------------------------------------------------------------
expect_error() { # LABEL CODE TEXT CMD...
  local label=$1 code=$2 text=$3; shift 3
  "$@" >/dev/null 2>"$WORK/err"
  local rc=$?
  if [ $rc -eq 1 ] && grep -q "error\[$code\]" "$WORK/err" && grep -qF -- "$text" "$WORK/err"; then ok "$label"; else
    echo "rc=$rc" >>"$WORK/err"; not_ok "$label" "$WORK/err"; fi
}
expect_error "a missing rank: WORLD_SIZE=5 and no rank-4.json" SC1002 "rank 4 of 5 has no observations" \
  env WORLD_SIZE=5 "$SHAPEC" spec infer "$SHARED" --world-size 5
expect_error "--wait gives up after its time with the missing rank named" SC1002 "rank-4.json is missing" \
  "$SHAPEC" export "$MODEL" --observed "$SHARED" --world-size 5 --wait 1 -o "$WORK/never"
check "... and writes nothing" '[ ! -e "$WORK/never" ]'
cp "$SHARED/rank-2.json" "$WORK/dup.json"
expect_error "one rank twice" SC1003 "rank 2 is observed twice" "$SHAPEC" spec infer "$SHARED/rank-2.json" "$WORK/dup.json"
sed 's/"model_sha256": "[0-9a-f]*"/"model_sha256": "00000000000000000000000000000000000000000000000000000000deadbeef"/' \
  "$SHARED/rank-1.json" >"$WORK/other.json"
expect_error "observations of another model" SC1003 "recorded for another model" \
  "$SHAPEC" spec infer "$SHARED/rank-0.json" "$WORK/other.json"
expect_error "observations that do not match --model's digest" SC1003 "were recorded for another model" \
  "$SHAPEC" spec infer "$SHARED" --model "$SRC/test/golden/models/view4.json"
printf '{"calls": [{"w": [6, 5], "x": [4], "y": [8, 4], "z": [31]}]}\n' >"$WORK/contra.json"
expect_error "a call the program cannot serve (z is x*y): rank, call, dim and line:col" SC1004 \
  "contra.json:1:55: error[SC1004]: rank 0's call 0 does not fit the export: z.size()[0] = 31" \
  "$SHAPEC" spec infer "$WORK/contra.json" --model "$MODEL"
printf '{"calls": [{"w": [6, 5], "x": "four"}]}\n' >"$WORK/bad.json"
expect_error "a malformed file: its JSON path and line:col" SC1001 "bad.json:1:31: error[SC1001]" \
  "$SHAPEC" spec infer "$WORK/bad.json"
printf '{"calls": [{"w": [6, 5]}, {"w": [6, 5, 1]}]}\n' >"$WORK/rank.json"
expect_error "an input with another rank in another call" SC1003 "'w' is a tensor of rank 3 here, but a tensor of rank 2" \
  "$SHAPEC" spec infer "$WORK/rank.json"
expect_error "recording into a folder without a rank in the environment" SC1005 "no rank in the environment" \
  env -u RANK -u SLURM_PROCID -u OMPI_COMM_WORLD_RANK -u PMI_RANK "$SHAPEC" run "$WORK/static/model.so" \
  $(run_args r0a) --out "$WORK/x" --record-shapes "$WORK/norank/"
"$SHAPEC" export "$MODEL" --observed "$SHARED" --dynamic "$SRC/examples/tutorial/spec.json" >/dev/null 2>"$WORK/err"
check "--observed and --dynamic together are a usage error" '[ $? -eq 2 ] && grep -q "not both" "$WORK/err"' "$WORK/err"

echo "1..$n"
[ $n_fail -eq 0 ] || { echo "# $n_fail of $n failed"; exit 1; }
