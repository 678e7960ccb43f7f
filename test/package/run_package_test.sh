#!/usr/bin/env bash
# Installs shapec into a fresh prefix, builds test/package/consumer against it
# (find_package(shapec) + shapec_add_model), runs it, checks that touching the spec
# rebuilds the model, and that pkg-config finds the header.
#   usage: run_package_test.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$(realpath "$1")
src=$(realpath "$2")
work=$(mktemp -d "${TMPDIR:-/tmp}/shapec-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
for doc in LICENSE CHANGELOG.md; do
  [ -f "$work/prefix/share/doc/shapec/$doc" ] || { echo "not ok - share/doc/shapec/$doc is not installed"; exit 1; }
done
echo "ok - the license and the changelog install into share/doc/shapec"
cp "$src/examples/tutorial/spec.json" "$work/spec.json"
echo '{"dynamic_shapes": {"w": [null, null], "x": [null], "y": [null, null], "z": [null]}}' >"$work/static.json"
# a model name with dots: its weights are tut.v2.safetensors, as shapec finds them
cp "$src/examples/tutorial/model.json" "$work/tut.v2.json"
cp "$src/examples/tutorial/model.safetensors" "$work/tut.v2.safetensors"
with_cuda=OFF  # a cpu,cuda model too where libdevice is here to build it
[ -f "${SHAPEC_LIBDEVICE:-${CUDA_HOME:-/usr/local/cuda}/nvvm/libdevice/libdevice.10.bc}" ] && with_cuda=ON
cmake -S "$src/test/package/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DMODEL_JSON="$work/tut.v2.json" -DSPEC_JSON="$work/spec.json" -DSTATIC_SPEC_JSON="$work/static.json" \
  -DWITH_CUDA=$with_cuda >/dev/null
cmake --build "$work/consumer" >"$work/build1.log" 2>&1 || { cat "$work/build1.log"; exit 1; }
grep -q "shapec: compiling tutorial" "$work/build1.log" || { echo "not ok - the model was not compiled"; exit 1; }
"$work/consumer/consumer"
echo "ok - a consumer project links the model through shapec_add_model and runs it"
"$work/consumer/two_models" || { echo "not ok - two named models in one executable"; exit 1; }
[ "$(readelf -d "$work/consumer/two_models" | grep -c 'NEEDED.*tut_\(dyn\|fixed\)\.so')" = 2 ] ||
  { echo "not ok - two_models does not need tut_dyn.so and tut_fixed.so"; exit 1; }
echo "ok - two models exported with NAME link into one executable, each answering for itself"
cmake --install "$work/consumer" --prefix "$work/app" >/dev/null
for lib in tutorial tut_dyn tut_fixed; do
  [ -f "$work/app/lib/$lib.so" ] && [ ! -L "$work/app/lib/$lib.so" ] || { echo "not ok - $lib.so is not installed as a file"; exit 1; }
done
readelf -d "$work/app/bin/two_models" | grep -q 'RUNPATH.*\$ORIGIN/../lib' || { echo "not ok - two_models has no \$ORIGIN RUNPATH"; exit 1; }
mv "$work/consumer" "$work/consumer.moved"  # nothing may come from the build tree
"$work/app/bin/two_models" >/dev/null || { echo "not ok - the installed two_models does not run from its prefix"; exit 1; }
"$work/app/bin/consumer" >/dev/null || { echo "not ok - the installed consumer does not run from its prefix"; exit 1; }
mv "$work/consumer.moved" "$work/consumer"
echo "ok - an app with two models (and one with the default NAME) installs into a prefix and runs from there"
grep -q -- "--cpu x86-64-v3" "$work/consumer/CMakeFiles/tutorial_shapec.dir/build.make" 2>/dev/null ||
  grep -rq -- "--cpu x86-64-v3" "$work/consumer/CMakeFiles" ||
  { echo "not ok - shapec_add_model does not build for x86-64-v3 by default"; exit 1; }
echo "ok - shapec_add_model builds for x86-64-v3 unless told otherwise (CPU native: the build machine)"
if [ $with_cuda = ON ]; then
  "$work/consumer/consumer_cuda"
  grep -q ".target sm_90" "$work/consumer/shapec/tutorial_cuda/model.ptx" || { echo "not ok - no sm_90 PTX"; exit 1; }
  echo "ok - shapec_add_model(... TARGET cpu,cuda CUDA_ARCH sm_90) builds a library with both, run here on the CPU"
fi
cmake --build "$work/consumer" >"$work/build2.log" 2>&1
if grep -q "shapec: compiling tutorial" "$work/build2.log"; then echo "not ok - rebuilt without a change"; exit 1; fi
sleep 1 && touch "$work/spec.json"
cmake --build "$work/consumer" >"$work/build3.log" 2>&1
grep -q "shapec: compiling tutorial " "$work/build3.log" || { echo "not ok - a changed spec did not rebuild the model"; exit 1; }
echo "ok - the model is rebuilt when its spec changes, and only then"
sleep 1 && touch "$work/tut.v2.safetensors"
cmake --build "$work/consumer" >"$work/build4.log" 2>&1
grep -q "shapec: compiling tutorial " "$work/build4.log" || { echo "not ok - changed weights (tut.v2.safetensors) did not rebuild the model"; exit 1; }
echo "ok - the model is rebuilt when its weights change, also for a name with dots (tut.v2.json)"
so=$(find "$work/consumer" -name model.so -path '*tutorial/*' | head -n 1)
pydir=$(/usr/bin/python3 -c 'import sys; print("lib/python3.%d/dist-packages" % sys.version_info[1])')
# the folder Debian's python3 searches under /usr/local (and /usr) for this prefix
/usr/bin/python3 -c 'import sys; assert "/usr/local/" + sys.argv[1] in sys.path, sys.path' "$pydir" ||
  { echo "not ok - $pydir is not where Debian's python3 looks"; exit 1; }
PATH="$work/prefix/bin:$PATH" PYTHONPATH="$work/prefix/$pydir" /usr/bin/python3 - "$so" "$src/examples/tutorial" "$pydir" <<'PY' ||
import os, sys
import numpy as np
import shapec
assert os.path.dirname(shapec.__file__).endswith(sys.argv[3] + "/shapec"), shapec.__file__
m = shapec.load(sys.argv[1])
out = m(**{n: np.load(os.path.join(sys.argv[2], "inputs", n + ".npy")) for n in m.input_names})
assert len(out) == len(m.output_names) and all(np.isfinite(o).all() for o in out)
# shapec.export drives the installed command (found on PATH)
m2 = shapec.export(os.path.join(sys.argv[2], "model.json"), os.path.join(sys.argv[2], "spec.json"))
assert m2.output_names == m.output_names
PY
  { echo "not ok - the installed Python package cannot call the model or export one"; exit 1; }
echo "ok - cmake --install puts the Python package under $pydir (searched by Debian's python3), and it calls and exports models"
cflags=$(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --cflags shapec)
[ -f "$(echo "$cflags" | sed 's/^-I//;s/ *$//')/shapec/runtime.h" ] || { echo "not ok - pkg-config gives '$cflags'"; exit 1; }
echo "ok - pkg-config --cflags shapec points at shapec/runtime.h"
