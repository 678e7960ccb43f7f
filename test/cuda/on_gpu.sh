#!/bin/bash
# What a session with a GPU machine runs there (docs/cuda.md, "Record of GPU runs"): the
# GPU bundles made here by the numerics tests (SHAPEC_TEST_BUNDLE, test/cuda/bundle.py)
# run through the Python package, the matrix-product cases again on shapec's own GEMM
# kernel, and the zoo benchmark against PyTorch eager on the same GPU.
# usage: test/cuda/on_gpu.sh OUTDIR BUNDLE.tar.xz...   (from the repository's root)
set -u
out=$1; shift
mkdir -p "$out"
exec > >(tee "$out/on_gpu.log") 2>&1
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
python3 -c 'import torch, numpy; print("torch", torch.__version__, "cuda", torch.version.cuda, "numpy", numpy.__version__)'
# cuBLAS as torch's wheels ship it, for shapec's dlopen of libcublas.so.13/.12
cublas=$(python3 -c 'import nvidia, os; print(os.path.dirname(nvidia.__path__[0]))' 2>/dev/null)
libdir=$(find "${cublas:-/nonexistent}" /usr/local/cuda/lib64 -name 'libcublas.so.1*' 2>/dev/null | head -1)
[ -n "$libdir" ] && export LD_LIBRARY_PATH="$(dirname "$libdir")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "cuBLAS: ${libdir:-not found}"
work=$(mktemp -d)
status=0
for tarball in "$@"; do
    tar -xJf "$tarball" -C "$work" || status=1
done
for bundle in "$work"/*/; do
    echo "== bundle $(basename "$bundle")"
    PYTHONUNBUFFERED=1 python3 test/cuda/run_bundle.py "$bundle" | tee "$out/run_$(basename "$bundle").log" || status=1
done
gemm="mm bmm matmul_3d_2d matmul_vec linear empty_rows_matmul empty_inner_matmul"
for bundle in "$work"/*/; do
    [ -d "$bundle/ops" ] || continue
    echo "== the matrix products on shapec's own GEMM kernel (SHAPEC_CUDA_NO_CUBLAS=1)"
    SHAPEC_CUDA_NO_CUBLAS=1 python3 test/cuda/run_bundle.py "$bundle" --group ops $gemm || status=1
done
# SHAPEC_GPU_SANITIZE="CASE ...": those op cases again under compute-sanitizer (memcheck)
if [ -n "${SHAPEC_GPU_SANITIZE:-}" ] && command -v compute-sanitizer >/dev/null; then
    for bundle in "$work"/*/; do
        [ -d "$bundle/ops" ] || continue
        echo "== compute-sanitizer --tool memcheck on: $SHAPEC_GPU_SANITIZE"
        compute-sanitizer --tool memcheck --target-processes all --error-exitcode 9 \
            python3 test/cuda/run_bundle.py "$bundle" --group ops $SHAPEC_GPU_SANITIZE 2>&1 | tail -40
        [ "${PIPESTATUS[0]}" = 0 ] || status=1
    done
fi
for bundle in "$work"/*/; do
    [ -d "$bundle/zoo" ] || continue
    echo "== benchmark, libraries of bundle $(basename "$bundle")"
    PYTHONUNBUFFERED=1 python3 bench/bench_cuda.py --libs "$bundle/zoo" | tee "$out/bench_$(basename "$bundle").md" || status=1
done
exit $status
