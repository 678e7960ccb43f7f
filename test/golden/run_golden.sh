#!/usr/bin/env bash
# Golden tests of the shape analysis: every case in cases.txt is exported and its report
# (constraints.json) and diagnostics are compared with test/golden/expected/.  A rejected
# export must come with a corrected spec that then exports cleanly, and every report must
# be byte-identical on a second run.
#   usage: run_golden.sh SHAPEC SOURCE_DIR [--update]
set -uo pipefail
shapec=$(realpath "$1"); src=$(realpath "$2"); update=${3:-}
expected="$src/test/golden/expected"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$src" || exit 2
pass=0; fail=0
while read -r name model spec want _; do
  [[ -z "$name" || "$name" == \#* ]] && continue
  out="$work/$name"; mkdir -p "$out"
  "$shapec" export "$model" --dynamic "$spec" --no-codegen -q -o "$out" --fix-spec "$out/fixed.json" \
    2>"$out/stderr.raw"
  rc=$?
  grep -v '^shapec: wrote' "$out/stderr.raw" > "$out/stderr"
  problems=()
  [ "$rc" = "$want" ] || problems+=("exit $rc, expected $want")
  if [ "$update" = --update ]; then
    cp "$out/constraints.json" "$expected/$name.report.json"
    cp "$out/stderr" "$expected/$name.stderr"
  else
    diff -u "$expected/$name.report.json" "$out/constraints.json" > "$out/report.diff" || problems+=("report differs")
    diff -u "$expected/$name.stderr" "$out/stderr" > "$out/stderr.diff" || problems+=("diagnostics differ")
  fi
  # byte-identical on a second run
  "$shapec" export "$model" --dynamic "$spec" --no-codegen -q -o "$out/again" 2>/dev/null
  cmp -s "$out/constraints.json" "$out/again/constraints.json" || problems+=("second run differs")
  # a rejected export's corrected spec exports cleanly
  if [ "$want" = 1 ] && grep -q 'SC0601' "$out/stderr"; then
    if "$shapec" export "$model" --dynamic "$out/fixed.json" --no-codegen -q -o "$out/fixed" 2>"$out/fixed.err"; then :; else
      problems+=("the corrected spec does not export: $(grep -m1 error "$out/fixed.err")")
    fi
  fi
  if [ ${#problems[@]} -eq 0 ]; then
    echo "ok - $name"; pass=$((pass + 1))
  else
    echo "not ok - $name: ${problems[*]}"; fail=$((fail + 1))
    for f in "$out/report.diff" "$out/stderr.diff"; do [ -s "$f" ] && head -40 "$f" | sed 's/^/#   /'; done
  fi
done < test/golden/cases.txt
echo "# $pass passed, $fail failed"
[ "$fail" = 0 ]
