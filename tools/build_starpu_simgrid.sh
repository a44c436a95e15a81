#!/usr/bin/env bash
# Builds StarPU 1.3.10 (Debian's source package, with the CUDA 13 patches of build_starpu_cuda.sh)
# in SimGrid mode against Debian's SimGrid (libsimgrid-dev): codelets are not run, each task takes
# the time its calibrated performance model says, transfers follow the platform's links, CUDA
# workers are simulated (CUDA's headers and libraries must be present to configure them, no GPU).
# Then the project's simulated program against it (-DONDES_SIMGRID=ON): build-sim/project/ondes3d.
#   tools/build_starpu_simgrid.sh [PREFIX]         default PREFIX: build-sim/starpu-simgrid
# With --mpi: StarPU-MPI under SimGrid's SMPI (simulated ranks and nodes, tools/sim_nodes.sh), which
# needs a static StarPU built with smpicc; then the project with -DONDES_SIMGRID_MPI=ON:
# build-sim/smpi/ondes3d.so, which smpirun loads once per rank.
#   tools/build_starpu_simgrid.sh --mpi [PREFIX]   default PREFIX: build-sim/starpu-smpi
# On the 2-core machine: StarPU about a minute, the project about four (its CUDA kernels compiled too).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
mpi=""
if [ "${1:-}" = --mpi ]; then mpi=1; shift; fi
default_prefix=$here/build-sim/starpu-simgrid
[ -z "$mpi" ] || default_prefix=$here/build-sim/starpu-smpi
prefix=${1:-$default_prefix}
work=$here/build-sim/starpu-src
cuda=${CUDA_HOME:-/usr/local/cuda}
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

# The project's simulated program against the StarPU of PREFIX.
build_project() {
  local dir=$here/build-sim/project options=(-DONDES_SIMGRID=ON -DONDES_STARPU_PREFIX="$prefix" -DCMAKE_BUILD_RPATH="$prefix/lib")
  if [ -n "$mpi" ]; then dir=$here/build-sim/smpi options+=(-DONDES_SIMGRID_MPI=ON); fi
  cmake -S "$here" -B "$dir" -DCMAKE_BUILD_TYPE=Release "${options[@]}" > /dev/null
  cmake --build "$dir" -j"$(nproc)" --target ondes3d > "$dir/build.log" 2>&1 || { grep -E "error" "$dir/build.log" | head -30; exit 1; }
  echo "the simulated ondes3d built in $dir"
}
if [ -f "$prefix/lib/pkgconfig/starpu-1.3.pc" ]; then
  echo "StarPU with SimGrid already in $prefix"
  build_project
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get install -y -q --no-install-recommends libsimgrid-dev libboost-dev xsltproc >/dev/null
# The source, patched for CUDA 13, as the CUDA build gets it.
STARPU_WORK=$work STARPU_SRC_ONLY=1 "$here/tools/build_starpu_cuda.sh" "$work/none"
src=$work/starpu-1.3.10+dfsg
# The options of the CUDA build (maxcpus, maxcudadev, maxbuffers must match the calibration's),
# SimGrid on; MPI off, or (--mpi) StarPU-MPI over SMPI, static (SMPI privatizes a rank's globals by
# loading the program once per rank, which a shared libstarpu would escape), in a copy of the source.
mpi_options=(--disable-mpi)
if [ -n "$mpi" ]; then
  rm -rf "$work/smpi-src" && cp -r "$src" "$work/smpi-src" && src=$work/smpi-src
  mpi_options=(--enable-mpi --disable-shared --enable-static --with-mpicc=/usr/bin/smpicc --with-mpicxx=/usr/bin/smpicxx
               --with-smpirun=/usr/bin/smpirun)
fi
cd "$src"
./configure --prefix="$prefix" --enable-simgrid --with-cuda-dir="$cuda" --enable-maxcpus=128 --enable-maxcudadev=8 \
  --enable-maxbuffers=16 "${mpi_options[@]}" --disable-opencl --disable-socl --disable-starpufft --disable-fortran \
  --disable-build-examples --disable-build-tests --disable-build-doc --disable-mlr \
  --disable-hdf5 --without-fxt CFLAGS="-O2" > "$work/configure.log" 2>&1 || { tail -30 "$work/configure.log"; exit 1; }
grep -E "simgrid enabled|CUDA enabled|Maximum number of" "$work/configure.log" || true
make -j"$(nproc)" > "$work/make.log" 2>&1 || { grep -E "error" "$work/make.log" | head -30; exit 1; }
make install > "$work/install.log" 2>&1
echo "StarPU with SimGrid installed in $prefix"
build_project
