#!/usr/bin/env bash
# real-torch.sh - real PyTorch 2.x beside shapec, in a Debian chroot (docs/real-torch.md).
#
#   scripts/real-torch.sh [--torch 2.14|2.6] [--aoti|--peers] setup
#       builds the chroot if it is not there yet (idempotent): Debian sid for PyTorch
#       2.14.1, trixie for 2.6.0; --aoti also installs what AOTInductor compiles with
#       (--peers: and ONNX Runtime with the onnx package and llama.cpp, the peers of bench/)
#   scripts/real-torch.sh [--torch 2.14|2.6] run FILE.py [ARGS...]
#       runs FILE.py with the chroot's python3, in this repository (mounted at /src, the
#       working directory), the host's /tmp as its /tmp; sets up the chroot first if needed
#   scripts/real-torch.sh [--torch ...] path
#       prints the chroot's folder
#
# The chroots live under $SHAPEC_REAL_TORCH_DIR (default /var/lib/shapec/real-torch), about
# 2 GB each.  Needs root and the Debian mirror of /etc/apt; CI does not use this script.
set -euo pipefail

torch=2.14
aoti=0
peers=0
while [ $# -gt 0 ]; do
  case "$1" in
    --torch) torch="$2"; shift 2 ;;
    --aoti) aoti=1; shift ;;
    --peers) aoti=1; peers=1; shift ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) break ;;
  esac
done
cmd="${1:-}"
[ -n "$cmd" ] || { echo "usage: $0 [--torch 2.14|2.6] [--aoti|--peers] setup|run FILE.py [ARGS...]|path" >&2; exit 2; }
shift

case "$torch" in
  2.14|2.14.1) suite=sid ;;
  2.6|2.6.0) suite=trixie ;;
  *) echo "real-torch: --torch $torch: use 2.14 (Debian sid) or 2.6 (Debian trixie)" >&2; exit 2 ;;
esac
root_dir="${SHAPEC_REAL_TORCH_DIR:-/var/lib/shapec/real-torch}"
dir="$root_dir/$suite"
repo="$(cd "$(dirname "$0")/.." && pwd)"

# The mirror this machine's apt uses (deb822 or one-line sources).
mirror() {
  local m
  m=$(grep -hE '^URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -v security | head -n 1)
  [ -n "$m" ] || m=$(grep -hE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
                     awk '{print $2}' | grep -v security | head -n 1)
  echo "${m:-http://deb.debian.org/debian}"
}

in_chroot() { # runs a command inside the chroot, with /proc, /dev, /tmp and the repository mounted
  unshare --mount --propagation private -- bash -c '
    set -e
    dir=$1; repo=$2; shift 2
    mkdir -p "$dir/src" "$dir/proc" "$dir/dev" "$dir/tmp"
    mount --bind /proc "$dir/proc"
    mount --bind /dev "$dir/dev"
    mount --bind /tmp "$dir/tmp"
    mount --bind "$repo" "$dir/src"
    exec chroot "$dir" "$@"' in_chroot "$dir" "$repo" "$@"
}

setup() {
  [ "$(id -u)" -eq 0 ] || { echo "real-torch: setup needs root" >&2; exit 1; }
  local stamp="$dir/.shapec-ready" want="torch transformers aoti=$aoti peers2=$peers"
  [ $suite = sid ] || want="torch transformers(n/a) aoti=$aoti"
  if [ -f "$stamp" ] && grep -q transformers "$stamp" && { [ "$aoti" = 0 ] || grep -q 'aoti=1' "$stamp"; } &&
     { [ "$peers" = 0 ] || grep -q "peers2=1" "$stamp"; }; then return 0; fi
  command -v debootstrap >/dev/null || {
    echo "real-torch: installing debootstrap" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  }
  local url; url=$(mirror)
  if [ ! -x "$dir/usr/bin/apt-get" ]; then
    echo "real-torch: debootstrap $suite into $dir (a few minutes)" >&2
    mkdir -p "$root_dir"
    rm -rf "$dir.partial"
    # both start from trixie; sid's packages come on top (sid's own Release file may be
    # past its date on the mirror, which debootstrap cannot be told to accept)
    debootstrap --variant=minbase trixie "$dir.partial" "$url" >/dev/null
    [ $suite = sid ] && echo "deb $url sid main" >> "$dir.partial/etc/apt/sources.list"
    mv "$dir.partial" "$dir"
  fi
  local apt_opts=(-o Acquire::Check-Valid-Until=false -o Dpkg::Use-Pty=0)
  [ $suite = sid ] && apt_opts+=(-t sid)
  in_chroot apt-get "${apt_opts[@]}" update -qq
  local pkgs=(python3-torch python3-torchvision python3-numpy libopenblas0-pthread)
  # sid also has what users pair with torch: Hugging Face transformers (models built from
  # their configs: no hub here) for test/hf/gen_hf.py
  [ $suite = sid ] && pkgs+=(python3-transformers)
  [ "$aoti" = 1 ] && pkgs+=(libtorch-dev g++ libomp-dev python3-dev)
  # the runtime people deploy on CPUs, beside torch in bench/ (ONNX files from torch's own exporter)
  [ "$peers" = 1 ] && [ $suite = sid ] && pkgs+=(python3-onnxruntime python3-onnx llama.cpp-tools python3-gguf)
  echo "real-torch: installing ${pkgs[*]} in $suite (a few minutes)" >&2
  in_chroot env DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" install -y -qq --no-install-recommends \
    "${pkgs[@]}" >/dev/null
  in_chroot python3 -c 'import torch; print(torch.__version__)' > "$dir/.torch-version"
  echo "$want" > "$stamp"
  echo "real-torch: $suite ready, PyTorch $(cat "$dir/.torch-version")" >&2
}

case "$cmd" in
  setup) setup ;;
  path) echo "$dir" ;;
  run)
    [ $# -ge 1 ] || { echo "usage: $0 run FILE.py [ARGS...]" >&2; exit 2; }
    setup
    file="$1"; shift
    case "$file" in /*) rel="${file#"$repo"/}" ;; *) rel="$file" ;; esac
    [ -f "$repo/$rel" ] || { echo "real-torch: $file is not a file of this repository" >&2; exit 2; }
    in_chroot env -C /src PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=/src/tools python3 "/src/$rel" "$@"
    ;;
  *) echo "real-torch: unknown command '$cmd' (setup, run, path)" >&2; exit 2 ;;
esac
