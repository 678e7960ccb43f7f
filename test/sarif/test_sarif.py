#!/usr/bin/python3
"""test_sarif.py - the SARIF that `shapec export` and `shapec check` write validates against
the official SARIF 2.1.0 schema (sarif-schema-2.1.0.json here, as OASIS publishes it in
github.com/oasis-tcs/sarif-spec, sarif-2.1/schema/), its "uri" members absolute URIs and
its "uri-reference" members URI references (RFC 3986), and its primary locations lie on
the user's files, with regions.

Documents: a constraint violation on a .pt2 (the location inside the archive, the spec
entry to edit, and the fix: the spec file replaced by what --fix-spec writes), a spec error (SC0411), a JSON syntax error, `check` against a baseline
that differs, and a model that cannot be read.

usage: test_sarif.py SHAPEC SOURCE_DIR"""
import json
import os
import re
import subprocess
import sys
import tempfile

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import tap  # noqa: E402

URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$")          # scheme ":" ...
REFERENCE = re.compile(r"^([A-Za-z0-9\-._~/:?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*$")
SCHEME_LIKE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def checker():
    c = jsonschema.FormatChecker()
    c.checks("uri")(lambda s: not isinstance(s, str) or bool(URI.match(s)))

    def reference(s):
        if not isinstance(s, str) or not REFERENCE.match(s):
            return not isinstance(s, str)
        # a relative reference's first segment holds no ':' (it would read as a scheme)
        return not SCHEME_LIKE.match(s) or s.startswith("file:")
    c.checks("uri-reference")(reference)
    return c


def main():
    shapec, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    schema = json.load(open(os.path.join(HERE, "sarif-schema-2.1.0.json")))
    validator = jsonschema.Draft4Validator(schema, format_checker=checker())
    t = tap.Checks()
    tut = os.path.join(src, "examples", "tutorial")
    pt2 = os.path.join(src, "test", "real", "corpus", "2.14", "zoo_tutorial", "model.pt2")
    with tempfile.TemporaryDirectory() as tmp:
        def write(name, text):
            path = os.path.join(tmp, name)
            with open(path, "w") as f:
                f.write(text)
            return path
        violating = write("violating spec.json", '{"dynamic_shapes": [["_DimHint.AUTO", "dw"], ["_DimHint.AUTO"], '
                                                 '["_DimHint.AUTO", "_DimHint.AUTO"], ["_DimHint.AUTO"]],\n'
                                                 ' "dims": {"dw": {"min": 2, "max": 64, "derived": []}}}\n')
        conflict = write("conflict.json", '{"dynamic_shapes": [["_DimHint.AUTO", "_DimHint.AUTO"], ["dx"], ["dx", '
                                          '"_DimHint.AUTO"], ["_DimHint.AUTO"]], "dims": {"dx": {"min": 2, "max": 64, '
                                          '"derived": []}}}')
        syntax = write("syntax.json", '{"dynamic_shapes": [1, 2,]}')
        baseline = os.path.join(tmp, "baseline.json")
        subprocess.run([shapec, "export", os.path.join(tut, "model.json"), "--dynamic", os.path.join(tut, "spec.json"),
                        "--no-codegen", "-q", "--report", baseline, "-o", os.path.join(tmp, "base")], check=True,
                       capture_output=True)
        cases = {
            "a violation in a .pt2": ["export", pt2, "--dynamic", violating, "--no-codegen", "-q"],
            "a spec error (SC0411)": ["export", os.path.join(tut, "model.json"), "--dynamic", conflict, "--no-codegen", "-q"],
            "a JSON syntax error": ["export", os.path.join(tut, "model.json"), "--dynamic", syntax, "--no-codegen", "-q"],
            "check against a differing baseline": ["check", os.path.join(tut, "model.json"), "--dynamic", violating,
                                                   "--baseline", baseline],
            "a model that cannot be read": ["export", os.path.join(tmp, "missing.json"), "--no-codegen", "-q"],
        }
        for what, args in cases.items():
            r = subprocess.run([shapec, *args, "--diagnostics-format", "sarif"] + (["-o", os.path.join(tmp, "out")]
                                                                                  if args[0] == "export" else []),
                               capture_output=True, text=True, cwd=tmp)
            try:
                doc = json.loads(r.stderr[r.stderr.find("{"):] if "{" in r.stderr else r.stdout)
            except ValueError as e:
                t.check(False, f"{what}: a JSON document ({e}; stderr {r.stderr[-300:]!r})")
                continue
            errors = [f"{'/'.join(map(str, e.path))}: {e.message}" for e in validator.iter_errors(doc)]
            t.check(r.returncode != 0 and not errors, f"{what}: exit {r.returncode}, valid SARIF 2.1.0"
                    + ("" if not errors else ": " + "; ".join(errors[:3])))
            results = doc["runs"][0]["results"]
            t.check(len(results) > 0, f"{what}: {len(results)} results")
            for res in results:
                phys = res["locations"][0].get("physicalLocation", {})
                uri = phys.get("artifactLocation", {}).get("uri", "")
                user_file = uri.endswith((".json", ".pt2")) or "missing" in uri
                if "violation" in what or "spec error" in what or "syntax" in what:
                    t.check(user_file and phys.get("region", {}).get("startLine", 0) > 0,
                            f"{what}: {res['ruleId']}'s primary location is a line of the user's file ({uri})")
            if "violation" in what:
                res = results[0]
                uri = res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                t.check(uri.startswith("file:///") and uri.endswith("violating%20spec.json"),
                        f"{what}: the spec as a file URI, its space percent-encoded ({uri})")
                related = [r["physicalLocation"]["artifactLocation"]["uri"] for r in res.get("relatedLocations", [])]
                t.check(any(u.endswith("model.pt2") for u in related),
                        f"{what}: the program's node related, at the archive itself ({related})")
                # the fix: the spec replaced as a whole by what --fix-spec writes
                fixed_path = os.path.join(tmp, "fixed.json")
                subprocess.run([shapec, *args, "--fix-spec", fixed_path, "-o", os.path.join(tmp, "out2")],
                               capture_output=True, cwd=tmp)
                fixes = res.get("fixes", [])
                change = fixes[0]["artifactChanges"][0] if fixes and fixes[0].get("artifactChanges") else {}
                rep = change.get("replacements", [{}])[0]
                old = open(violating).read()
                region = rep.get("deletedRegion", {})
                start, length = region.get("charOffset", -1), region.get("charLength", -1)
                applied = old[:start] + rep.get("insertedContent", {}).get("text", "") + old[start + length:] \
                    if start >= 0 and length >= 0 else None
                t.check(change.get("artifactLocation", {}).get("uri") == uri and start == 0 and length == len(old)
                        and os.path.exists(fixed_path) and applied is not None
                        and json.loads(applied) == json.load(open(fixed_path)),
                        f"{what}: a fix that replaces the spec by --fix-spec's corrected one "
                        f"({fixes[0].get('description', {}).get('text') if fixes else 'no fixes'})")
    return t.finish()


if __name__ == "__main__":
    sys.exit(main())
