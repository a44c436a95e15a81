#!/usr/bin/env bash
# The benchmark harness: the figures of docs/performance.md, each beside its yardstick, in one run.
#   bench/harness.sh OUT [STEPS]        in the repository (CPU), or bundle/harness.sh on the GPU machine
# CPU: ondes3d with the blocks it chooses for this machine (no --blocks) against Devito's elastic
#      operator on the same grid, steps and cores (bench/peer_devito.sh), benchmark.toml and
#      absorbing.toml; skipped with a line where Devito cannot be had (PEER_PYTHON: a Python with it).
# GPU: where there are GPUs and the bundle's programs: the plain loop and StarPU 1x1 / 2x2 / 4x4
#      against the bandwidth floor, then one GPU against all of them in one process and as ranks,
#      with weak scaling (gpu_check.sh benchmark scaling; SCALING_GPUS narrows the counts).
# Attenuation: Ondes3D's q0 and Day and Bradley against elastic on the Chuetsu-oki references (CPU;
#      GPU widened) where ../shared/ondes3d-sets (or the bundle's sets/) has them.
# Writes OUT/harness.txt: the tables, one after another.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: harness.sh OUT [STEPS]}
steps=${2:-300}
mkdir -p "$out"
summary=$out/harness.txt
: > "$summary"
note() { echo "$@" | tee -a "$summary"; }

note "# ondes3d benchmark harness, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) cores, $(uname -n)"
peer=$here/peer_devito.sh
bin=$here/../build/ondes3d
[ -x "$bin" ] || bin=$here/bin/ondes3d
inputs=$here/../inputs
[ -d "$inputs" ] || inputs=$here/inputs
if [ -x "$peer" ] && [ -x "$bin" ]; then
  note ""
  note "## CPU: ondes3d (its own blocks) against Devito on the same $(nproc) cores"
  # peer_devito.py takes a layout per case: the one ondes3d itself runs (the case's run.blocks, or
  # those it picks for this machine), read from a one-step run's first line.
  cases=()
  for spec in benchmark.toml:20 absorbing.toml:100; do
    c=$inputs/${spec%%:*}
    blocks=$(STARPU_NCUDA=0 "$bin" run "$c" --steps 1 --output "$out/probe.h5" 2>&1 |
             sed -n 's/.* cells, [0-9]* steps, blocks \([0-9]*\) x \([0-9]*\).*/\1x\2/p' | head -1)
    cases+=("$c:${spec#*:}:${blocks:-1x$(nproc)}")
  done
  rm -f "$out/probe.h5"
  STARPU_NCUDA=0 "$peer" --bin "$bin" --cores "$(nproc)" --repeat "${PEER_REPEAT:-1}" --cases "${cases[@]}" \
    2>&1 | tee -a "$summary" || note "Devito not available here: CPU peer skipped (PEER_PYTHON=python-with-devito)"
fi
# Attenuation: Ondes3D's methods against elastic on the same layered grid (the Chuetsu-oki
# references of ../shared/ondes3d-sets: elastic, q0, Day and Bradley; on a GPU widened to 471 x 490 x
# 260 cells), the time of a step relative to the elastic one's.
refs=$here/../../shared/ondes3d-sets/reference
[ -d "$refs" ] || refs=$here/sets/reference
attenuation() {  # $1: cpu | gpu
  note ""
  note "## Attenuation on $1: Ondes3D's methods against elastic, the same grid ($([ "$1" = gpu ] && echo "widened Chuetsu-oki, 300" || echo "Chuetsu-oki, 400") steps)"
  note "| method | cell-updates/s | time vs elastic |"
  note "| --- | --- | --- |"
  local elastic=""
  for v in chuetsu-layered:elastic chuetsu-layered-q0:q0 chuetsu-layered-daybradley:day_bradley; do
    local d=$out/attenuation/${v%%:*}
    rm -rf "$d"; mkdir -p "$d/output/chuetsu-oki"; cp -r "$refs/${v%%:*}/parameters" "$d/"
    local prm=$d/parameters/chuetsu-oki/chuetsu-oki.prm
    if [ "$1" = gpu ]; then
      sed -i -e 's#<xMin> -50 </xMin> <xMax> 20 </xMax>#<xMin> -250 </xMin> <xMax> 220 </xMax>#' \
             -e 's#<yMin> -30 </yMin> <yMax> 40 </yMax>#<yMin> -230 </yMin> <yMax> 240 </yMax>#' \
             -e 's#<zMin> -90 </zMin>#<zMin> -250 </zMin>#' -e 's#<tmax> 400 </tmax>#<tmax> 300 </tmax>#' "$prm"
    fi
    local env=STARPU_NCUDA=0; [ "$1" = gpu ] && env=STARPU_NCPU=0
    local rate
    rate=$(cd "$d" && env $env "$bin" run parameters/chuetsu-oki/chuetsu-oki.prm --output "$d/out.h5" 2>&1 |
           sed -n 's/.*done in .* s: \([0-9.e+]*\) cell-updates.*/\1/p')
    [ -n "$elastic" ] || elastic=$rate
    note "| ${v#*:} | $rate | $(awk -v e="$elastic" -v r="$rate" 'BEGIN { if (r > 0) printf "%.2f", e / r }') |"
  done
}
[ -d "$refs/chuetsu-layered-daybradley" ] && [ -x "$bin" ] && attenuation cpu
if [ -x "$here/gpu_check.sh" ] && command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1; then
  [ -d "$refs/chuetsu-layered-daybradley" ] && attenuation gpu
  note ""
  note "## GPU: plain loop and StarPU against the bandwidth floor; one GPU against several"
  bash "$here/gpu_check.sh" "$out/gpu" "$steps" "benchmark scaling" > "$out/gpu_check.out" 2>&1
  cat "$out/gpu/gpu_table.txt" "$out/gpu/scaling_table.txt" 2>/dev/null | tee -a "$summary"
else
  note ""
  note "## GPU: no GPU or no bundle here (tools/build_gpu.sh, then bundle/harness.sh on the GPU machine)"
fi
