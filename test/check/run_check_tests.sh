#!/usr/bin/env bash
# `shapec check` and `shapec explain`: an unchanged model is clean; each kind of contract
# change (a range narrows, a relation appears, a dim becomes static, a runtime assert or an input guard
# appears or disappears, the export starts failing) is detected and described with its
# cause; renumbered symbols are no change; JUnit output validates with xmllint; a manifest
# checks several models; explain names the node behind each dim.
#   usage: run_check_tests.sh SHAPEC SOURCE_DIR
set -u
SHAPEC=$(realpath "$1")
SRC=$(realpath "$2")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/shapec-check.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$SRC" || exit 2
T=examples/tutorial
G=test/golden
FAILS=0

check() { # check NAME COMMAND...: runs, keeps stdout in $WORK/out, stderr in $WORK/err, status in RC
  NAME=$1
  shift
  "$@" >"$WORK/out" 2>"$WORK/err"
  RC=$?
}
ok() { echo "ok - $NAME"; }
bad() {
  echo "not ok - $NAME: $*"
  sed 's/^/#   out: /' "$WORK/out" | head -20
  sed 's/^/#   err: /' "$WORK/err" | head -10
  FAILS=$((FAILS + 1))
}
expect() { # expect RC TEXT...: the status and each text in stdout
  local want=$1
  shift
  [ "$RC" -eq "$want" ] || { bad "exit $RC, expected $want"; return; }
  for t in "$@"; do grep -qF -- "$t" "$WORK/out" || { bad "stdout lacks: $t"; return; }; done
  ok
}

# a baseline of the tutorial with every dim AUTO
"$SHAPEC" check $T/model.json --dynamic $T/spec.json --baseline "$WORK/base.json" --update >/dev/null 2>&1
check "update writes the same bytes as export's report" \
  "$SHAPEC" export $T/model.json --dynamic $T/spec.json --no-codegen --report "$WORK/export.json" -q
if cmp -s "$WORK/base.json" "$WORK/export.json"; then ok; else bad "baseline differs from the export's report"; fi

check "unchanged model: no change, exit 0, clean JUnit" \
  "$SHAPEC" check $T/model.json --dynamic $T/spec.json --baseline "$WORK/base.json" --junit "$WORK/clean.xml"
expect 0 "no change against"
check "clean JUnit validates and has no failure" xmllint --noout "$WORK/clean.xml"
if [ "$RC" -eq 0 ] && grep -q 'failures="0"' "$WORK/clean.xml" && grep -q 'name="x.size()\[0\]"' "$WORK/clean.xml"; then ok
else bad "xmllint $RC or no per-dim test case"; fi

check "a range narrows and a relation appears: each with the guard and node behind it" \
  "$SHAPEC" check $G/models/tutorial_checks.json --dynamic $G/specs/tutorial_auto.json --baseline "$WORK/base.json" --junit "$WORK/changed.xml"
expect 1 "x.size()[0]: range [2, int_oo] -> [4, 510], new guard x.size()[0] >= 4 from node _assert_scalar_1 (graph_module.graph.nodes[5])" \
  "w.size()[0]: range [2, int_oo] -> = x.size()[0] + 2, new guard Eq(w.size()[0], x.size()[0] + 2) from node _assert_scalar_2 (graph_module.graph.nodes[8])"
NAME="the changes and their causes are written in input dims, never internal symbols"
if grep -qE "(^|[^a-z_.])s[0-9]+" "$WORK/out"; then bad "a change names an internal symbol"; else ok; fi

# the same contract written with its products and sums in another order: no change
sed -e 's/"s2\*s3"/"s3*s2"/g' -e 's/"s0 + 2"/"2 + s0"/g' "$WORK/base.json" >"$WORK/reordered.json"
if cmp -s "$WORK/base.json" "$WORK/reordered.json"; then NAME="fixture: the reorder applied"; bad "sed changed nothing"; fi
# a crafted baseline whose expression nests 5,000 parentheses deep: a change, no crash
/usr/bin/python3 -c 'import sys; t = open(sys.argv[1]).read(); open(sys.argv[2], "w").write(t.replace("\"s2*s3\"", "\"" + "(" * 5000 + "s2*s3" + ")" * 5000 + "\""))' "$WORK/base.json" "$WORK/deep.json"
check "a baseline with an expression nested 5,000 deep: reported as a change, no crash" \
  "$SHAPEC" check $T/model.json --dynamic $T/spec.json --baseline "$WORK/deep.json"
expect 1 "z.size()[0]: = ((((("
check "a baseline whose expressions are written in another order (s3*s2 for s2*s3) is no change" \
  "$SHAPEC" check $T/model.json --dynamic $T/spec.json --baseline "$WORK/reordered.json"
expect 0 "no change against"
check "the JUnit of a change validates and carries the diff" xmllint --noout "$WORK/changed.xml"
if [ "$RC" -eq 0 ] && grep -q '<failure message="x.size()\[0\]: range \[2, int_oo\] -&gt; \[4, 510\]' "$WORK/changed.xml"; then ok
else bad "no failure for x.size()[0] in the JUnit"; fi

echo '{"dynamic_shapes": {"w": [null, null], "x": ["_DimHint.AUTO"], "y": ["_DimHint.AUTO", "_DimHint.AUTO"], "z": ["_DimHint.AUTO"]}}' >"$WORK/w_static.json"
check "a dim becomes static" "$SHAPEC" check $T/model.json --dynamic "$WORK/w_static.json" --baseline "$WORK/base.json"
expect 1 'w.size()[0]: range [2, int_oo] -> static 6, the spec changed: "_DimHint.AUTO" -> null'
echo '{"dynamic_shapes": {"w": ["dw", null], "x": ["_DimHint.AUTO"], "y": ["_DimHint.AUTO", "_DimHint.AUTO"], "z": ["_DimHint.AUTO"]}, "dims": {"dw": {"min": 2, "max": 64}}}' >"$WORK/w_named.json"
check "a spec change is written as in the spec file" "$SHAPEC" check $T/model.json --dynamic "$WORK/w_named.json" --baseline "$WORK/base.json"
expect 1 'w.size()[0]: range [2, int_oo] -> [2, 64], the spec changed: "_DimHint.AUTO" -> "dw"'

# w.size()[1] is pinned to 5 either way; without its symbol every later one is renumbered
echo '{"dynamic_shapes": {"w": ["_DimHint.AUTO", null], "x": ["_DimHint.AUTO"], "y": ["_DimHint.AUTO", "_DimHint.AUTO"], "z": ["_DimHint.AUTO"]}}' >"$WORK/w1_static.json"
"$SHAPEC" export $T/model.json --dynamic "$WORK/w1_static.json" --no-codegen --report "$WORK/renum.json" -q 2>/dev/null
check "renumbered symbols are no change" "$SHAPEC" check $T/model.json --dynamic "$WORK/w1_static.json" --baseline "$WORK/base.json"
# x.size()[0] is s2 in the baseline and s1 now
if ! grep -q '"s1": {' "$WORK/renum.json" || ! grep -A1 '"s1": {' "$WORK/renum.json" | grep -qF '"source": "x.size()[0]"'; then
  bad "the symbols were not renumbered: the test proves nothing"
elif [ "$RC" -eq 0 ]; then ok
else bad "exit $RC"; fi

"$SHAPEC" check $G/models/view_mod.json --dynamic $G/specs/static.json --baseline "$WORK/vm_static.json" --update >/dev/null 2>&1
"$SHAPEC" check $G/models/view_mod.json --dynamic $G/specs/view_mod_auto.json --baseline "$WORK/vm_auto.json" --update >/dev/null 2>&1
check "an input guard appears" "$SHAPEC" check $G/models/view_mod.json --dynamic $G/specs/view_mod_auto.json --baseline "$WORK/vm_static.json"
expect 1 "input guard ((x.size()[0]*x.size()[1]) % 4) == 0: new: checked on every call"
check "an input guard disappears" "$SHAPEC" check $G/models/view_mod.json --dynamic $G/specs/static.json --baseline "$WORK/vm_auto.json"
expect 1 "input guard ((x.size()[0]*x.size()[1]) % 4) == 0: gone"
NAME="an input guard is listed under the input dim it names, indented below the dim's change"
"$SHAPEC" check $G/models/view_mod.json --dynamic $G/specs/view_mod_auto.json --baseline "$WORK/vm_static.json" >"$WORK/out" 2>&1
if grep -A1 -F "  x.size()[0]: static 3 -> range" "$WORK/out" | grep -qF "      input guard ((x.size()[0]*x.size()[1]) % 4) == 0: new"; then ok
else bad "the guard is not under x.size()[0]"; fi
# the same guard against a baseline that has the dims' ranges but not the guard
/usr/bin/python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); r["input_guards"] = []; json.dump(r, open(sys.argv[2], "w"))' \
  "$WORK/vm_auto.json" "$WORK/vm_no_guard.json"
check "a new input guard on dims whose ranges stayed: under a line for its dim" \
  "$SHAPEC" check $G/models/view_mod.json --dynamic $G/specs/view_mod_auto.json --baseline "$WORK/vm_no_guard.json"
expect 1 "1 change against"
if grep -A1 -F "  x.size()[0]: range unchanged; its input guards:" "$WORK/out" | grep -qF "      input guard ((x.size()[0]*x.size()[1]) % 4) == 0: new"; then :
else bad "no dim line above the guard"; fi

check "the export starts failing: the reason and the fix" "$SHAPEC" check $T/model.json --dynamic $G/specs/tutorial_dynamic_w1.json --baseline "$WORK/base.json" --junit "$WORK/failing.xml"
expect 1 "status: ok -> error: ConstraintViolation:" "    Constraints violated (L['w'].size()[1])!" \
  "      - You marked L['w'].size()[1] as dynamic but your code specialized it to be a constant (5)."
echo '{"dynamic_shapes": {"w": ["_DimHint.AUTO", "dk"], "x": ["_DimHint.AUTO"], "y": ["_DimHint.AUTO", "_DimHint.AUTO"], "z": ["_DimHint.AUTO"]}, "dims": {"dk": {}}}' >"$WORK/w1_named.json"
check "a newly rejected export with a suggested fix shows it" "$SHAPEC" check $T/model.json --dynamic "$WORK/w1_named.json" --baseline "$WORK/base.json"
expect 1 "    Constraints violated (dk)!" "    Suggested fixes:" "      dk = 5"
check "its JUnit: the reason in the failure, a time, a classname Jenkins does not split inside the path" \
  xmllint --noout "$WORK/failing.xml"
if [ "$RC" -eq 0 ] && grep -q '<failure message="status: ok -&gt; error: ConstraintViolation:&#10;    Constraints violated' "$WORK/failing.xml" &&
   grep -q 'classname="shapec.check.examples/tutorial/model_json" name="status" time="[0-9.]*"' "$WORK/failing.xml" &&
   grep -q '<testsuite name="examples/tutorial/model.json" tests="[0-9]*" failures="[0-9]*" errors="0" time="[0-9.]*"' "$WORK/failing.xml"; then ok
else bad "the JUnit lacks the reason, the time or the classname"; fi
check "a missing baseline is a JUnit <error> (setup), not a <failure>" "$SHAPEC" check $T/model.json --baseline "$WORK/none.json" --junit "$WORK/setup.xml"
if [ "$RC" -eq 3 ] && grep -q 'errors="1"' "$WORK/setup.xml" && grep -q '<error message=".*create it with --update)" type="setup-error"' "$WORK/setup.xml" &&
   ! grep -q '<failure' "$WORK/setup.xml"; then ok; else bad "exit $RC, or no <error>"; fi

cat >"$WORK/manifest.json" <<JSON
{"models": [
  {"name": "tutorial", "model": "$SRC/$T/model.json", "spec": "$SRC/$T/spec.json", "baseline": "base.json"},
  {"name": "tutorial with checks", "model": "$SRC/$G/models/tutorial_checks.json", "spec": "$SRC/$G/specs/tutorial_auto.json", "baseline": "base.json"}
]}
JSON
check "a manifest checks every model; one changed" "$SHAPEC" check --manifest "$WORK/manifest.json" --junit "$WORK/all.xml"
expect 1 "tutorial: no change against" "tutorial with checks: 3 changes against" "checked 2 models: 1 changed"
check "the manifest's JUnit has a suite per model" xmllint --noout "$WORK/all.xml"
if [ "$RC" -eq 0 ] && [ "$(grep -c '<testsuite ' "$WORK/all.xml")" -eq 2 ]; then ok; else bad "not two suites"; fi

echo '{"models": [{"model": "m.json"}]}' >"$WORK/bad_manifest.json"
check "a manifest entry without a baseline is refused with its place" "$SHAPEC" check --manifest "$WORK/bad_manifest.json"
if [ "$RC" -eq 1 ] && grep -qF "bad_manifest.json: error[SC1102]: 'model' and 'baseline' are required" "$WORK/err" &&
  grep -qF "at: models[0]" "$WORK/err"; then ok; else bad "exit $RC"; fi
check "--diagnostics-format json: a contract change is a contract-changed diagnostic on the baseline" "$SHAPEC" check --manifest "$WORK/manifest.json" --diagnostics-format json
if [ "$RC" -eq 1 ] && /usr/bin/python3 -c "
import json, sys
doc = json.load(open(sys.argv[1]))
changes = [d for d in doc['diagnostics'] if d['code'] == 'SC1103']
assert len(changes) == 3 and all(d['name'] == 'contract-changed' and d['location']['file'].endswith('.json') for d in changes), doc
assert 'update' in changes[0]['fix']
" "$WORK/err"; then ok; else bad "exit $RC"; fi
check "--diagnostics-format sarif: a missing baseline is one result (SC0101), and stderr holds only the document" "$SHAPEC" check $T/model.json --baseline "$WORK/none.json" --diagnostics-format sarif
if [ "$RC" -eq 3 ] && /usr/bin/python3 -c "
import json, sys
doc = json.load(open(sys.argv[1]))
res = doc['runs'][0]['results']
assert [r['ruleId'] for r in res] == ['SC0101'] and 'create it with --update' in res[0]['message']['text'], res
" "$WORK/err"; then ok; else bad "exit $RC"; fi
check "a missing baseline says how to create it" "$SHAPEC" check $T/model.json --baseline "$WORK/none.json"
if [ "$RC" -eq 3 ] && grep -qF "create it with --update" "$WORK/err"; then ok; else bad "exit $RC"; fi
check "check without --baseline is a usage error" "$SHAPEC" check $T/model.json
[ "$RC" -eq 2 ] && ok || bad "exit $RC"

check "explain: the linear layer pins w's second dim to 5" "$SHAPEC" explain $T/model.json --dynamic $T/spec.json --dim w.1
expect 0 "w.size()[1] (s1, AUTO): static 5" "first pinned by Eq(s1, 5) at node addmm (torch.ops.aten.addmm.default, graph_module.graph.nodes[2], rule matmul)"
check "explain: the broadcast ties x's dim to y's second dim" "$SHAPEC" explain $T/model.json --dynamic $T/spec.json --dim 'x.size()[0]'
expect 0 "Eq(s2, s4) at node add (torch.ops.aten.add.Tensor, graph_module.graph.nodes[0], rule broadcast): replacement; involves x.size()[0], y.size()[1]"
check "explain: an unknown dim is an error" "$SHAPEC" explain $T/model.json --dim q.3
[ "$RC" -eq 1 ] && ok || bad "exit $RC"
check "export --explain on a violation explains the dims involved" \
  "$SHAPEC" export $T/model.json --dynamic $G/specs/tutorial_dynamic_w1.json --no-codegen -o "$WORK/viol" -q --explain
expect 1 "first pinned by Eq(s1, 5) at node addmm"
# a specialization that only the program's guards_code states (torch 2.14's auto_linear): no node to name
C=test/real/corpus/2.14/auto_linear
check "explain: a dim pinned by the program's guards_code names it, not an empty node" \
  "$SHAPEC" explain $C/model.pt2 --dynamic $C/spec.json --dim x.1
expect 0 "first pinned by Eq(s1, 5) from the program's guards_code[0]"
if grep -qF "at node  (" "$WORK/out"; then bad "an empty node is named"; fi

echo "# $FAILS failed"
[ "$FAILS" -eq 0 ]
