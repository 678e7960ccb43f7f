#!/usr/bin/env bash
# The Python package's wheel (python/pyproject.toml), built offline with Debian's pip and
# setuptools from a copy of python/, holds the package at the CLI's version, installs into a
# folder of its own and imports from there.
#   usage: test_wheel.sh SHAPEC SOURCE_DIR
set -euo pipefail
shapec=$(realpath "$1")
src=$(realpath "$2")
work=$(mktemp -d "${TMPDIR:-/tmp}/shapec-wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp -r "$src/python" "$work/python"  # the build writes build/ and *.egg-info beside the sources
/usr/bin/python3 -m pip wheel --no-deps --no-build-isolation --no-index -q -w "$work/dist" "$work/python" >"$work/build.log" 2>&1 ||
  { cat "$work/build.log"; echo "not ok - the wheel does not build offline"; exit 1; }
version=$("$shapec" --version | awk '{print $2}')
wheel=$(ls "$work/dist"/shapec-"$version"-py3-none-any.whl 2>/dev/null) ||
  { ls "$work/dist"; echo "not ok - no shapec-$version-py3-none-any.whl"; exit 1; }
/usr/bin/python3 - "$wheel" <<'PY' || { echo "not ok - the wheel's contents"; exit 1; }
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
for need in ("shapec/__init__.py", "shapec/model.py", "shapec/cli.py", "shapec/_abi.py", "shapec/observations.py"):
    assert need in names, (need, names)
meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
assert "License: MIT" in zipfile.ZipFile(sys.argv[1]).read(meta).decode(), "no License: MIT in METADATA"
PY
echo "ok - python/pyproject.toml builds shapec-$version-py3-none-any.whl offline with Debian's pip and setuptools"
/usr/bin/python3 -m pip install --no-deps --no-index -q --target "$work/site" "$wheel" >/dev/null 2>&1 ||
  { echo "not ok - the wheel does not install"; exit 1; }
SHAPEC="$shapec" PYTHONPATH="$work/site" /usr/bin/python3 - "$work/site" "$version" "$src/examples/tutorial" <<'PY' ||
import os, sys
import shapec
assert shapec.__file__.startswith(sys.argv[1]), shapec.__file__
assert shapec.__version__ == sys.argv[2], shapec.__version__
m = shapec.export(os.path.join(sys.argv[3], "model.json"), os.path.join(sys.argv[3], "spec.json"))
assert m.input_names == ["w", "x", "y", "z"], m.input_names
PY
  { echo "not ok - the installed wheel does not import or export"; exit 1; }
echo "ok - the installed wheel imports (shapec $version) and exports a model"
