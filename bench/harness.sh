#!/usr/bin/env bash
# The benchmark harness: the figures of docs/performance.md, each beside its yardstick, in one run.
#   bench/harness.sh OUT [STEPS]        in the repository (CPU), or bundle/harness.sh on the GPU machine
# CPU: ondes3d with the blocks it chooses for this machine (no --blocks) against Devito's elastic
#      operator on the same grid, steps and cores (bench/peer_devito.sh), benchmark.toml and
#      absorbing.toml; skipped with a line where Devito cannot be had (PEER_PYTHON: a Python with it).
# GPU: where there are GPUs and the bundle's programs: the plain loop and StarPU 1x1 / 2x2 / 4x4
#      against the bandwidth floor, then one GPU against all of them in one process and as ranks,
#      with weak scaling (gpu_check.sh benchmark scaling; SCALING_GPUS narrows the counts).
# Attenuation: Ondes3D's q0, Day and Bradley, Kristek and Moczo against elastic on the Chuetsu-oki references (CPU;
#      GPU widened) where ../shared/ondes3d-sets (or the bundle's sets/) has them.
# Attenuation: our schemes (coarse-grained, every cell) against elastic on benchmark.toml.
# Geology: Ligurian's .prm, whole and cropped (elastic and with Day and Bradley), against their uniform twins.
# Our schemes' and the geology tables: raced in one process (ondes3d race, ROUNDS rounds: 5), medians compared.
# Writes OUT/harness.txt: the tables, one after another.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: harness.sh OUT [STEPS]}
steps=${2:-300}
mkdir -p "$out"
summary=$out/harness.txt
: > "$summary"
note() { echo "$@" | tee -a "$summary"; }
# A run's cell-updates/s, from its "done in" line on stdin; a run's time relative to its yardstick's
# (rates: yardstick, run).
rate_of() { sed -n 's/.*done in .* s: \([0-9.e+]*\) cell-updates.*/\1/p'; }
time_ratio() { awk -v e="$1" -v r="$2" 'BEGIN { if (r > 0) printf "%.2f", e / r }'; }
# A table of cases raced in one process (`ondes3d race`: each set up once, then STEPS iterations of
# each in turn, ROUNDS rounds (5 unless set) after one of warm-up): on a shared machine a run's rate
# drifts from one minute to the next (docs/lab.md, Races), and the cases of a race drift together.
#   race_table DIR ENV "RACE OPTIONS" LABEL CASE [LABEL CASE ...]: a row per case, its median rate
#   (the range) and its time against the first case's median.
rounds=${ROUNDS:-5}
race_table() {
  local dir=$1 env=$2 opts=$3 i=0 line
  shift 3
  local -a labels=() cases=()
  while [ $# -gt 1 ]; do labels+=("$1") cases+=("$2"); shift 2; done
  while IFS= read -r line; do
    note "| ${labels[i]} |${line#|*|}"
    i=$((i + 1))
  done < <(cd "$dir" && env $env "$bin" race "${cases[@]}" $opts --rounds "$rounds" 2>&1 | tee -a "$out/race.log" |
           grep '^| ' | sed -n '3,$p')
  [ "$i" -gt 0 ] || note "| (the race failed: $out/race.log) | | |"
}

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
# references of ../shared/ondes3d-sets: elastic, q0, Day and Bradley, Kristek and Moczo; on a GPU
# widened to 471 x 490 x 260 cells), the time of a step relative to the elastic one's. Kristek and
# Moczo runs as one block (codelets/kristek_moczo.hpp), so its yardstick is elastic on one block too.
refs=$here/../../shared/ondes3d-sets/reference
[ -d "$refs" ] || refs=$here/sets/reference
attenuation() {  # $1: cpu | gpu
  note ""
  note "## Attenuation on $1: Ondes3D's methods against elastic, the same grid ($([ "$1" = gpu ] && echo "widened Chuetsu-oki, 300" || echo "Chuetsu-oki, 400") steps)"
  note "| method | cell-updates/s | time vs elastic |"
  note "| --- | --- | --- |"
  local elastic="" one=""
  for v in chuetsu-layered:elastic chuetsu-layered-q0:q0 chuetsu-layered-daybradley:day_bradley \
           chuetsu-layered:elastic_one_block chuetsu-layered-kristekmoczo:kristek_moczo; do
    local d=$out/attenuation/${v#*:} blocks=""
    case $v in *one_block | *kristek_moczo) blocks="--blocks 1x1" ;; esac
    rm -rf "$d"; mkdir -p "$d/output/chuetsu-oki"; cp -r "$refs/${v%%:*}/parameters" "$d/"
    local prm=$d/parameters/chuetsu-oki/chuetsu-oki.prm
    if [ "$1" = gpu ]; then
      sed -i -e 's#<xMin> -50 </xMin> <xMax> 20 </xMax>#<xMin> -250 </xMin> <xMax> 220 </xMax>#' \
             -e 's#<yMin> -30 </yMin> <yMax> 40 </yMax>#<yMin> -230 </yMin> <yMax> 240 </yMax>#' \
             -e 's#<zMin> -90 </zMin>#<zMin> -250 </zMin>#' -e 's#<tmax> 400 </tmax>#<tmax> 300 </tmax>#' "$prm"
    fi
    local env=STARPU_NCUDA=0; [ "$1" = gpu ] && env=STARPU_NCPU=0
    local rate
    rate=$(cd "$d" && env $env "$bin" run parameters/chuetsu-oki/chuetsu-oki.prm $blocks --output "$d/out.h5" 2>&1 |
           rate_of)
    [ -n "$elastic" ] || elastic=$rate
    [ "${v#*:}" = elastic_one_block ] && one=$rate
    local base=$elastic; [ -n "$blocks" ] && base=$one
    note "| ${v#*:} | $rate | $(time_ratio "$base" "$rate") |"
  done
}
# Our attenuation schemes against elastic on benchmark.toml (Qp 100, Qs 50): coarse-grained over
# [0.1, 10] Hz (one memory set), every mechanism in every cell over [0.5, 5] (3 sets) and [0.1, 10]
# Hz (4); on a GPU one GPU with one block, $steps steps; on CPUs the blocks ondes3d picks, 20 steps.
q_cost() {  # $1: cpu | gpu
  local env=STARPU_NCUDA=0 n=20 blocks=""
  [ "$1" = gpu ] && env="STARPU_NCPU=0 STARPU_NCUDA=1" n=$steps blocks="--blocks 1x1"
  note ""
  note "## Attenuation on $1: our schemes against elastic (benchmark.toml, Qp 100, Qs 50, raced: medians of $rounds rounds of $n steps)"
  note "| scheme | cell-updates/s | time vs elastic |"
  note "| --- | --- | --- |"
  local c lo hi scheme v
  local -a lanes=()
  for v in "none:elastic" "0.1 10 coarse_grained:coarse-grained, [0.1, 10] Hz" \
           "0.5 5 every_cell:every cell, [0.5, 5] Hz (3 sets)" "0.1 10 every_cell:every cell, [0.1, 10] Hz (4 sets)"; do
    c=$inputs/benchmark.toml
    if [ "${v%%:*}" != none ]; then
      read -r lo hi scheme <<< "${v%%:*}"
      c=$out/q_${lo}_${hi}_$scheme.toml
      sed "s/^rho = 2600.0$/rho = 2600.0\nqp = 100.0\nqs = 50.0\nq_band = [$lo, $hi]\nq_scheme = \"$scheme\"/" \
        "$inputs/benchmark.toml" > "$c"
    fi
    lanes+=("${v#*:}" "$c")
  done
  race_table "$out" "$env" "--steps $n $blocks" "${lanes[@]}"
}
# A geological case against its uniform twin: Ondes3D's Ligurian .prm, whole (500 x 350 x 130 cells:
# geological nodes with air and sea, its 16,471-point fault, 608 stations) and cropped (ligurian-crop,
# 38 stations; with it the same with Ondes3D's Day and Bradley by material), each against its
# yardstick: the same grid, steps and C-PML with a uniform medium, one point source and no station
# (convert's TOML with its [medium] and what follows replaced).
twin_of() {  # $1: folder to run in, $2: .prm, $3: the twin's TOML
  (cd "$1" && "$bin" convert "$2" -o "$3" > /dev/null 2>&1)
  sed -i '/^\[medium\]/,$d' "$3"; rm -f "${3%.toml}_model.h5"
  cat >> "$3" <<'TWIN'
[medium]
vp = 5720.0
vs = 3300.0
rho = 2600.0

[[sources]]
type = "moment"
position = [13800.0, 16800.0, 12000.0]
strike = 45.0
dip = 70.0
rake = 30.0
m0 = 1.0e17
stf = { type = "gaussian", f0 = 2.0, t0 = 0.6 }
TWIN
}
geology() {  # $1: cpu | gpu
  local d=$out/geology env=STARPU_NCUDA=0
  [ "$1" = gpu ] && env=STARPU_NCPU=0
  rm -rf "$d"; mkdir -p "$d/ref/lc/output/ligurian-crop" "$d/output/ligurian"
  ln -sfn "$(cd "$refs/../parameters" && pwd)" "$d/parameters"
  cp -r "$refs/ligurian-crop/parameters" "$d/ref/lc/"
  local prm=parameters/ligurian-crop/ligurian-crop.prm
  sed -e 's#</layer\([0-9]\)>#<Qp> 200. </Qp> <Qs> 100. </Qs>\n</layer\1>#' \
      -e 's#<nlayer>#<taum> 0.01 </taum> <tauM> 2. </tauM> <w0> 6.28 </w0>\n<nlayer>#' "$d/ref/lc/$prm" > "$d/ref/lc/q.prm"
  twin_of "$d/ref/lc" "$prm" "$d/twin.toml"
  twin_of "$d" parameters/ligurian/ligurian.prm "$d/ligurian_twin.toml"
  note ""
  local n=30
  [ "$1" = gpu ] && n=$steps
  note "## A geological case on $1 against its uniform twin (raced: medians of $rounds rounds of $n steps)"
  note "| case | cell-updates/s | time vs the twin |"
  note "| --- | --- | --- |"
  race_table "$d" "$env" "--steps $n" "Ligurian's uniform twin (500 x 350 x 130, one source, no station)" \
    "$d/ligurian_twin.toml" "Ligurian .prm" parameters/ligurian/ligurian.prm
  race_table "$d/ref/lc" "$env" "--steps $n" "ligurian-crop's uniform twin (138 x 168 x 138)" "$d/twin.toml" \
    "ligurian-crop .prm" "$prm" "the same, Day and Bradley (Qp 200, Qs 100)" q.prm
}
[ -x "$bin" ] && q_cost cpu
[ -d "$refs/chuetsu-layered-kristekmoczo" ] && [ -x "$bin" ] && attenuation cpu
[ -d "$refs/ligurian-crop" ] && [ -x "$bin" ] && geology cpu
if [ -x "$here/gpu_check.sh" ] && command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1; then
  q_cost gpu
  [ -d "$refs/chuetsu-layered-kristekmoczo" ] && attenuation gpu
  [ -d "$refs/ligurian-crop" ] && geology gpu
  note ""
  note "## GPU: plain loop and StarPU against the bandwidth floor; one GPU against several"
  bash "$here/gpu_check.sh" "$out/gpu" "$steps" "benchmark scaling" > "$out/gpu_check.out" 2>&1
  cat "$out/gpu/gpu_table.txt" "$out/gpu/scaling_table.txt" 2>/dev/null | tee -a "$summary"
else
  note ""
  note "## GPU: no GPU or no bundle here (tools/build_gpu.sh, then bundle/harness.sh on the GPU machine)"
fi
