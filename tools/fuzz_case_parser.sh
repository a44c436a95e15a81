#!/usr/bin/env bash
# Fuzzes the case reader (TOML parsing, every key's checks, the physical validation) with
# libFuzzer under AddressSanitizer and UndefinedBehaviorSanitizer, for a bounded time.
#   tools/fuzz_case_parser.sh [SECONDS]      (default 300)
# Needs clang (Debian's clang and libclang-rt-dev, which tools/setup.sh installs); ctest runs it for
# 30 s (fuzz.case_parser). The corpus starts from inputs/*.toml
# and grows in build-fuzz/corpus; crashes are written to build-fuzz/ as crash-*; the last lines
# give the executions run and whether anything was found.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-300}
out=$here/build-fuzz
mkdir -p "$out/corpus"
# 77: skipped (ctest's SKIP_RETURN_CODE for fuzz.case_parser) where there is no clang.
command -v clang++ > /dev/null || { echo "clang++ not found: apt-get install clang libclang-rt-dev" >&2; exit 77; }
# toml++ and fmt header-only, so the parser itself is instrumented too. NDEBUG as in the shipped
# build: toml++ 3.3's own debug assertions fire on some malformed keys (e.g. "[[*") that its release
# build reports as parse errors; FUZZ_ASSERTS=1 keeps them.
ndebug=-DNDEBUG
[ "${FUZZ_ASSERTS:-0}" = 0 ] || ndebug=
# The reader with everything it calls: the io layer (faults, models, Ondes3D's files, validation)
# and physics, linked against HDF5, zlib and spdlog as the project is.
hdf5_inc=$(pkg-config --cflags hdf5-serial 2>/dev/null || echo -I/usr/include/hdf5/serial)
hdf5_lib=$(pkg-config --libs hdf5-serial 2>/dev/null || echo "-L/usr/lib/x86_64-linux-gnu/hdf5/serial -lhdf5")
clang++ -std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined $ndebug \
  -fsanitize-ignorelist="$here/tools/fuzz_ignorelist.txt" \
  -DTOML_HEADER_ONLY=1 -DSPDLOG_FMT_EXTERNAL=1 -I"$here" $hdf5_inc \
  "$here/tests/fuzz_case_parser.cpp" "$here"/io/*/*.cpp "$here"/physics/*.cpp \
  $hdf5_lib -lz -lspdlog -lfmt -o "$out/fuzz_case_parser"
cp "$here"/inputs/*.toml "$out/corpus/"
cd "$out"
set +e
./fuzz_case_parser -max_total_time="$seconds" -max_len=4096 -timeout=10 -print_final_stats=1 corpus \
  2>&1 | tee fuzz.log | grep -E "^#[0-9]+.*(pulse|DONE)|stat::number_of_executed_units|ERROR|SUMMARY|crash-" 
status=${PIPESTATUS[0]}
set -e
crashes=$(find . -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \) | wc -l)
echo "fuzz_case_parser: exit $status, $crashes finding(s) in $out (log: $out/fuzz.log)"
exit "$status"
