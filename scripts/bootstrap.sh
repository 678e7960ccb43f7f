#!/usr/bin/env bash
# Installs the Debian 12 packages shapec needs to build and test.  Idempotent: when
# everything is already installed it prints nothing and changes nothing.
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  llvm-19-dev lld-19   # LLVM 19 C API and its linker (LLVM 14 may also be installed: shapec pins 19)
  llvm-19 clang-19     # llvm-link-19 and clang-19 build the CUDA device kernels into NVPTX bitcode
  libclang-rt-19-dev   # libFuzzer and the sanitizers' runtimes for clang-19 (scripts/fuzz.sh, CTest fuzz_smoke)
  libcjson-dev         # JSON reader
  libxml2-dev libxml2-utils  # JUnit reports, xmllint
  check libsubunit-dev # unit tests
  libzip-dev           # .pt2 archives
  libssl-dev           # SHA-256 (libcrypto): the model and spec a report names
  libopenblas-dev      # GEMM
  libdnnl-dev          # oneDNN: convolutions (loaded by model.so at run time)
  python3-torch python3-torchvision  # the converter, the reference evaluator, the zoo
  python3-pip python3-setuptools python3-wheel  # the Python package's wheel, built offline (python/pyproject.toml)
  python3-jsonschema   # SARIF documents checked against the official schema (test/sarif)
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "bootstrap: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "bootstrap: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
