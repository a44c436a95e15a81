#!/usr/bin/env bash
# Installs every dependency from Debian's packages and builds the project (CPU build, as CI uses).
# Runs as root with no prompts; as a normal user it uses sudo for apt-get.
#   tools/setup.sh            # install + configure + build into ./build
#   SKIP_APT=1 tools/setup.sh # build only
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$here/build}

packages=(
  build-essential cmake pkg-config git
  libstarpu-dev libhwloc-dev
  libopenmpi-dev openmpi-bin
  libhdf5-dev hdf5-tools zlib1g-dev
  libtomlplusplus-dev libcli11-dev libfmt-dev libspdlog-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-dev  # the case reader's fuzz test (tools/fuzz_case_parser.sh)
  python3 python3-numpy python3-h5py python3-matplotlib python3-venv
  python3-paraview xvfb
)
# From the package index into .venv (Debian packages none): ObsPy and pyasdf, which the ASDF
# test and tools/convergence.py use; lizard, which tools/code_shape.py measures functions with.
python_packages=(obspy pyasdf lizard==1.24.3)

if [ "${SKIP_APT:-0}" != 1 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q
  $sudo apt-get install -y -q --no-install-recommends "${packages[@]}"
fi

venv=$here/.venv
if ! "$venv/bin/python" -c "import obspy, pyasdf, lizard" 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "${python_packages[@]}"
fi

# The CUDA kernels are compiled whenever nvcc is there (CI included), even if no GPU is present.
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH=$PATH:/usr/local/cuda/bin; fi
# The CPU kernels for this machine's vector units (ONDES_CPU_ARCH=x86-64-v3 for a binary that must
# run on other x86 machines too, empty for the compiler's default).
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DONDES_CPU_ARCH="${ONDES_CPU_ARCH-native}" "$@"
cmake --build "$build" -j "$(nproc)"
