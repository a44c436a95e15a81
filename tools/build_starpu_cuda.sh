#!/usr/bin/env bash
# Builds StarPU 1.3.10 (Debian's own source package) with CUDA and MPI into a prefix inside the
# build tree, applying the project's patches for CUDA 13 (see shared facts in the README):
#   1. CUDA 13 rejects the legacy cublas.h next to cublas_v2.h: drop it and its three legacy calls.
#   2. cudaDeviceProp::computeMode is gone: read it with cudaDeviceGetAttribute.
# Then configure the project with -DONDES_STARPU_PREFIX=<prefix> -DONDES_CUDA=ON (tools/build_gpu.sh).
#   tools/build_starpu_cuda.sh [PREFIX]     default PREFIX: build-gpu/starpu-cuda
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
prefix=${1:-$here/build-gpu/starpu-cuda}
work=${STARPU_WORK:-$here/build-gpu/starpu-src}  # tools/build_starpu_simgrid.sh sets it
cuda=${CUDA_HOME:-/usr/local/cuda}
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

if [ -f "$prefix/lib/pkgconfig/starpu-1.3.pc" ]; then
  echo "StarPU with CUDA already in $prefix"; exit 0
fi
[ -x "$cuda/bin/nvcc" ] || { echo "no nvcc under $cuda (set CUDA_HOME)" >&2; exit 1; }

# Debian's source package needs a deb-src entry beside the deb one.
if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
  printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' |
    $sudo tee /etc/apt/sources.list.d/ondes3d-src.sources >/dev/null
  $sudo apt-get update -q
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get install -y -q --no-install-recommends dpkg-dev libhwloc-dev libopenmpi-dev openmpi-bin pkg-config

mkdir -p "$work"
cd "$work"
rm -rf starpu-1.3.10+dfsg  # patch a fresh copy every time
apt-get source -q starpu=1.3.10+dfsg-2 >/dev/null
cd starpu-1.3.10+dfsg

# Patch 1: legacy cuBLAS header and calls.
for f in src/drivers/cuda/starpu_cublas.c src/drivers/cuda/driver_cuda.h; do
  sed -i 's|^#include <cublas.h>|#include <cublas_v2.h> /* ondes3d: legacy cublas.h replaced for CUDA 13 */|' "$f"
done
# Statements become empty ones, so the `if`s that guarded them stay well-formed.
sed -i -e 's|cublasStatus cublasst = cublasInit();|cublasStatus_t cublasst = CUBLAS_STATUS_SUCCESS; /* cublasInit() removed (CUDA 13) */|' \
       -e 's|^\(\s*\)cublasShutdown();|\1; /* cublasShutdown() removed (CUDA 13) */|' \
       -e 's|^\(\s*\)cublasSetKernelStream(\(.*\));|\1; /* cublasSetKernelStream(\2) removed (CUDA 13) */|' \
       src/drivers/cuda/starpu_cublas.c
# Patch 2: computeMode through the attribute API.
python3 - <<'PY'
import re
p = 'src/drivers/cuda/driver_cuda.c'
s = open(p).read()
s2 = re.sub(r'props\[(\w+)\]\.computeMode', r'_ondes_compute_mode(\1)', s)
if s2 != s:
    helper = ('\nstatic int _ondes_compute_mode(int dev)\n{\n\tint mode = 0;\n'
              '\tcudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, dev);\n\treturn mode;\n}\n')
    idx = s2.index('\n', s2.index('#include "driver_cuda.h"'))
    s2 = s2[:idx + 1] + helper + s2[idx + 1:]
open(p, 'w').write(s2)
PY
grep -rn "computeMode\|cublasInit\b\|<cublas.h>" src/drivers/cuda/ | grep -v "removed\|_ondes_compute_mode\|ondes3d" || true
# STARPU_SRC_ONLY=1: the patched source in $work/starpu-1.3.10+dfsg, nothing built (the SimGrid build).
[ -z "${STARPU_SRC_ONLY:-}" ] || exit 0

./configure --prefix="$prefix" --with-cuda-dir="$cuda" --enable-maxcpus=128 --enable-maxcudadev=8 \
  --enable-maxbuffers=16 --enable-mpi --disable-opencl --disable-socl --disable-starpufft --disable-fortran \
  --disable-build-examples --disable-build-tests --disable-build-doc --disable-starpupy --disable-mlr \
  --disable-hdf5 --without-fxt CFLAGS="-O2" > "$work/configure.log" 2>&1 || { tail -30 "$work/configure.log"; exit 1; }
grep -E "CUDA enabled|MPI enabled|Maximum number of" "$work/configure.log" || true
make -j"$(nproc)" > "$work/make.log" 2>&1 || { grep -E "error" "$work/make.log" | head -30; exit 1; }
make install > "$work/install.log" 2>&1
echo "StarPU with CUDA installed in $prefix"
