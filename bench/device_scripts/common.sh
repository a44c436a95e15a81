# Sourced by every script here, from bundle/ (`cd "$(dirname "$0")"; . ./common.sh "$@"`): the
# bundle's libraries, StarPU quiet with a home of its own, the binaries unpacked, o = the output
# folder (the script's first argument), big = the benchmark case.
export LD_LIBRARY_PATH=$PWD/lib STARPU_SILENT=1 STARPU_HOME=/tmp/ondes-starpu-home
o=${1:?out}; mkdir -p "$o"
for f in bin/*.gz; do [ -e "$f" ] && gunzip -f "$f"; done
big=inputs/benchmark.toml

# test_gpu_run [MARCH]: bin/test_gpu (with ONDES_CUDA_MARCH=MARCH unless MARCH is empty or
# "default"), logged to $o, and a line with its exit status and passed / failed counts.
test_gpu_run() {
  local m=${1:-} mm=${1:-} log=$o/test_gpu${1:+_$1}.log
  [ "$mm" = default ] && mm=""
  env ${mm:+ONDES_CUDA_MARCH=$mm} timeout 200 bin/test_gpu > "$log" 2>&1
  local rc=$?
  echo "test_gpu${m:+ $m} rc=$rc $(grep -cE '^\[       OK' "$log") ok, $(grep -cE 'FAILED  \]' "$log") failed"
}

# starpu_ab VAR "MODES" LAYOUT...: for each layout a calibration run, then two rounds of the StarPU
# run on the benchmark case with VAR set to each of MODES in turn (1x1: the first mode only), a
# line each. The A/B of a switch on one build, alternated so that drifts hit every mode alike.
starpu_ab() {
  local var=$1 modes=$2 l rep x; shift 2
  for l in "$@"; do
    STARPU_CALIBRATE=1 bin/ondes3d run $big --steps 40 --blocks $l --sched dmda --output /tmp/c.h5 > /dev/null 2>&1
    for rep in 1 2; do for x in $modes; do
      [ $l = 1x1 ] && [ $x != "${modes%% *}" ] && continue
      echo "starpu $l $var=$x #$rep: $(env $var=$x bin/ondes3d run $big --steps 300 --blocks $l --sched dmda --output /tmp/r.h5 2>&1 | grep -o 'done in.*cell-updates/s')"
    done; done
  done
}

# ncu_step LAYOUT LABEL [VAR=VALUE...]: every kernel of 60 steps of a StarPU run at LAYOUT (after
# 100 steps' launches) under Nsight Compute, one CUDA worker, no cache flush, with the variables
# set; the log in $o/ncu_LAYOUT_LABEL.csv, summed by kernel (ncu_sum.py) under "== LAYOUT LABEL".
ncu_step() {
  local l=$1 label=$2 n; shift 2
  n=$(( ${l%x*} * ${l#*x} ))
  env "$@" STARPU_NWORKER_PER_CUDA=1 timeout 240 ncu --csv --cache-control none --clock-control none \
    --print-units base --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
    --launch-skip $((100 * n)) --launch-count $((60 * n)) \
    bin/ondes3d run $big --steps 30 --blocks $l --sched dmda --output /tmp/r.h5 > $o/ncu_${l}_$label.csv 2>&1
  echo "== $l $label"; python3 ncu_sum.py $o/ncu_${l}_$label.csv $n
}

# check_table: gpu_check.sh correctness + benchmark (CHECK_STEPS, default 300; CHECK_PARTS;
# CHECK_LIMIT seconds) into $o/check, then its correctness status and its table.
check_table() {
  timeout ${CHECK_LIMIT:-300} bash gpu_check.sh $o/check ${CHECK_STEPS:-300} "${CHECK_PARTS:-correctness benchmark}" > /dev/null 2>&1
  grep -E "correctness status|FAILED" $o/check/gpu_check.log | tail -5
  grep -v "^#  " $o/check/gpu_table.txt 2>/dev/null
}

# rate BINARY LAYOUT[+STRIP] [VAR=VALUE...]: the "done in ... cell-updates/s" of a StarPU run of the
# benchmark case (policy SCHED, default dmda), STEPS steps (default 300), LAYOUT's blocks with
# STRIP-cell edge strips, the variables set; calibrate: the same quietly, 40 steps with STARPU_CALIBRATE=1 (before the measured runs).
rate() {
  local b=$1 l=${2%%+*} strip=0
  [[ $2 == *+* ]] && strip=${2#*+}
  shift 2
  env "$@" $b run $big --steps ${STEPS:-300} --blocks $l --edge-strip $strip --sched ${SCHED:-dmda} --output /tmp/r.h5 2>&1 |
    grep -o 'done in.*cell-updates/s'
}
calibrate() {
  local b=$1 l=$2
  shift 2
  STEPS=40 rate $b $l STARPU_CALIBRATE=1 "$@" > /dev/null
}

# head_ab VAR "MODES" LAYOUT...: for each layout (NXxNY[+STRIP]) a calibration run of this build and
# of the previous one (bin/ondes3d_head: the previous bundle's bin/ondes3d.gz copied into bin/), then
# two rounds of the previous build's run and this build's with VAR set to each of MODES in turn
# (1x1: the first mode only); a line each.
head_ab() {
  local var=$1 modes=$2 l rep x; shift 2
  for l in "$@"; do
    calibrate bin/ondes3d $l
    calibrate bin/ondes3d_head $l
    for rep in 1 2; do
      echo "$l head #$rep: $(rate bin/ondes3d_head $l)"
      for x in $modes; do
        [ $l = 1x1 ] && [ $x != "${modes%% *}" ] && continue
        echo "$l $x #$rep: $(rate bin/ondes3d $l $var=$x)"
      done
    done
  done
}

# mpi_rate NP LAYOUT[+STRIP] [VAR=VALUE...]: `rate` with NP ranks of one GPU each (the GPU of its
# local rank, as gpu_check.sh's ranks take theirs), Open MPI's shared memory by single copy (CMA),
# no CPU workers; mpi_calibrate NP LAYOUT [VAR=VALUE...]: the same quietly, 40 steps calibrating.
mpi_rate() {
  local np=$1 l=$2; shift 2
  [ -x /tmp/rank_gpu.sh ] || { cat > /tmp/rank_gpu.sh <<'SH'
#!/bin/sh
n=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
export STARPU_WORKERS_CUDAID=$(( ${OMPI_COMM_WORLD_LOCAL_RANK:-0} % n ))
exec "$@"
SH
  chmod +x /tmp/rank_gpu.sh; }
  OMPI_MCA_btl_vader_single_copy_mechanism=cma STARPU_NCPU=0 STARPU_NCUDA=1 \
    rate "mpirun --oversubscribe --bind-to none --allow-run-as-root -np $np /tmp/rank_gpu.sh bin/ondes3d" $l "$@"
}
mpi_calibrate() {
  local np=$1 l=$2; shift 2
  STEPS=40 mpi_rate $np $l STARPU_CALIBRATE=1 "$@" > /dev/null
}

# hybrid_ab LAYOUT...: for each layout, calibration runs, then two rounds of three runs of one GPU:
# alone (STARPU_NCPU=0), beside nproc-1 CPU workers (parked when no task may use them, the
# default), and beside them polling (ONDES_PARK_CPUS=off); a line each.
hybrid_ab() {
  local n=$(( $(nproc) - 1 )) l rep
  for l in "$@"; do
    calibrate bin/ondes3d $l STARPU_NCPU=0 STARPU_NCUDA=1
    calibrate bin/ondes3d $l STARPU_NCPU=$n STARPU_NCUDA=1
    for rep in 1 2; do
      echo "$l gpu only #$rep: $(rate bin/ondes3d $l STARPU_NCPU=0 STARPU_NCUDA=1)"
      echo "$l +$n cpus parked #$rep: $(rate bin/ondes3d $l STARPU_NCPU=$n STARPU_NCUDA=1)"
      echo "$l +$n cpus polling #$rep: $(rate bin/ondes3d $l STARPU_NCPU=$n STARPU_NCUDA=1 ONDES_PARK_CPUS=off)"
    done
  done
}

# old_new_ab LAYOUT...: the A/B of two builds, old/ (gzipped programs, unpacked here) against bin/:
# the plain loop three times, then for each layout a calibration run and the StarPU run on one GPU
# twice, the builds alternated, a line each.
old_new_ab() {
  local f rep b l
  for f in old/*.gz; do [ -e "$f" ] && gunzip -f "$f"; done
  for rep in 1 2 3; do for b in old bin; do
    echo "$b plain #$rep: $($b/plain_loop $big 300 2>&1 | grep -o '[0-9.e+]* cell-updates/s, .*')"
  done; done
  for l in "$@"; do
    STARPU_NCPU=0 STARPU_NCUDA=1 calibrate bin/ondes3d $l
    for rep in 1 2; do for b in old bin; do
      echo "$b starpu $l #$rep: $(STARPU_NCPU=0 STARPU_NCUDA=1 rate $b/ondes3d $l)"
    done; done
  done
}
