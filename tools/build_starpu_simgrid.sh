#!/usr/bin/env bash
# Builds StarPU 1.3.10 (Debian's source package, with the CUDA 13 patches of build_starpu_cuda.sh)
# in SimGrid mode against Debian's SimGrid (libsimgrid-dev): codelets are not run, each task takes
# the time its calibrated performance model says, transfers follow the platform's links, CUDA
# workers are simulated (CUDA's headers and libraries must be present to configure them, no GPU).
# Then configure the project with -DONDES_SIMGRID=ON -DONDES_STARPU_PREFIX=<prefix>.
#   tools/build_starpu_simgrid.sh [PREFIX]     default PREFIX: build-sim/starpu-simgrid
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
prefix=${1:-$here/build-sim/starpu-simgrid}
work=$here/build-sim/starpu-src
cuda=${CUDA_HOME:-/usr/local/cuda}
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

if [ -f "$prefix/lib/pkgconfig/starpu-1.3.pc" ]; then
  echo "StarPU with SimGrid already in $prefix"; exit 0
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get install -y -q --no-install-recommends libsimgrid-dev libboost-dev >/dev/null
# The source, patched for CUDA 13, as the CUDA build gets it.
STARPU_WORK=$work STARPU_SRC_ONLY=1 "$here/tools/build_starpu_cuda.sh" "$work/none"
cd "$work/starpu-1.3.10+dfsg"
# The options of the CUDA build (maxcpus, maxcudadev, maxbuffers must match the calibration's), MPI
# off (SimGrid's SMPI needs a static StarPU), SimGrid on.
./configure --prefix="$prefix" --enable-simgrid --with-cuda-dir="$cuda" --enable-maxcpus=128 --enable-maxcudadev=8 \
  --enable-maxbuffers=16 --disable-mpi --disable-opencl --disable-socl --disable-starpufft --disable-fortran \
  --disable-build-examples --disable-build-tests --disable-build-doc --disable-mlr \
  --disable-hdf5 --without-fxt CFLAGS="-O2" > "$work/configure.log" 2>&1 || { tail -30 "$work/configure.log"; exit 1; }
grep -E "simgrid enabled|CUDA enabled|Maximum number of" "$work/configure.log" || true
make -j"$(nproc)" > "$work/make.log" 2>&1 || { grep -E "error" "$work/make.log" | head -30; exit 1; }
make install > "$work/install.log" 2>&1
echo "StarPU with SimGrid installed in $prefix"
