# Sourced by tools/gpu_check.sh (its variables and functions: say, section, mpi_setup, check, ...)
# for its "scaling" part.
# Scaling over every GPU of the machine (issue 16), in one table: granularity on one GPU (1x1,
# 2x2, 4x4), strong scaling on benchmark.toml with G GPUs in one process and with G ranks of one
# GPU each (best of a few layouts), and weak scaling (G times the grid along y on G GPUs, both
# ways). Speed-up: against the best 1-GPU layout; weak efficiency: rate / (G x the 1-GPU rate of
# the same per-GPU grid). Any GPU count; the rank rows need mpirun. SCALING_GPUS (default: all,
# then every smaller count down to 2) narrows it.
section "scaling on $(gpus) GPU(s), $(basename "$case_file"), $steps steps"
mpi_setup
ngpu=$(gpus)
stable=$out/scaling_table.txt
# The cards, so that a table says which machine it comes from (e.g. "# 4 x NVIDIA H100 80GB HBM3").
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | awk '{ $1 = "# " $1 " x"; print }' | tee "$stable"
printf '%-44s %6s %6s %14s %9s\n' configuration gpus ranks cell_updates/s vs_1_gpu | tee -a "$stable"
# srun CASE RANKS GPUS_PER_RANK LAYOUT [CPUS]: a calibration run, then SCALING_REPEAT measured
# ones (default 2: every row alike, so that a row and its reference see the same run-to-run
# spread, about 1% here); prints the best rate. LAYOUT is NXxNY[+STRIP][@SCHED][%KEY=VALUE]: blocks, edge
# strips of STRIP cells (run.edge_strip), the policy (default: the run's own, lws; dmdas sorts by the frontier
# blocks' priority), a --tune setting (e.g. %chain_steps=8). CPUS (default 0): CPU workers beside the GPUs.
srun() {
  local layout=${4%%%*} tune=()
  [[ $4 == *%* ]] && tune=("--tune=${4#*%}")  # one word: Open MPI reads a lone --tune on any line as its own
  local c=$1 np=$2 g=$3 b=${layout%%@*} sched=() strip=0 launch=() cpus=${5:-0}
  [[ $layout == *@* ]] && sched=(--sched "${layout#*@}")
  [[ $b == *+* ]] && strip=${b#*+} && b=${b%%+*}
  [ "$np" -gt 1 ] && launch=($mpirun -np "$np" /tmp/ondes_rank_gpu.sh)
  STARPU_NCPU=$cpus STARPU_NCUDA=$g STARPU_CALIBRATE=1 timeout 300 "${launch[@]}" "$bin/ondes3d" run "$c" --steps 40 \
    --blocks "$b" --edge-strip "$strip" "${sched[@]}" "${tune[@]}" --output /tmp/cal.h5 >> "$log" 2>&1
  for _ in $(seq "${SCALING_REPEAT:-2}"); do
    STARPU_NCPU=$cpus STARPU_NCUDA=$g timeout 300 "${launch[@]}" "$bin/ondes3d" run "$c" --steps "$steps" --blocks "$b" \
      --edge-strip "$strip" "${sched[@]}" "${tune[@]}" --output /tmp/run.h5 2>&1 | tee -a "$log" |
      sed -n 's/.*done in [0-9.]* s: \([0-9.e+]*\) cell-updates.*/\1/p' | head -1
  done | sort -g | tail -1
}
ratio() { awk -v a="$1" -v r="$2" 'BEGIN{ if (r > 0) printf "%.3f", a / r; else print 0 }'; }
# best LABEL CASE RANKS GPUS_PER_RANK REFERENCE LAYOUTS...: the best layout's row; its ratio to
# REFERENCE in $best_ratio.
best() {
  local label=$1 c=$2 np=$3 g=$4 ref=$5; shift 5
  local top=0 where=""
  for b in "$@"; do
    r=$(srun "$c" "$np" "$g" "$b"); r=${r:-0}
    say "  $label $b: $r"
    if awk -v a="$r" -v b="$top" 'BEGIN{exit !(a > b)}'; then top=$r; where=$b; fi
  done
  best_ratio=$(ratio "$top" "$ref")
  printf '%-44s %6s %6s %14.4g %9s\n' "$label (best: $where)" $((np * g)) "$np" "$top" \
    "$(awk -v r="$ref" -v x="$best_ratio" 'BEGIN{ if (r > 0) print x "x"; else print "-" }')" | tee -a "$stable"
}
# The issue's targets, checked at the end: "LABEL|FIGURE|AT LEAST" lines.
targets=()
one=0
declare -A alone
for b in 1x1 2x2 4x4; do
  r=$(srun "$case_file" 1 1 "$b"); r=${r:-0}
  alone[$b]=$r
  awk -v a="$r" -v b="$one" 'BEGIN{exit !(a > b)}' && one=$r
  printf '%-44s %6s %6s %14.4g %9s\n' "1 GPU, $b" 1 1 "$r" "" | tee -a "$stable"
done
printf '# 1-GPU reference (best of 1x1, 2x2, 4x4): %.4g; 4x4 / 1x1 is the granularity figure\n' "$one" | tee -a "$stable"
targets+=("one GPU, 4x4 / 1x1|$(ratio "${alone[4x4]}" "${alone[1x1]}")|0.9")
# CPU + GPU against GPU only, layout by layout (the last column: against the GPU-only row above);
# SCALING_HYBRID=0 leaves them out.
if [ "${SCALING_HYBRID:-1}" != 0 ]; then
  for b in 1x1 2x2 4x4; do
    r=$(srun "$case_file" 1 1 "$b" "$ncpu"); r=${r:-0}
    h=$(ratio "$r" "${alone[$b]}")
    printf '%-44s %6s %6s %14.4g %9s\n' "1 GPU + $ncpu CPU workers, $b" 1 1 "$r" "${h}x" | tee -a "$stable"
    targets+=("CPU + GPU / GPU only, $b|$h|1.0")
  done
  echo "# CPU + GPU rows: the last column is against the GPU-only row of the same layout" | tee -a "$stable"
fi
for g in ${SCALING_GPUS:-$(seq "$ngpu" -1 2)}; do
  [ "$g" -le "$ngpu" ] || [ -n "${SCALING_FORCE:-}" ] || continue  # FORCE: ranks share GPUs (a dry run)
  # One process: a block per GPU, tiled (halos by peer writes between the GPUs: [tuning] peer_halos),
  # two a GPU, 4x4, and 16-cell edge strips computed first (priority 1 under dmdas). Ranks: the same
  # with strips without dmdas (the best on two GPUs, 6bb2ab2:bench/results/gpu_h200x2_edges_apart.txt).
  # The losers on four H200s (2026-11-26: Gx1, Gx1+32, 2Gx2, 1xG+32, blocks cyclic over the GPUs)
  # left the list; SCALING_LAYOUTS adds layouts, G standing for the GPU count (e.g. "1xG+32 Gx1",
  # "1xG%chain_steps=8": chained steps, tasks/chain.hpp).
  extra=${SCALING_LAYOUTS:-}
  process_layouts=("1x${g}" "1x$((2 * g))" "4x4" "1x${g}+16@dmdas" ${extra//G/$g})
  rank_layouts=("1x${g}" "4x4" "1x${g}+16" "1x${g}+16@dmdas" ${extra//G/$g})
  best "strong, $g GPUs in one process" "$case_file" 1 "$g" "$one" "${process_layouts[@]}" > /dev/null
  targets+=("strong, $g GPUs in one process|$best_ratio|$(awk -v g="$g" 'BEGIN{ print 0.9 * g }')")
  best "strong, $g ranks x 1 GPU" "$case_file" "$g" 1 "$one" "${rank_layouts[@]}" > /dev/null
  targets+=("strong, $g ranks x 1 GPU|$best_ratio|$(awk -v g="$g" 'BEGIN{ print 0.9 * g }')")
  weak=/tmp/weak_$g.toml
  sed "s/^ny = .*/ny = $((512 * g))/" "$case_file" > "$weak"
  for mode in process ranks; do
    np=$g per=1
    [ $mode = process ] && np=1 per=$g
    ref=$(awk -v r="$one" -v g="$g" 'BEGIN{ print g * r }')
    best "weak, ${g}x grid (y), $g GPUs ($mode)" "$weak" "$np" "$per" "$ref" "1x${g}" "1x${g}+16" > /dev/null
    targets+=("weak, $g GPUs ($mode), efficiency|$best_ratio|0.95")
  done
  # The grid that fills the GPUs (SCALING_FULL: the GPU counts to run it on, or "all"): inputs/node_4g.toml (2048 x 2048 x 1024 cells,
  # 4.3 G, 52 GiB a GPU on four) cut to 512 rows a GPU, two blocks a GPU, in one process; against G
  # times the one-GPU reference (benchmark.toml), with the memory `check --gpus` plans for a GPU
  # beside the most nvidia-smi saw in use on one, and the set-up time (start to first iteration).
  if [[ ${SCALING_FULL:-} == all || " ${SCALING_FULL:-} " == *" $g "* ]]; then
    full=/tmp/full_$g.toml
    sed "s/^ny = .*/ny = $((512 * g))/; s/^blocks = .*/blocks = [1, $((2 * g))]/" "$here/inputs/node_4g.toml" > "$full"
    planned=$("$bin/ondes3d" check "$full" --gpus "$g" 2>&1 | sed -n 's/.*: \(.*\) of arrays on the fullest GPU/\1/p')
    nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 500 > /tmp/gpu_mem.txt &
    smi=$!
    STARPU_NCPU=0 STARPU_NCUDA=$g "$bin/ondes3d" run "$full" --steps "${SCALING_FULL_STEPS:-60}" --output /tmp/full.h5 \
      > /tmp/full.log 2>&1
    kill $smi 2>/dev/null
    cat /tmp/full.log >> "$log"
    r=$(sed -n 's/.*done in [0-9.]* s: \([0-9.e+]*\) cell-updates.*/\1/p' /tmp/full.log | head -1); r=${r:-0}
    used=$(sort -n /tmp/gpu_mem.txt | tail -1)
    setup=$(awk '/cells,/ && !a {a=$1} /tiled over|boundary buffers written|run.cpu_compute/ {b=$1} END {print a, b}' /tmp/full.log)
    ratio_full=$(ratio "$r" "$(awk -v r="$one" -v g="$g" 'BEGIN{ print g * r }')")
    printf '%-44s %6s %6s %14.4g %9s\n' "full memory, $(sed -n 's/^n[xyz] = //p' "$full" | paste -sd x) ($g GPUs)" \
      "$g" 1 "$r" "${ratio_full}" | tee -a "$stable"
    echo "#   memory a GPU: check --gpus $g plans $planned, nvidia-smi saw at most ${used:-?} MiB; log clock at start and before the steps: $setup" |
      tee -a "$stable"
    targets+=("full memory, $g GPUs, efficiency|$ratio_full|0.9")
  fi
done
# Issues 16 and 45's targets (strong scaling: 0.9 x the GPU count; weak 95%; full memory 90%).
for t in "${targets[@]}"; do
  IFS='|' read -r what got want <<< "$t"
  printf '# target %-42s %6s >= %-5s %s\n' "$what" "$got" "$want" \
    "$(awk -v a="$got" -v b="$want" 'BEGIN{ print (a >= b) ? "met" : "NOT met" }')" | tee -a "$stable"
done
cat "$stable" >> "$log"
