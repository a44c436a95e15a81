#!/usr/bin/env bash
# GPU build: StarPU with CUDA (tools/build_starpu_cuda.sh), the project against it for sm_90,
# then a self-contained, stripped bundle for the GPU machine (which has CUDA 13 and OpenMPI but
# no StarPU, hwloc or HDF5):
#   bundle/bin/    ondes3d, plain_loop, copy_bandwidth, the test programs (gzipped: gpu_check.sh
#                  unpacks them; or `gunzip bundle/bin/*.gz` first)
#   bundle/lib/    every shared library they need beyond the GPU machine's base system
#   bundle/inputs/ the example cases;  bundle/gpu_check.sh runs the checks and benchmarks there
# The bundle must stay under 64 MiB (the device tool's limit); the script says its size.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
prefix=$here/build-gpu/starpu-cuda
build=$here/build-gpu/project
bundle=$here/bundle
export PATH=$PATH:/usr/local/cuda/bin

"$here/tools/build_starpu_cuda.sh" "$prefix"
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DONDES_CUDA=ON -DONDES_STARPU_PREFIX="$prefix" \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_RPATH="$prefix/lib" -DONDES_CPU_ARCH=x86-64-v3 -DONDES_CPU_CLONES=ON \
  > "$build.configure.log"
grep -q "CUDA codelets ON" "$build.configure.log" || { cat "$build.configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)"
grep -q "define STARPU_USE_CUDA 1" "$prefix/include/starpu/1.3/starpu_config.h" || {
  echo "StarPU in $prefix has no CUDA" >&2; exit 1; }

rm -rf "$bundle"
mkdir -p "$bundle/bin" "$bundle/lib"
# The tests gpu_check.sh runs (each binary carries the CUDA kernels, ~3 MB: the others stay out;
# test_gpu's CUDA = CPU bitwise checks cover the invariance and free-surface tests on CUDA workers).
tests=()
for t in test_gpu test_robust test_analytic test_anelastic; do tests+=("$build/tests/$t"); done
programs=("$build/ondes3d" "$build/plain_loop" "$build/copy_bandwidth" "${tests[@]}")
cp "${programs[@]}" "$bundle/bin/"
# Libraries the GPU machine has itself stay out: glibc (libresolv must match its libc), the C++
# runtime, the CUDA driver and the CUDA 13 math libraries StarPU links (cuBLAS, cuSPARSE), and
# Open MPI (libmpi.so.40 and its own libraries: they must match the machine's mpirun and plugins).
base='^(linux-vdso|ld-linux|libc\.|libm\.|libdl\.|librt\.|libpthread\.|libresolv\.|libstdc\+\+|libgcc_s|libcuda\.|libcublas|libcusparse|libnvJitLink|libmpi\.|libopen-rte|libopen-pal|libevent)'
LD_LIBRARY_PATH=$prefix/lib ldd "${programs[@]}" | awk '/=> \//{print $1, $3}' | sort -u |
  while read -r name path; do
    [[ $name =~ $base ]] || cp -L "$path" "$bundle/lib/$name"
  done
strip --strip-unneeded "$bundle"/bin/* "$bundle"/lib/* 2>/dev/null || true
# The programs compressed (each carries the CPU sweeps in two clones and the CUDA kernels, ~9 MB;
# gzip -9 brings the bundle from 73 to under 64 MiB): gpu_check.sh unpacks them on the GPU machine.
gzip -9 "$bundle"/bin/*
cp -r "$here/inputs" "$bundle/inputs"
cp "$here/tools/gpu_check.sh" "$here/tools/gpu_scaling.sh" "$here/bench/harness.sh" "$here/bench/peer_devito.sh" "$here/bench/peer_devito.py" "$bundle/"
mkdir -p "$bundle/tools" && cp "$here/tools/sweep.py" "$here/tools/gpu_q0_cost.sh" "$here/tools/cpu_balance.sh" \
  "$here/tools/sim_validate_gpu.sh" "$bundle/tools/"
du -sh "$bundle"
size=$(du -sm "$bundle" | cut -f1)
[ "$size" -lt 64 ] || { echo "bundle is ${size} MiB, over the 64 MiB limit" >&2; exit 1; }
