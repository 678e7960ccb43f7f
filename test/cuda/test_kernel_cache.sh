#!/bin/sh
# The kernel cache (backends/cuda/kernel_cache.h): the first CUDA export compiles shapec's
# device kernels and stores their PTX, the next takes it from the cache and writes the same
# library byte for byte; a damaged or foreign entry is ignored and replaced; another arch
# is another entry; an empty SHAPEC_CACHE_DIR turns the cache off; a folder that cannot be
# written never fails the export; --emit-llvm always compiles.
# usage: test_kernel_cache.sh SHAPEC SOURCE_DIR
set -eu
shapec=$1 src=$2
model=$src/examples/tutorial/model.json spec=$src/examples/tutorial/spec.json
dir=$(mktemp -d)
trap 'chmod -R u+w "$dir"; rm -rf "$dir"' EXIT
fail() { echo "not ok - $*"; exit 1; }

export_to() { # OUTDIR ARCH [extra flags]: exports with -v, the log in OUTDIR.log
  out=$1 arch=$2
  shift 2
  "$shapec" export "$model" --dynamic "$spec" -o "$out" -v --target cpu,cuda --cuda-arch "$arch" "$@" >"$out.log" 2>&1 ||
    { cat "$out.log"; fail "export to $out"; }
}

# no libdevice here: the CUDA export itself cannot run
if ! "$shapec" export "$model" --dynamic "$spec" -o "$dir/probe" -q --target cuda >"$dir/probe.log" 2>&1; then
  grep -q libdevice "$dir/probe.log" && { echo "skipped: no libdevice (CUDA toolkit) here"; exit 77; }
  cat "$dir/probe.log"; fail "a CUDA export"
fi

export SHAPEC_CACHE_DIR="$dir/cache"
export_to "$dir/a" sm_80
grep -q "CUDA device kernels compiled, cached as $dir/cache/cuda-kernels-sm_80-" "$dir/a.log" || fail "the first export compiles and stores"
test "$(ls "$dir/cache" | wc -l)" -eq 1 || fail "one entry after one export"
entry=$(ls "$dir/cache"/*)
head -1 "$entry" | grep -q '^// shapec kernel cache sha256=[0-9a-f]\{64\}$' || fail "the entry starts with its digest"
echo "ok - the first export compiles the kernels and stores their PTX"

export_to "$dir/b" sm_80
grep -q "CUDA device kernels from the cache: $entry" "$dir/b.log" || fail "the second export reads the cache"
cmp -s "$dir/a/model.so" "$dir/b/model.so" || fail "model.so differs between a compiled and a cached export"
cmp -s "$dir/a/model_kernels.ptx" "$dir/b/model_kernels.ptx" || fail "model_kernels.ptx differs"
tail -n +2 "$entry" | cmp -s - "$dir/a/model_kernels.ptx" || fail "the entry holds model_kernels.ptx"
echo "ok - the second export takes the PTX from the cache and writes the same library byte for byte"

# one changed character: the digest no longer matches, so the entry is compiled again
sed -i 's/\.target sm_80/.target sm_81/' "$entry"
export_to "$dir/c" sm_80
grep -q "CUDA device kernels compiled" "$dir/c.log" || fail "a damaged entry is not used"
cmp -s "$dir/a/model.so" "$dir/c/model.so" || fail "the library after a damaged entry"
tail -n +2 "$entry" | cmp -s - "$dir/a/model_kernels.ptx" || fail "the damaged entry is replaced"
printf 'not a cache entry' >"$entry"
export_to "$dir/c2" sm_80
grep -q "CUDA device kernels compiled" "$dir/c2.log" || fail "a truncated entry is not used"
echo "ok - a damaged or truncated entry is ignored and replaced"

export_to "$dir/d" sm_90
grep -q "cached as $dir/cache/cuda-kernels-sm_90-" "$dir/d.log" || fail "sm_90 is its own entry"
grep -q '^\.target sm_90' "$dir/d/model_kernels.ptx" || fail "sm_90's PTX targets sm_90"
test "$(ls "$dir/cache" | wc -l)" -eq 2 || fail "two entries for two archs"
echo "ok - another arch is another entry"

export_to "$dir/e" sm_80 --emit-llvm
grep -q "CUDA device kernels" "$dir/e.log" && fail "--emit-llvm compiles, and says nothing of the cache"
test -s "$dir/e/model_kernels.ll" || fail "--emit-llvm writes model_kernels.ll"
echo "ok - --emit-llvm compiles the kernels for their IR"

SHAPEC_CACHE_DIR="" export_to "$dir/f" sm_80
grep -q "CUDA device kernels" "$dir/f.log" && fail "an empty SHAPEC_CACHE_DIR turns the cache off"
cmp -s "$dir/a/model.so" "$dir/f/model.so" || fail "the library without the cache"
echo "ok - an empty SHAPEC_CACHE_DIR turns the cache off"

mkdir "$dir/ro"
chmod a-w "$dir/ro"
if [ "$(id -u)" -ne 0 ]; then
  SHAPEC_CACHE_DIR="$dir/ro/cache" export_to "$dir/g" sm_80
  cmp -s "$dir/a/model.so" "$dir/g/model.so" || fail "the library beside a folder it cannot write"
  echo "ok - a cache folder that cannot be written does not fail the export"
fi
SHAPEC_CACHE_DIR="$model/cache" export_to "$dir/h" sm_80 # under a file: cannot be created
cmp -s "$dir/a/model.so" "$dir/h/model.so" || fail "the library beside a cache that cannot be created"
echo "ok - a cache folder that cannot be created does not fail the export"

# past 16 entries the oldest go
for i in $(seq 1 20); do
  printf 'x' >"$dir/cache/cuda-kernels-sm_80-old$i.ptx"
  touch -d "2020-01-01 00:00:$i" "$dir/cache/cuda-kernels-sm_80-old$i.ptx"
done
rm -f "$entry"
export_to "$dir/i" sm_80
test "$(ls "$dir/cache" | wc -l)" -eq 16 || fail "16 entries kept, $(ls "$dir/cache" | wc -l) found"
test -f "$entry" || fail "the new entry is kept"
test -f "$dir/cache/cuda-kernels-sm_80-old1.ptx" && fail "the oldest entry is removed"
echo "ok - the cache keeps its 16 newest entries"
