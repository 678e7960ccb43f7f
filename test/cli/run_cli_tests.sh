#!/usr/bin/env bash
# run_cli_tests.sh - end-to-end tests of the shapec command line.
#
#   bash test/cli/run_cli_tests.sh /path/to/shapec /path/to/source_dir
#
# Prints one line per check ("ok - ..." or "not ok - ..." followed by "#" lines that
# say why) and a summary; exits 0 only when every check passes.  Needs nothing but
# bash, coreutils, grep and sed: every fixture is derived from examples/tutorial in
# a fresh temporary directory that is removed on exit.

set -u

if [ $# -ne 2 ]; then
  echo "usage: $0 /path/to/shapec /path/to/source_dir" >&2
  exit 2
fi

SHAPEC=$1
SRC=$2
case $SHAPEC in /*) ;; *) SHAPEC=$PWD/$SHAPEC ;; esac
SRC=$(cd "$SRC" 2>/dev/null && pwd) || {
  echo "Bail out! source directory '$2' not found" >&2
  exit 2
}

if [ ! -x "$SHAPEC" ]; then
  echo "Bail out! shapec binary '$SHAPEC' is not executable" >&2
  exit 2
fi
TUT=$SRC/examples/tutorial
MODEL=$TUT/model.json
SPEC=$TUT/spec.json
for f in "$MODEL" "$SPEC" "$TUT/model.safetensors"; do
  if [ ! -f "$f" ]; then
    echo "Bail out! missing fixture $f" >&2
    exit 2
  fi
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/shapec-cli.XXXXXX") || {
  echo "Bail out! mktemp -d failed" >&2
  exit 2
}
trap 'rm -rf "$WORK"' EXIT
trap 'exit 130' INT TERM
OUT=$WORK/stdout.txt
ERR=$WORK/stderr.txt

# ---- harness -----------------------------------------------------------------------

N_PASS=0
N_FAIL=0
FAILED_NAMES=()
CHECK_NAME=""
CHECK_WHY=()
RC=0
LAST_CMD=""

begin() {
  CHECK_NAME=$1
  CHECK_WHY=()
}

fail() { CHECK_WHY+=("$*"); }

end() {
  if [ ${#CHECK_WHY[@]} -eq 0 ]; then
    N_PASS=$((N_PASS + 1))
    echo "ok - $CHECK_NAME"
  else
    N_FAIL=$((N_FAIL + 1))
    FAILED_NAMES+=("$CHECK_NAME")
    echo "not ok - $CHECK_NAME"
    local w
    for w in "${CHECK_WHY[@]}"; do echo "#   $w"; done
    [ -n "$LAST_CMD" ] && echo "#   command: $LAST_CMD"
    if [ -s "$ERR" ]; then
      echo "#   stderr (first 10 lines):"
      head -n 10 "$ERR" | sed 's/^/#     /'
    fi
  fi
}

# sc ARGS...: run shapec (in the current directory) with a time limit; sets RC.
sc_limit() {
  local limit=$1
  shift
  LAST_CMD="shapec $*"
  timeout "$limit" "$SHAPEC" "$@" >"$OUT" 2>"$ERR" </dev/null
  RC=$?
}
sc() { sc_limit 60 "$@"; }

describe_rc() {
  if [ "$1" -eq 124 ]; then
    echo "$1 (timed out)"
  elif [ "$1" -ge 128 ]; then
    echo "$1 (killed by signal $(($1 - 128)))"
  else
    echo "$1"
  fi
}

expect_rc() {
  if [ "$RC" -ne "$1" ]; then fail "exit status $(describe_rc "$RC"), expected $1"; fi
}
expect_err() {
  grep -qF -- "$1" "$ERR" || fail "stderr does not contain: $1"
}
expect_err_re() {
  grep -qE -- "$1" "$ERR" || fail "stderr does not match /$1/"
}
expect_err_not() {
  if grep -qF -- "$1" "$ERR"; then fail "stderr unexpectedly contains: $1"; fi
}
expect_out() {
  grep -qF -- "$1" "$OUT" || fail "stdout does not contain: $1"
}
expect_out_empty() {
  [ -s "$OUT" ] && fail "stdout is not empty (starts with: $(head -c 60 "$OUT" | tr '\n' ' '))"
}
expect_file() {
  [ -f "$1" ] || fail "file $1 was not written"
}
expect_no_path() {
  [ -e "$1" ] && fail "$1 exists but should not"
}
expect_file_has() {
  if [ ! -f "$1" ]; then
    fail "file $1 was not written"
  elif ! grep -qF -- "$2" "$1"; then
    fail "file $1 does not contain: $2"
  fi
}
# A usage error: exit 2, nothing on stdout, the message and the usage on stderr.
expect_usage_error() {
  expect_rc 2
  expect_out_empty
  expect_err "shapec: $1"
  expect_err "usage: shapec"
}
# A diagnostic: "FILE[:LINE:COL]: error[CODE]: ...".
expect_diag() { # FILE CODE
  expect_err "error[$2]"
  grep -qF -- "$1" "$ERR" || fail "stderr does not name the file $1"
}
expect_diag_linecol() { # FILE CODE
  expect_diag "$1" "$2"
  grep -F -- "$1:" "$ERR" | grep -qE ":[0-9]+:[0-9]+: error\\[$2\\]" ||
    fail "the $2 diagnostic has no $1:LINE:COL location"
}
expect_at() {
  grep -qxF -- "  at: $1" "$ERR" || fail "stderr has no line '  at: $1'"
}

# mutate DEST SED-SCRIPT: DEST is model.json edited by sed; the check fails (instead
# of silently testing the unmodified model) when the edit did not apply.
mutate() {
  local dest=$1 script=$2
  sed -e "$script" "$MODEL" >"$dest"
  if same_file "$MODEL" "$dest"; then
    fail "fixture: sed '$script' did not change model.json (did the tutorial change?)"
    return 1
  fi
  return 0
}

write() { printf '%s' "$2" >"$1"; }

# same_file A B: true when A and B have the same bytes (cksum is in coreutils).
same_file() { [ "$(cksum <"$1")" = "$(cksum <"$2")" ]; }

cd "$WORK" || exit 2

# ---- 1. help and version -----------------------------------------------------------

begin "shapec --help exits 0 and prints the usage and exit-status table"
sc --help
expect_rc 0
expect_out "usage: shapec <command>"
expect_out "exit status:"
expect_out "2  usage error"
expect_out "3  a file cannot be read or written"
end

begin "shapec -h and shapec help print the same help"
sc -h
expect_rc 0
expect_out "usage error"
cp "$OUT" "$WORK/help1.txt"
sc help
expect_rc 0
same_file "$OUT" "$WORK/help1.txt" || fail "'shapec help' differs from 'shapec -h'"
end

begin "shapec export --help exits 0 and documents the options and exit statuses"
sc export --help
expect_rc 0
expect_out "usage: shapec export MODEL"
expect_out "--dynamic SPEC"
expect_out "--no-codegen"
expect_out "2 usage error"
[ -s "$ERR" ] && fail "stderr is not empty"
end

begin "shapec help export prints export's own help; help of an unknown command is a usage error"
sc help export
expect_rc 0
expect_out "usage: shapec export MODEL"
expect_out "--prefer-deferred-runtime-asserts"
sc help check
expect_rc 0
expect_out "usage: shapec check"
sc help frobnicate
expect_usage_error "help: unknown command 'frobnicate'"
end

begin "shapec export -h works after other arguments"
sc export "$MODEL" -h
expect_rc 0
expect_out "usage: shapec export MODEL"
expect_no_path "$WORK/shapec-out"
end

begin "shapec --version prints 'shapec 0.1.0'"
sc --version
expect_rc 0
[ "$(cat "$OUT")" = "shapec 0.1.0" ] || fail "stdout is '$(head -c 80 "$OUT")', expected 'shapec 0.1.0'"
sc -V
expect_rc 0
[ "$(cat "$OUT")" = "shapec 0.1.0" ] || fail "-V: stdout is '$(head -c 80 "$OUT")', expected 'shapec 0.1.0'"
end

begin "two dims sharing a Dim with different sample sizes: SC0411 names both dims"
write "$WORK/sc0411.json" '{"dynamic_shapes": [["_DimHint.AUTO", "_DimHint.AUTO"], ["dx"], ["dx", "_DimHint.AUTO"], ["_DimHint.AUTO"]], "dims": {"dx": {"min": 2, "max": 64, "derived": []}}}'
sc export "$MODEL" --dynamic "$WORK/sc0411.json" --no-codegen -o "$WORK/sc0411"
expect_rc 1
expect_err "error[SC0411]: y.size()[0] = 8 implies dx = 8, but x.size()[0] = 4 implies dx = 4"
end

begin "a trailing comma in a spec is named as such, at the comma"
printf '{"dynamic_shapes": [["_DimHint.AUTO", "_DimHint.AUTO"],\n  ["_DimHint.AUTO"],\n]}' >"$WORK/comma.json"
sc export "$MODEL" --dynamic "$WORK/comma.json" --no-codegen -o "$WORK/comma"
expect_rc 1
expect_err "comma.json:2:20: error[SC0201]: JSON syntax error: a comma before ']' (JSON allows no trailing comma: remove it)"
end

begin "explain on a file exported without a spec: facts from the program, tied dims named as tied"
sc explain "$SRC/test/real/kv/gpt2_dynamic/model.pt2"
expect_rc 0
expect_out "input_ids.size()[0]: static 1, sample 1"
expect_out "  no symbol: static, from the program (its own sizes and range_constraints; no spec was given)"
expect_out "  no symbol of its own: tied to past_key_values_key_cache_0.size()[2] (s11) by the program's shapes or guards"
grep -qF "from the spec" "$OUT" && fail "explain says 'from the spec' with no spec given"
end

begin "export --metadata KEY=VALUE: in the report, the library (shapec_model_metadata), inspect and Python"
sc export "$MODEL" --dynamic "$SPEC" -o "$WORK/meta" -q --metadata model_version=1.4.2 --metadata run=a --metadata run=b --metadata note=
expect_rc 0
/usr/bin/python3 - "$WORK/meta" "$SRC/python" <<'PY' || fail "metadata is not what was given"
import ctypes, json, sys
sys.path.insert(0, sys.argv[2])
import shapec
report = json.load(open(sys.argv[1] + "/constraints.json"))
assert report["metadata"] == {"model_version": "1.4.2", "run": "b", "note": ""}, report.get("metadata")
m = shapec.load(sys.argv[1] + "/model.so")
assert m.metadata == report["metadata"], m.metadata
lib = ctypes.CDLL(sys.argv[1] + "/model.so")
lib.shapec_model_metadata.restype, lib.shapec_model_metadata.argtypes = ctypes.c_char_p, [ctypes.c_char_p]
assert lib.shapec_model_metadata(b"run") == b"b" and lib.shapec_model_metadata(b"note") == b""
assert lib.shapec_model_metadata(b"nothing") is None and lib.shapec_model_metadata(None) is None
PY
sc inspect "$WORK/meta/model.so"
expect_rc 0
expect_out "  model_version = 1.4.2"
expect_out "  run = b"
sc export "$MODEL" -o "$WORK/meta_bad" --metadata novalue
expect_usage_error "export: --metadata novalue: give KEY=VALUE"
end

begin "a failed divisibility guard from guards_code says what it means (torch 2.14's program: the product must be even)"
sc export "$SRC/test/cli/even_reshape/model.pt2" -o "$WORK/even" -q
expect_rc 0
/usr/bin/python3 -c 'import numpy as np, sys; np.save(sys.argv[1], np.ones((3, 3, 32), np.float32))' "$WORK/ids_odd.npy"
sc run "$WORK/even/model.so" -i ids="$WORK/ids_odd.npy"
expect_rc 1
expect_err "Guard failed: 32 * ids.size()[0] * ids.size()[1] % 64 == 0 (ids.size()[0]*ids.size()[1] must be even)"
end

begin "run -i with a name the model lacks lists its inputs"
sc export "$MODEL" --dynamic "$SPEC" -o "$WORK/run_names" -q
expect_rc 0
sc run "$WORK/run_names/model.so" -i nosuch=/dev/null
expect_rc 1
expect_err "the model has no input named 'nosuch' (its inputs: "
end

begin "a usage error shows the command's synopsis and where its options are, not its whole help"
sc export --frobnicate "$MODEL"
expect_usage_error "export: unknown option '--frobnicate'"
expect_err "usage: shapec export MODEL"
expect_err "Run 'shapec help export' for its options."
expect_err_not "exit status"
expect_err_not "--prefer-deferred-runtime-asserts  "
[ "$(wc -l <"$ERR")" -le 16 ] || fail "the usage error is $(wc -l <"$ERR") lines long"
end

# ---- 2. usage errors (exit 2) ------------------------------------------------------

begin "usage error: no command"
sc
expect_usage_error "no command given"
end

begin "usage error: unknown command"
sc frobnicate
expect_usage_error "unknown command 'frobnicate'"
end

begin "usage error: export without MODEL"
sc export
expect_usage_error "export: no MODEL given"
end

begin "usage error: export with an unknown option"
sc export "$MODEL" --frobnicate
expect_usage_error "export: unknown option '--frobnicate'"
end

begin "usage error: --dynamic without a value"
sc export "$MODEL" --dynamic
expect_usage_error "export: option --dynamic needs a value"
end

begin "usage error: --dynamic= with an empty value"
sc export "$MODEL" --dynamic=
expect_usage_error "export: option --dynamic needs a non-empty value"
end

begin "usage error: -o without a value"
sc export "$MODEL" -o
expect_usage_error "export: option -o needs a value"
end

begin "usage error: two MODELs"
sc export "$MODEL" "$MODEL"
expect_usage_error "export: more than one MODEL given"
expect_no_path "$WORK/shapec-out"
end

begin "usage error: a misspelt option names the closest one"
sc export "$MODEL" --dynamc "$SPEC"
expect_usage_error "export: unknown option '--dynamc'; did you mean '--dynamic'?"
end

begin "usage error: an ambiguous abbreviation lists the options it could be"
sc export "$MODEL" --d "$SPEC"
expect_usage_error "export: option '--d' is ambiguous: it could be --dynamic, --diagnostics-format"
end

begin "usage error: an option followed by another option instead of its value"
sc export "$MODEL" --dynamic --quiet
expect_usage_error "export: option --dynamic needs a value, not the option '--quiet'"
end

begin "usage error: a value given to a flag"
sc export "$MODEL" --quiet=yes
expect_usage_error "export: option --quiet takes no value"
end

begin "usage error: a misspelt command names the closest one"
sc exprot "$MODEL"
expect_usage_error "unknown command 'exprot'; did you mean 'export'?"
end

begin "command line: a unique abbreviation, options after the model, and -- before a name that starts with -"
mkdir -p "$WORK/dashdir" && cp "$MODEL" "$WORK/dashdir/-model.json" && cd "$WORK/dashdir" || exit 2
sc export --no-codeg --quiet --dyn="$SPEC" --report "$WORK/dashdir/r.json" -- -model.json
expect_rc 0
expect_file_has "$WORK/dashdir/r.json" '"status": "ok"'
expect_file_has "$WORK/dashdir/r.json" '"min": 2'
cd "$WORK" || exit 2
end

# ---- 3. the bundled example --------------------------------------------------------

begin "tutorial example: export with --dynamic and -o succeeds and prints the program"
sc export "$MODEL" --dynamic "$SPEC" -o "$WORK/out"
expect_rc 0
expect_out 'torch.ops.aten.addmm.default(p_l_bias, w, permute)'
expect_out 'def forward(self, p_l_weight: "f32[3, 5]", p_l_bias: "f32[3]", w: "f32[s0, 5]", x: "f32[s2]", y: "f32[s3, s2]", z: "f32[s2*s3]")'
expect_out 'addmm: "f32[s0, 3]"'
expect_out 'Range constraints: {s0: VR[2, int_oo], s2: VR[2, int_oo], s3: VR[2, int_oo]}'
expect_err "shapec: wrote $WORK/out/constraints.json"
expect_err_not "error["
end

begin "tutorial example: OUTDIR/constraints.json is the report"
expect_file_has "$WORK/out/constraints.json" '"status": "ok"'
expect_file_has "$WORK/out/constraints.json" '"sample_shape": [6, 5]'
expect_file_has "$WORK/out/constraints.json" '"shapec_version": "0.1.0"'
expect_file_has "$WORK/out/constraints.json" '"name": "addmm"'
expect_file_has "$WORK/out/constraints.json" '"s5": "s2*s3"'
end

begin "tutorial example: --report FILE with --no-codegen writes the report there and creates no OUTDIR"
mkdir -p "$WORK/cwd-report" && cd "$WORK/cwd-report" || exit 2
sc export "$MODEL" --dynamic "$SPEC" --report "$WORK/cwd-report/r.json" --no-codegen
expect_rc 0
expect_file_has "$WORK/cwd-report/r.json" '"status": "ok"'
expect_file_has "$WORK/cwd-report/r.json" '"sample_shape": [6, 5]'
expect_err "shapec: wrote $WORK/cwd-report/r.json"
expect_no_path "$WORK/cwd-report/shapec-out"
cd "$WORK" || exit 2
end

begin "tutorial example: with code generation, --report FILE still puts model.so and model.h in OUTDIR"
sc export "$MODEL" --dynamic "$SPEC" --report "$WORK/r2.json" -o "$WORK/lib-out"
expect_rc 0
[ -f "$WORK/lib-out/model.so" ] && [ -f "$WORK/lib-out/model.h" ] || fail "no model.so / model.h in OUTDIR"
expect_err "shapec: wrote $WORK/lib-out/model.so"
end

begin "tutorial example: the default OUTDIR is ./shapec-out"
mkdir -p "$WORK/cwd-default" && cd "$WORK/cwd-default" || exit 2
sc export "$MODEL" -q
expect_rc 0
expect_file_has "$WORK/cwd-default/shapec-out/constraints.json" '"status": "ok"'
cd "$WORK" || exit 2
end

begin "export -v prints each phase's time on stderr as it ends, in pipeline order"
sc export "$MODEL" --dynamic "$SPEC" -o "$WORK/out-verbose" -q -v
expect_rc 0
expect_out_empty
for phase in "read the model" "read the spec" "shape analysis" "weights" "lowering to LLVM IR" \
             "LLVM optimization (O3)" "LLVM code generation" "link (ld.lld)" "publish the outputs"; do
  expect_err_re "^shapec: \[ *[0-9]+\.[0-9]{3} s\] ${phase//[()]/.}: [0-9]+\.[0-9]{3} s$"
done
grep -o '^shapec: \[[^]]*\] [^:]*' "$ERR" | sed 's/.*\] //' | tr '\n' '|' >"$WORK/phases"
grep -q '^read the model|read the spec|shape analysis|weights|weights of the library|lowering to LLVM IR|LLVM optimization (O3)|LLVM code generation|weights object|link (ld.lld)|publish the outputs|$' "$WORK/phases" ||
  fail "phases out of order: $(cat "$WORK/phases")"
expect_file "$WORK/out-verbose/model.so"
end

begin "tutorial example: --dynamic=SPEC and --output=DIR forms, -q prints no program"
sc export "$MODEL" --dynamic="$SPEC" --output="$WORK/out-eq" -q
expect_rc 0
expect_out_empty
expect_file_has "$WORK/out-eq/constraints.json" '"status": "ok"'
end

begin "tutorial example: a named Dim is accepted and reported"
write "$WORK/spec-dx.json" '{"dynamic_shapes": [["dx", 5], null, null, null], "dims": {"dx": {"min": 2, "max": 100}}}'
sc export "$MODEL" --dynamic "$WORK/spec-dx.json" --no-codegen -q -o "$WORK/out-dx"
expect_rc 0
expect_file_has "$WORK/out-dx/constraints.json" '"dx": {'
expect_file_has "$WORK/out-dx/constraints.json" '"max": 100'
end

mkdir -p "$WORK/noweights"
cp "$MODEL" "$WORK/noweights/model.json"

begin "--no-codegen works without weights (warns SC0502, exits 0)"
sc export "$WORK/noweights/model.json" --no-codegen -o "$WORK/noweights/out"
expect_rc 0
expect_err "warning[SC0502]"
expect_err_not "error["
expect_file_has "$WORK/noweights/out/constraints.json" '"status": "ok"'
end

begin "without --no-codegen, missing weights exit 1 with SC0502 (weights-missing)"
sc export "$WORK/noweights/model.json" -o "$WORK/noweights/out2"
expect_rc 1
expect_diag "$WORK/noweights/model.json" SC0502
expect_err "l.weight"
expect_at "graph_module.signature.input_specs[0]"
# a rejected export still writes its report, marked as an error
expect_file_has "$WORK/noweights/out2/constraints.json" '"status": "error"'
end

begin "--weights FILE that is missing exits 3 with SC0101"
sc export "$MODEL" -q -o "$WORK/out-w" --weights "$WORK/nope.safetensors"
expect_rc 3
expect_diag "$WORK/nope.safetensors" SC0101
end

begin "--weights FILE given explicitly is used"
sc export "$WORK/noweights/model.json" -q -o "$WORK/out-w2" --weights "$TUT/model.safetensors"
expect_rc 0
expect_err_not "SC0502"
expect_file_has "$WORK/out-w2/constraints.json" '"status": "ok"'
end

# ---- 4. file errors (exit 3) -------------------------------------------------------

begin "missing model file exits 3 with SC0101 and the file name"
sc export "$WORK/does-not-exist.json"
expect_rc 3
expect_diag "$WORK/does-not-exist.json" SC0101
expect_err "No such file"
end

mkdir -p "$WORK/a-directory.json"
begin "model path that is a directory exits 3 with SC0101"
sc export "$WORK/a-directory.json"
expect_rc 3
expect_diag "$WORK/a-directory.json" SC0101
expect_err "directory"
end

begin "missing spec file exits 3 with SC0101 and the file name"
sc export "$MODEL" --dynamic "$WORK/no-spec.json" -o "$WORK/out-nospec"
expect_rc 3
expect_diag "$WORK/no-spec.json" SC0101
expect_no_path "$WORK/out-nospec/constraints.json"
end

begin "--report under /proc/nonexistent exits 3 with SC0102"
sc export "$MODEL" -q --report /proc/nonexistent/x.json
expect_rc 3
expect_diag /proc/nonexistent/x.json SC0102
end

begin "--report inside a missing directory exits 3 with SC0102 and leaves nothing"
sc export "$MODEL" -q --report "$WORK/no-such-dir/x.json"
expect_rc 3
expect_diag "$WORK/no-such-dir/x.json" SC0102
expect_no_path "$WORK/no-such-dir"
end

mkdir -p "$WORK/rep/target-is-dir"
begin "--report that is a directory exits 3 with SC0102 and leaves no temporary file"
sc export "$MODEL" -q --report "$WORK/rep/target-is-dir"
expect_rc 3
expect_diag "$WORK/rep/target-is-dir" SC0102
[ -d "$WORK/rep/target-is-dir" ] || fail "the directory was replaced"
leftover=$(ls -A "$WORK/rep" "$WORK/rep/target-is-dir" | grep -v -e '^target-is-dir$' -e '^$' -e ':$')
[ -z "$leftover" ] || fail "partial files left behind: $leftover"
end

begin "-o in a missing directory tree under /proc exits 3 with SC0102"
sc export "$MODEL" -q -o /proc/nonexistent/out
expect_rc 3
expect_diag /proc/nonexistent/out SC0102
end

begin "-o a/b/c creates the missing folders, as mkdir -p does"
sc export "$MODEL" -q -o "$WORK/nested/a/b/out"
expect_rc 0
expect_file "$WORK/nested/a/b/out/model.so"
expect_file_has "$WORK/nested/a/b/out/constraints.json" '"status": "ok"'
end

: >"$WORK/a-file"
begin "-o through a file exits 3 with SC0102 naming the folder that cannot be made"
sc export "$MODEL" -q -o "$WORK/a-file/x/out"
expect_rc 3
expect_diag "$WORK/a-file/x/out" SC0102
expect_err "cannot create the output directory's folder $WORK/a-file/x: Not a directory"
end

# ---- 5. malformed models (exit 1, never a signal) -----------------------------------

: >"$WORK/empty.json"
begin "empty model file exits 1 with SC0103"
sc export "$WORK/empty.json" -q -o "$WORK/o"
expect_rc 1
expect_diag "$WORK/empty.json" SC0103
end

head -c 500 "$MODEL" >"$WORK/truncated.json"
begin "truncated model (first 500 bytes) exits 1 with SC0201 at FILE:LINE:COL"
sc export "$WORK/truncated.json" -q -o "$WORK/o"
expect_rc 1
expect_diag_linecol "$WORK/truncated.json" SC0201
end

{ cat "$MODEL"; printf 'junk\n'; } >"$WORK/trailing.json"
begin "trailing junk after the document exits 1 with SC0201 at FILE:LINE:COL"
sc export "$WORK/trailing.json" -q -o "$WORK/o"
expect_rc 1
expect_diag_linecol "$WORK/trailing.json" SC0201
expect_err "after the document"
end

{ cat "$MODEL"; printf '{}'; } >"$WORK/two-docs.json"
begin "a second JSON document after the first exits 1 with SC0201"
sc export "$WORK/two-docs.json" -q -o "$WORK/o"
expect_rc 1
expect_diag_linecol "$WORK/two-docs.json" SC0201
end

# deterministic binary junk: an ELF header and code, then every byte value 0..255
BIN_SRC=/bin/ls
[ -f "$BIN_SRC" ] || BIN_SRC=$SHAPEC
{
  dd if="$BIN_SRC" bs=4000 count=1 2>/dev/null
  for ((i = 0; i < 256; i += 8)); do
    printf "$(printf '\\%03o\\%03o\\%03o\\%03o\\%03o\\%03o\\%03o\\%03o' \
      $i $((i + 1)) $((i + 2)) $((i + 3)) $((i + 4)) $((i + 5)) $((i + 6)) $((i + 7)))"
  done
} >"$WORK/binary.json"
begin "binary junk exits 1 with SC0201 (no crash)"
sc export "$WORK/binary.json" -q -o "$WORK/o"
expect_rc 1
expect_diag_linecol "$WORK/binary.json" SC0201
end

{ printf '{"graph_module": "'; head -c 3000 /dev/zero; printf '"}'; } >"$WORK/nul-bytes.json"
begin "NUL bytes inside a string exit 1 with a diagnostic (no crash)"
sc export "$WORK/nul-bytes.json" -q -o "$WORK/o"
expect_rc 1
expect_err_re 'error\[SC0[0-9]+\]'
end

printf '%*s' 10000 '' | tr ' ' '[' >"$WORK/deep.json"
begin "10,000 nested '[' exit 1 with SC0202 (no stack overflow)"
sc export "$WORK/deep.json" -q -o "$WORK/o"
expect_rc 1
expect_diag_linecol "$WORK/deep.json" SC0202
end

{ printf '%*s' 100000 '' | tr ' ' '{' | sed 's/{/{"a":/g'; } >"$WORK/deep-obj.json"
begin "100,000 nested objects exit 1 with SC0202 (no stack overflow)"
sc export "$WORK/deep-obj.json" -q -o "$WORK/o"
expect_rc 1
expect_diag_linecol "$WORK/deep-obj.json" SC0202
end

# model.json is json.dump(indent=1) output: the first size of w is the first line that
# is exactly '"as_int": 6' (tensor_values.w.sizes[0]).
begin "a size of 1e20 (past int64) exits 1 with SC0303 and its path"
if mutate "$WORK/int-huge.json" '0,/"as_int": 6$/s//"as_int": 99999999999999999999/'; then
  sc export "$WORK/int-huge.json" -q -o "$WORK/o"
  expect_rc 1
  expect_diag "$WORK/int-huge.json" SC0303
  expect_at "graph_module.graph.tensor_values.w.sizes[0].as_int"
fi
end

begin "a size of 2^63 (just past int64) exits 1 with SC0303"
if mutate "$WORK/int-2p63.json" '0,/"as_int": 6$/s//"as_int": 9223372036854775808/'; then
  sc export "$WORK/int-2p63.json" -q -o "$WORK/o"
  expect_rc 1
  expect_diag "$WORK/int-2p63.json" SC0303
  expect_at "graph_module.graph.tensor_values.w.sizes[0].as_int"
fi
end

begin "a fractional size exits 1 with SC0302 (wrong-type)"
if mutate "$WORK/int-frac.json" '0,/"as_int": 6$/s//"as_int": 6.5/'; then
  sc export "$WORK/int-frac.json" -q -o "$WORK/o"
  expect_rc 1
  expect_diag "$WORK/int-frac.json" SC0302
  expect_at "graph_module.graph.tensor_values.w.sizes[0].as_int"
fi
end

begin "a negative tensor size is rejected (exit 1, path tensor_values.w.sizes[0])"
if mutate "$WORK/int-neg.json" '0,/"as_int": 6$/s//"as_int": -1/'; then
  sc export "$WORK/int-neg.json" -q --no-codegen -o "$WORK/o-neg"
  expect_rc 1
  expect_err_re 'error\[SC03[0-9][0-9]\]'
  expect_err "graph_module.graph.tensor_values.w.sizes[0]"
fi
end

begin "schema major 9 exits 1 with SC0304 naming version 9.x"
if mutate "$WORK/schema9.json" 's/"major": 8,/"major": 9,/'; then
  sc export "$WORK/schema9.json" -q -o "$WORK/o"
  expect_rc 1
  expect_diag "$WORK/schema9.json" SC0304
  expect_err "9."
  expect_at "schema_version.major"
fi
end

begin "unknown operator exits 1 with SC0307, its path and the closest known operator"
if mutate "$WORK/badop.json" 's/torch\.ops\.aten\.addmm\.default/torch.ops.aten.addmmm.default/'; then
  sc export "$WORK/badop.json" -q -o "$WORK/o"
  expect_rc 1
  expect_diag "$WORK/badop.json" SC0307
  expect_err "torch.ops.aten.addmmm.default"
  expect_at "graph_module.graph.nodes[2].target"
  grep -F "fix:" "$ERR" | grep -qF "torch.ops.aten.addmm.default" ||
    fail "the hint does not suggest torch.ops.aten.addmm.default"
fi
end

begin "a model that is a JSON array exits 1 with SC0302 (wrong-type)"
write "$WORK/array.json" '[1, 2, 3]'
sc export "$WORK/array.json" -q -o "$WORK/o"
expect_rc 1
expect_diag "$WORK/array.json" SC0302
end

# ---- 6. a 50 MB model --------------------------------------------------------------

META_LINE=$(grep -n '^  "metadata": {},$' "$MODEL" | head -n 1 | cut -d: -f1)

begin "a 50 MB model (huge metadata string) is processed within 20 s"
if [ -z "$META_LINE" ]; then
  fail "fixture: model.json has no line '  \"metadata\": {},'"
else
  {
    head -n $((META_LINE - 1)) "$MODEL"
    printf '  "metadata": {"big": "'
    head -c 50000000 /dev/zero | tr '\0' 'a'
    printf '"},\n'
    tail -n +$((META_LINE + 1)) "$MODEL"
  } >"$WORK/huge-string.json"
  size=$(wc -c <"$WORK/huge-string.json")
  [ "$size" -ge 50000000 ] || fail "fixture is only $size bytes"
  sc_limit 20 export "$WORK/huge-string.json" -q --no-codegen -o "$WORK/o-huge"
  if [ "$RC" -ne 0 ] && [ "$RC" -ne 1 ]; then fail "exit status $(describe_rc "$RC"), expected 0 or 1"; fi
  if [ "$RC" -eq 1 ]; then expect_err_re 'error\[SC[0-9]+\]'; fi
  if [ "$RC" -eq 0 ]; then expect_file_has "$WORK/o-huge/constraints.json" '"status": "ok"'; fi
fi
rm -f "$WORK/huge-string.json"
end

begin "a 50 MB model (metadata array of 500,000 strings) is processed within 20 s"
if [ -z "$META_LINE" ]; then
  fail "fixture: model.json has no line '  \"metadata\": {},'"
else
  ELEM=$(printf '%*s' 97 '' | tr ' ' 'b')
  {
    head -n $((META_LINE - 1)) "$MODEL"
    printf '  "metadata": {"big": ["%s"' "$ELEM"
    yes ",\"$ELEM\"" | head -n 499999 | tr -d '\n'
    printf ']},\n'
    tail -n +$((META_LINE + 1)) "$MODEL"
  } >"$WORK/huge-array.json"
  size=$(wc -c <"$WORK/huge-array.json")
  [ "$size" -ge 50000000 ] || fail "fixture is only $size bytes"
  sc_limit 20 export "$WORK/huge-array.json" -q --no-codegen -o "$WORK/o-huge2"
  if [ "$RC" -ne 0 ] && [ "$RC" -ne 1 ]; then fail "exit status $(describe_rc "$RC"), expected 0 or 1"; fi
  if [ "$RC" -eq 1 ]; then expect_err_re 'error\[SC[0-9]+\]'; fi
  if [ "$RC" -eq 0 ]; then expect_file_has "$WORK/o-huge2/constraints.json" '"status": "ok"'; fi
fi
rm -f "$WORK/huge-array.json"
end

# ---- 7. spec errors (exit 1) -------------------------------------------------------

spec_run() { # SPEC-TEXT
  rm -rf "$WORK/o-spec"
  write "$WORK/spec.json" "$1"
  sc export "$MODEL" -q --no-codegen -o "$WORK/o-spec" --dynamic "$WORK/spec.json"
}

begin "spec: unknown input name exits 1 with SC0401 listing the inputs"
spec_run '{"dynamic_shapes": {"q": null}, "dims": {}}'
expect_rc 1
expect_diag "$WORK/spec.json" SC0401
expect_err "'q'"
expect_err "w, x, y, z"
expect_at "dynamic_shapes.q"
end

begin "spec: rank mismatch exits 1 with SC0402 at dynamic_shapes[0]"
spec_run '{"dynamic_shapes": [["_DimHint.AUTO"], null, null, null], "dims": {}}'
expect_rc 1
expect_diag "$WORK/spec.json" SC0402
expect_at "dynamic_shapes[0]"
end

begin "spec: a Dim name missing from dims exits 1 with SC0403"
spec_run '{"dynamic_shapes": [["dx", 5], null, null, null], "dims": {}}'
expect_rc 1
expect_diag "$WORK/spec.json" SC0403
expect_err "'dx'"
expect_at "dynamic_shapes[0][0]"
end

begin "spec: non-linear derived dim \"dx*dx\" exits 1 with SC0404"
spec_run '{"dynamic_shapes": [["dx", 5], null, null, null], "dims": {"dx": {"min": 2, "max": 100, "derived": ["dx*dx"]}}}'
expect_rc 1
expect_diag "$WORK/spec.json" SC0404
expect_err "dx*dx"
expect_at "dims.dx.derived[0]"
end

begin "spec: non-linear dim expression \"dx*dx\" in a shape exits 1 with SC0404"
spec_run '{"dynamic_shapes": [["dx*dx", 5], null, null, null], "dims": {"dx": {"min": 2, "max": 100}}}'
expect_rc 1
expect_diag "$WORK/spec.json" SC0404
expect_at "dynamic_shapes[0][0]"
end

begin "spec: min > max exits 1 with SC0405"
spec_run '{"dynamic_shapes": [["dx", 5], null, null, null], "dims": {"dx": {"min": 10, "max": 2}}}'
expect_rc 1
expect_diag "$WORK/spec.json" SC0405
expect_at "dims.dx"
end

begin "spec: min == max exits 1 with SC0406"
spec_run '{"dynamic_shapes": [["dx", 5], null, null, null], "dims": {"dx": {"min": 6, "max": 6}}}'
expect_rc 1
expect_diag "$WORK/spec.json" SC0406
expect_at "dims.dx"
end

begin "spec: static size 7 differing from the sample 6 exits 1 with SC0407"
spec_run '{"dynamic_shapes": [[7, 5], null, null, null], "dims": {}}'
expect_rc 1
expect_diag "$WORK/spec.json" SC0407
expect_err "7"
expect_at "dynamic_shapes[0][0]"
end

begin "spec: empty spec file exits 1 with SC0103"
spec_run ''
expect_rc 1
expect_diag "$WORK/spec.json" SC0103
end

begin "spec: truncated spec exits 1 with SC0201 at FILE:LINE:COL"
spec_run '{"dynamic_shapes": [["dx", 5], null'
expect_rc 1
expect_diag_linecol "$WORK/spec.json" SC0201
end

# torch <= 2.3 gave a Dim without max the bound sys.maxsize - 1; that is a valid int64.
begin "spec: Dim max 9223372036854775806 (sys.maxsize - 1, a valid int64) is accepted"
spec_run '{"dynamic_shapes": [["dx", 5], null, null, null], "dims": {"dx": {"min": 2, "max": 9223372036854775806}}}'
expect_rc 0
expect_err_not "SC0303"
expect_file_has "$WORK/o-spec/constraints.json" '"dx": {'
end


begin "--cpu: an unknown CPU name is a usage error that lists the names shapec knows"
sc export "$MODEL" --dynamic "$SPEC" -o "$WORK/cpu-bogus" --cpu bogus
expect_rc 2
expect_err "--cpu bogus: not a CPU shapec knows; use one of: x86-64,"
expect_no_path "$WORK/cpu-bogus/model.so"
end

begin "--cpu x86-64-v3: the library records (and will check) the instruction sets it uses"
sc export "$MODEL" --dynamic "$SPEC" -o "$WORK/cpu-v3" --cpu x86-64-v3
expect_rc 0
if ! /usr/bin/python3 -c 'import ctypes, sys
l = ctypes.CDLL(sys.argv[1]); l.shapec_model_cpu_features.restype = ctypes.c_char_p
sys.exit(l.shapec_model_cpu_features() != b"sse4.2,avx,avx2,fma,f16c,bmi2")' "$WORK/cpu-v3/model.so" 2>/dev/null; then
  fail "shapec_model_cpu_features() is not sse4.2,avx,avx2,fma,f16c,bmi2"
fi
end

begin "a code-generation failure in a new folder publishes its report as an error, no library"
# item() of a float tensor feeding a size: the CPU backend takes integer item() only
sed 's/"dtype": 5/"dtype": 7/' "$SRC/test/golden/models/item_check.json" >"$WORK/item_float.json"
sc export "$WORK/item_float.json" -o "$WORK/cg-fail"
expect_rc 4
expect_err "SC0801"
expect_file_has "$WORK/cg-fail/constraints.json" '"status": "error"'
expect_no_path "$WORK/cg-fail/model.so"
end

begin "a failed export keeps the earlier library and report; its own report is constraints.failed.json"
sc export "$MODEL" --dynamic "$SPEC" -o "$WORK/cg-keep" -q
cp "$WORK/cg-keep/model.so" "$WORK/cg-keep.so.before"
sc export "$WORK/item_float.json" -o "$WORK/cg-keep"
expect_rc 4
expect_err "SC0801"
expect_err "wrote $WORK/cg-keep/constraints.failed.json (status: error)"
expect_file_has "$WORK/cg-keep/constraints.json" '"status": "ok"'
expect_file_has "$WORK/cg-keep/constraints.failed.json" '"status": "error"'
cmp -s "$WORK/cg-keep/model.so" "$WORK/cg-keep.so.before" || fail "the earlier model.so changed"
[ -z "$(ls -A "$WORK" | grep '^\.cg-keep\.staging')" ] || fail "a staging folder was left behind"
end

begin "a spec that cannot be used writes the report (status error, its diagnostics), like a violation"
printf '{"dims": {"dx": {"min": 10, "max": 4, "derived": []}}, "dynamic_shapes": [["dx"]]}' >"$WORK/min_above_max.json"
sc export "$SRC/test/diff/programs/p15/model.pt2" --dynamic "$WORK/min_above_max.json" -o "$WORK/spec-err"
expect_rc 1
expect_err "SC0405"
expect_err "wrote $WORK/spec-err/constraints.json (status: error)"
expect_file_has "$WORK/spec-err/constraints.json" '"status": "error"'
expect_file_has "$WORK/spec-err/constraints.json" '"code": "SC0405"'
expect_file_has "$WORK/spec-err/constraints.json" '"kind": "spec-min-above-max"'
expect_no_path "$WORK/spec-err/model.so"
# over an earlier export: the library stays, the spec's report is constraints.failed.json
sc export "$MODEL" --dynamic "$SPEC" -o "$WORK/spec-keep" -q
sc export "$SRC/test/diff/programs/p15/model.pt2" --dynamic "$WORK/min_above_max.json" -o "$WORK/spec-keep"
expect_rc 1
expect_file_has "$WORK/spec-keep/constraints.failed.json" '"code": "SC0405"'
expect_file_has "$WORK/spec-keep/constraints.json" '"status": "ok"'
expect_file "$WORK/spec-keep/model.so"
end

# ---- CUDA target ----------------------------------------------------------------------

begin "run --device: only cpu, cuda or cuda:N"
sc run "$WORK/nolib.so" --device tpu --input x=x.npy
expect_rc 2
expect_err "run: --device takes cpu, cuda or cuda:N, not 'tpu'"
sc run "$WORK/nolib.so" --device cuda:x --input x=x.npy
expect_rc 2
end

begin "--cuda-emulate without a CUDA target is a usage error"
sc export "$MODEL" --dynamic "$SPEC" --cuda-emulate -o "$WORK/emu"
expect_rc 2
expect_err "--cuda-emulate needs --target cuda"
end

begin "--target: an unknown target is a usage error"
sc export "$MODEL" --dynamic "$SPEC" --target tpu -o "$WORK/tpu"
expect_rc 2
expect_err "--target tpu: give cpu, cuda or cpu,cuda"
end

begin "--cuda-arch: an unknown GPU lists the ones LLVM 19 builds for; without --target cuda it is a usage error"
sc export "$MODEL" --dynamic "$SPEC" --target cuda --cuda-arch sm_70 -o "$WORK/sm70"
expect_rc 2
expect_err "--cuda-arch sm_70: not a GPU LLVM 19 builds for; use one of: sm_75, sm_80"
sc export "$MODEL" --dynamic "$SPEC" --cuda-arch sm_80 -o "$WORK/sm80"
expect_rc 2
expect_err "--cuda-arch needs --target cuda"
end

begin "--target cuda without libdevice: a clear error, no library"
SHAPEC_LIBDEVICE=$WORK/missing/libdevice.10.bc sc export "$MODEL" --dynamic "$SPEC" --target cuda -o "$WORK/nolibdevice"
expect_rc 3
expect_err "cannot read $WORK/missing/libdevice.10.bc"
expect_err "SHAPEC_LIBDEVICE names this file): point SHAPEC_LIBDEVICE or CUDA_HOME at it, or install the toolkit"
expect_no_path "$WORK/nolibdevice/model.so"
expect_no_path "$WORK/nolibdevice/model.ptx"
expect_no_path "$WORK/nolibdevice/model_kernels.ptx"
end

if [ -n "$(ls /usr/local/cuda/nvvm/libdevice/libdevice.10.bc "${CUDA_HOME:-/nonexistent}"/nvvm/libdevice/libdevice.10.bc 2>/dev/null)" ]; then
  begin "--target cpu,cuda: one library with CPU and CUDA code, its PTX beside it, for the arch asked"
  sc export "$MODEL" --dynamic "$SPEC" --target cpu,cuda --cuda-arch sm_90 -o "$WORK/both" -q
  expect_rc 0
  expect_file_has "$WORK/both/model.ptx" ".target sm_90"
  expect_file_has "$WORK/both/model.ptx" ".visible .entry sc_ew_0"
  expect_file_has "$WORK/both/model_kernels.ptx" ".visible .entry sc_d_conv2d"
  end

  begin "a CPU-only export over a CUDA one takes the stale model.ptx away"
  sc export "$MODEL" --dynamic "$SPEC" -o "$WORK/both" -q
  expect_rc 0
  expect_no_path "$WORK/both/model.ptx"
  expect_no_path "$WORK/both/model_kernels.ptx"
  end
fi

# ---- int and float inputs ----------------------------------------------------------

# zeros_npy FILE ROWS COLS: a float32 .npy of zeros (header padded to 64 bytes, as numpy does)
zeros_npy() {
  local dict="{'descr': '<f4', 'fortran_order': False, 'shape': ($2, $3), }"
  local pad=$((64 - (10 + ${#dict} + 1) % 64))
  { printf '\x93NUMPY\x01\x00'; printf "\\x$(printf %02x $(((${#dict} + pad + 1) % 256)))\\x$(printf %02x $(((${#dict} + pad + 1) / 256)))";
    printf '%s%*s\n' "$dict" "$pad" ''; head -c $(($2 * $3 * 4)) /dev/zero; } >"$1"
}
INT_PROGRAM=$SRC/test/real/corpus/2.14/int_dynamic/model.pt2
if [ -f "$INT_PROGRAM" ]; then
  zeros_npy "$WORK/x83.npy" 8 3
  begin "an int the program keeps symbolic is an input: --input n=3 runs x[:n] * 2 + n"
  sc export "$INT_PROGRAM" -o "$WORK/intdyn" -q
  expect_rc 0
  expect_file_has "$WORK/intdyn/model.h" "n int64[] (a scalar: s"
  sc run "$WORK/intdyn/model.so" --input "x=$WORK/x83.npy" --input n=3 --out "$WORK/intdyn"
  expect_rc 0
  expect_err "float32 [3, 3] = 3 3 3 3 3 3"
  end

  begin "an int outside the program's guard is refused with torch's message"
  sc run "$WORK/intdyn/model.so" --input "x=$WORK/x83.npy" --input n=9 --out "$WORK/intdyn"
  expect_rc 1
  expect_err "Guard failed: n >= 0 and n <= x.size()[0]"
  end

  begin "a scalar input that is neither a value nor a file says how to pass it"
  sc run "$WORK/intdyn/model.so" --input "x=$WORK/x83.npy" --input n=three --out "$WORK/intdyn"
  expect_rc 1
  expect_err "input 'n' is a scalar (int64)"
  expect_err "--input n=5"
  end
fi
INT_CONST=$SRC/test/real/corpus/2.14/int_input/model.pt2
if [ -f "$INT_CONST" ]; then
  begin "an int torch made a constant is still passed, and must be the traced value"
  sc export "$INT_CONST" -o "$WORK/intconst" -q
  expect_rc 0
  sc run "$WORK/intconst/model.so" --input "x=$WORK/x83.npy" --input k=4 --out "$WORK/intconst"
  expect_rc 1
  expect_err "Guard failed: k == 3"
  end
fi

DEFERRED=$SRC/test/real/deferred/even_only
if [ -f "$DEFERRED/auto.pt2" ]; then
  begin "a failed runtime assert names the size each symbol stands for"
  sc export "$DEFERRED/auto.pt2" --dynamic "$DEFERRED/spec.json" --prefer-deferred-runtime-asserts -o "$WORK/deferred" -q
  expect_rc 0
  /usr/bin/python3 -c "import numpy as np; np.save('$WORK/x7.npy', np.ones(7, np.float32))"
  sc run "$WORK/deferred/model.so" --input "x=$WORK/x7.npy" --out "$WORK/deferred"
  expect_rc 1
  expect_err "Runtime assertion failed for expression Eq(Mod(dx, 2), 0) on node 'guards_code[0]': dx = 7 (x.size()[0])"
  end
fi

cat >"$WORK/violating.json" <<'JSON'
{"dynamic_shapes": {"w": ["dw", "dk"], "x": ["dx"], "y": [null, "dx"], "z": [null]},
 "dims": {"dw": {"min": 2, "max": 16},
          "dx": {"min": 2, "max": 30},
          "dk": {}}}
JSON
begin "a constraint violation names the spec entries to edit, with line:col"
sc export "$MODEL" --dynamic "$WORK/violating.json" -o "$WORK/viol-text" -q
expect_rc 1
expect_err "error[SC0601]: Constraints violated (dk, dx)!"
expect_err "  edit: $WORK/violating.json:4:17: dims.dk"
expect_err "  edit: $WORK/violating.json:3:17: dims.dx"
expect_err_re "^$MODEL:[0-9]+:[0-9]+: error\[SC0601\]"
end

begin "--diagnostics-format json: one document with code, name, location (file, JSON path, line:col), fix and edits"
sc export "$MODEL" --dynamic "$WORK/violating.json" -o "$WORK/viol-json" -q --diagnostics-format json
expect_rc 1
/usr/bin/python3 - "$ERR" "$WORK/violating.json" <<'PY' || fail "the JSON diagnostics are not as documented"
import json, sys
doc = json.load(open(sys.argv[1]))
d = doc["diagnostics"][0]
assert d["code"] == "SC0601" and d["name"] == "constraint-violation" and d["severity"] == "error", d
assert d["location"]["json_path"] == "graph_module.graph.nodes[2]" and d["location"]["line"] > 0, d["location"]
assert d["message"].startswith("Constraints violated (dk, dx)!") and "fix-spec" in d["fix"]
edits = {e["json_path"]: (e["file"], e["line"], e["column"]) for e in d["edit"]}
assert edits == {"dims.dk": (sys.argv[2], 4, 17), "dims.dx": (sys.argv[2], 3, 17)}, edits
PY
end

begin "--diagnostics-format sarif: SARIF 2.1.0 with the rule, the spec entry to edit as the primary location, the node related"
sc export "$MODEL" --dynamic "$WORK/violating.json" -o "$WORK/viol-sarif" -q --diagnostics-format=sarif
expect_rc 1
/usr/bin/python3 - "$ERR" <<'PY' || fail "the SARIF document is not as expected"
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["version"] == "2.1.0" and doc["$schema"].endswith("sarif-2.1.0.json")
run = doc["runs"][0]
assert run["tool"]["driver"]["name"] == "shapec" and run["tool"]["driver"]["rules"][0]["id"] == "SC0601"
res = run["results"][0]
assert res["ruleId"] == "SC0601" and res["level"] == "error"
loc = res["locations"][0]
assert loc["physicalLocation"]["region"]["startLine"] == 4 and loc["physicalLocation"]["artifactLocation"]["uri"].startswith("file:///")
assert loc["logicalLocations"][0]["fullyQualifiedName"] == "dims.dk"
rel = [(r["logicalLocations"][0]["fullyQualifiedName"], r["physicalLocation"].get("region", {}).get("startLine")) for r in res["relatedLocations"]]
assert rel[0][0] == "graph_module.graph.nodes[2]" and rel[0][1] > 0 and rel[1:] == [("dims.dx", 3)], rel
PY
sc export "$MODEL" --diagnostics-format xml -o "$WORK/viol-xml"
expect_usage_error "export: --diagnostics-format xml: give text, json or sarif"
end

begin "a spec error points at its entry with line:col (any JSON path diagnostic in a JSON file)"
printf '{"dynamic_shapes": {"w": ["_DimHint.AUTO", null],\n  "x": [1, 2]}}\n' >"$WORK/badrank.json"
sc export "$MODEL" --dynamic "$WORK/badrank.json" -o "$WORK/badrank" -q
expect_rc 1
expect_err_re "^$WORK/badrank.json:2:8: error\[SC04[0-9][0-9]\]"
end

begin "--name NAME: only shapec_NAME_* exported, SONAME NAME.so beside model.so, NAME.h; run and inspect find them"
sc export "$MODEL" --dynamic "$SPEC" --name tut_a -o "$WORK/named" -q
expect_rc 0
[ ! -L "$WORK/named/tut_a.so" ] && cmp -s "$WORK/named/tut_a.so" "$WORK/named/model.so" ||
  fail "tut_a.so is not a file with model.so's bytes (a symbolic link installs as a dangling one)"
grep -qF "#define shapec_model_run shapec_tut_a_run" "$WORK/named/model.h" || fail "model.h does not alias shapec_model_run"
grep -qF "#define shapec_model_run" "$WORK/named/tut_a.h" && fail "tut_a.h aliases shapec_model_* (two models' headers would clash)"
readelf -d "$WORK/named/model.so" | grep -q 'SONAME.*\[tut_a.so\]' || fail "the SONAME is not tut_a.so"
exported=$(nm -D --defined-only "$WORK/named/model.so" | awk '{print $3}')
echo "$exported" | grep -qx shapec_tut_a_run || fail "shapec_tut_a_run is not exported"
[ -z "$(echo "$exported" | grep -v '^shapec_tut_a_')" ] || fail "other symbols exported: $(echo "$exported" | grep -v '^shapec_tut_a_' | head -3)"
expect_file_has "$WORK/named/tut_a.h" "int shapec_tut_a_run(const shapec_tensor *inputs"
sc inspect "$WORK/named/model.so"
expect_rc 0
expect_out "  w: float32 [s0, 5]"
sc run "$WORK/named/model.so" --input "w=$TUT/inputs/w.npy" --input "x=$TUT/inputs/x.npy" \
  --input "y=$TUT/inputs/y.npy" --input "z=$TUT/inputs/z.npy" --out "$WORK/named"
expect_rc 0
expect_file "$WORK/named/output_0.npy"
expect_file "$WORK/named/output_1.npy"
expect_out "$WORK/named/output_0.npy"
expect_err "shapec: output_0 (addmm): float32 [6, 3]"
sc export "$MODEL" --name 9lives -o "$WORK/named-bad"
expect_usage_error "export: --name 9lives: give a C identifier other than 'model'"
end

begin "shapec inspect MODEL.so: inputs, outputs, ranges, replacements and targets from the library alone"
sc export "$MODEL" --dynamic "$SPEC" -o "$WORK/inspect" -q
mv "$WORK/inspect/constraints.json" "$WORK/inspect/report-moved-away.json"  # only the library is read
sc inspect "$WORK/inspect/model.so"
expect_rc 0
expect_out "a shapec model library (ABI 1), built by shapec 0.1.0"
expect_out "  spec: $(basename "$SPEC") (sha256 $(sha256sum "$SPEC" | cut -d" " -f1))"
expect_out "  from: $(basename "$MODEL") (sha256 $(sha256sum "$MODEL" | cut -d" " -f1))"
expect_out "  targets: cpu (CPU features: "
expect_out "  w: float32 [s0, 5]"
expect_out "  z: float32 [s2*s3]"
expect_out "  addmm: float32 [s0, 3]"
expect_out "  s0 in [2, int_oo]  w.size()[0]"
expect_out "  s5 = s2*s3"
sc inspect "$WORK/inspect/model.so" --json
expect_rc 0
/usr/bin/python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['status'] == 'ok' and r['replacements']['s5'] == 's2*s3'" "$OUT" ||
  fail "inspect --json is not the embedded report"
sc inspect "$MODEL"
expect_rc 3
expect_err "error[SC0902]: cannot load the library: a JSON document (an ExportedProgram's model.json?), not a built library"
expect_err "shapec export FILE -o OUTDIR"
expect_err_not "export it again"
sc inspect
expect_usage_error "inspect: no MODEL.so given"
end

begin "a library of CUDA code only, run without --device cuda, says to pass it"
SHAPEC_LIBDEVICE=$WORK/missing/libdevice.10.bc sc export "$MODEL" --dynamic "$SPEC" --target cuda --cuda-emulate \
  -o "$WORK/cuda-only" -q
expect_rc 0
sc run "$WORK/cuda-only/model.so" --input "w=$TUT/inputs/w.npy" --input "x=$TUT/inputs/x.npy" \
  --input "y=$TUT/inputs/y.npy" --input "z=$TUT/inputs/z.npy" --out "$WORK/cuda-only"
expect_rc 1
expect_err "error[SC0903]: this library computes on CUDA tensors only (it was exported with --target cuda)"
expect_err "fix: run it with --device cuda"
end

FLOAT_CONST=$SRC/test/real/corpus/2.14/float_input/model.pt2
if [ -f "$FLOAT_CONST" ]; then
  begin "a hint on a float input: torch's sentence, the spec path and the fix (SC0413), and a report"
  echo '{"dynamic_shapes": [{"0": "_DimHint.AUTO"}, "_DimHint.DYNAMIC"]}' >"$WORK/float-hint.json"
  sc export "$FLOAT_CONST" --dynamic "$WORK/float-hint.json" -o "$WORK/float-hint"
  expect_rc 1
  expect_diag "$WORK/float-hint.json" SC0413
  expect_err "Cannot associate shape DimHint(DYNAMIC) specified at \`dynamic_shapes[1]\` to non-tensor type <class 'float'> at \`inputs[1]\` (expected None)"
  expect_at "dynamic_shapes[1]"
  expect_err "fix: write null for int, float and bool arguments"
  expect_file_has "$WORK/float-hint/constraints.json" '"status": "error"'
  expect_no_path "$WORK/float-hint/model.so"
  end
fi

begin "complex tensors at a program's boundary are refused, with the advice and no library (SC0801)"
sc export "$SRC/test/cli/complex/complex_output.pt2" -o "$WORK/complex-out"
expect_rc 4
expect_err "error[SC0801]: 'fft_rfft', which the program returns, is a complex tensor"
expect_err "return torch.view_as_real(...) instead"
expect_no_path "$WORK/complex-out/model.so"
sc export "$SRC/test/cli/complex/complex_input.pt2" -o "$WORK/complex-in"
expect_rc 4
expect_err "error[SC0801]: 'z', which the program takes, is a complex tensor"
expect_no_path "$WORK/complex-in/model.so"
end

begin "an op whose CPU kernel has no CUDA counterpart is refused at its node, not at the link"
# BiT's weight-standardized convolutions: batch_norm(training=True) on the weights
sc export "$SRC/test/real/half/bfloat16/hf_bit/model.pt2" --target cuda --cuda-emulate -o "$WORK/bit-cuda"
expect_rc 4
expect_err "error[SC0801]: torch.ops.aten.batch_norm.default has no CUDA lowering yet (the device runtime has no sc_cu_batch_stats_norm_f32"
expect_err "at: graph_module.graph.nodes[1]"
expect_no_path "$WORK/bit-cuda/model.so"
end

begin "a refusal on the CUDA path names CUDA, not the CPU (the lowering both paths share)"
sc export "$SRC/test/real/half/bfloat16/hf_clip_text/model.pt2" --target cuda --cuda-emulate -o "$WORK/clip-cuda"
expect_rc 4
expect_err "torch.ops.aten.argmax.default of int32 has no CUDA lowering"
end

begin "a static program's frozen size under a spec that makes it dynamic: a warning, and other sizes refused (SC0608)"
# torch 2.14's static export of x.repeat(y.shape[0], 1) + arange(3 * y.shape[0])[:, None]: repeat(x, [2, 1])
echo '{"dynamic_shapes": {"x": null, "y": {"0": "n"}}, "dims": {"n": {"min": 2, "max": 16}}}' >"$WORK/frozen_spec.json"
sc export "$SRC/test/cli/frozen_sizes/static.pt2" --dynamic "$WORK/frozen_spec.json" -o "$WORK/frozen" -q
expect_rc 0
expect_err "warning[SC0608]: the spec makes y.size()[0] dynamic, but this program was exported with it static (2), and node 'repeat' (torch.ops.aten.repeat.default) holds 2 in its repeats"
expect_err "export the model in torch with this spec"
/usr/bin/python3 -c 'import numpy as np, sys; np.save(sys.argv[1] + "/fx.npy", np.ones((3, 4), np.float32)); [np.save(f"{sys.argv[1]}/fy{r}.npy", np.ones((r, 5), np.float32)) for r in (2, 3)]' "$WORK"
sc run "$WORK/frozen/model.so" -i x="$WORK/fx.npy" -i y="$WORK/fy3.npy" --out "$WORK/frozen_run"
expect_rc 1
expect_err "Guard failed: y.size()[0] == 2 (the program was exported static and holds that size as a constant at node 'repeat'"
# the size it was exported with runs, as torch's [6, 4] (test/cli/frozen_sizes/answers.txt)
sc run "$WORK/frozen/model.so" -i x="$WORK/fx.npy" -i y="$WORK/fy2.npy" --out "$WORK/frozen_run"
expect_rc 0
expect_err "float32 [6, 4]"
# torch's dynamic export of the same model: the size flows, nothing to warn about, 3 rows give [9, 4]
sc export "$SRC/test/cli/frozen_sizes/dynamic.pt2" -o "$WORK/frozen_dyn" -q
expect_rc 0
expect_err_not "SC0608"
sc run "$WORK/frozen_dyn/model.so" -i x="$WORK/fx.npy" -i y="$WORK/fy3.npy" --out "$WORK/frozen_dyn_run"
expect_rc 0
expect_err "float32 [9, 4]"
end

# ---- summary -----------------------------------------------------------------------

TOTAL=$((N_PASS + N_FAIL))
echo "# $N_PASS of $TOTAL checks passed, $N_FAIL failed"
if [ "$N_FAIL" -ne 0 ]; then
  for n in "${FAILED_NAMES[@]}"; do echo "# failed: $n"; done
  exit 1
fi
exit 0
