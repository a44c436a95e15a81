#!/bin/bash
# The ranks' halo path through host memory and Open MPI (two and four ranks of one GPU each on one
# node, benchmark.toml, 300 steps): which transports this Open MPI has, then the rate with its
# defaults, with the shared-memory BTL's single-copy mechanism off (copy-in/copy-out), and with
# the UCX PML where there is one. The s51 build. MODES (s56.sh) replaces the list of settings.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c
ompi_info 2>/dev/null | grep -E "Open MPI:|MCA (pml|btl|smsc)|CUDA support" | head -20
ompi_info --param btl vader --level 9 2>/dev/null | grep -E "single_copy|eager_limit|max_send" | head -6
cat > /tmp/rank_gpu.sh <<'SH'
#!/bin/sh
n=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
export STARPU_WORKERS_CUDAID=$(( ${OMPI_COMM_WORLD_LOCAL_RANK:-0} % n ))
exec "$@"
SH
chmod +x /tmp/rank_gpu.sh
export STARPU_NCPU=0 STARPU_NCUDA=1
mpirun="mpirun --oversubscribe --bind-to none --allow-run-as-root"
# mr NP LAYOUT[+STRIP] MCA-ENV...: a calibration run then the measured one's rate (rank 0's line)
mr() {
  local np=$1 l=${2%%+*} strip=0; [[ $2 == *+* ]] && strip=${2#*+}; shift 2
  env "$@" STARPU_CALIBRATE=1 $mpirun -np $np /tmp/rank_gpu.sh bin/ondes3d run $big --steps 40 --blocks $l \
    --edge-strip $strip --sched dmda --output /tmp/m.h5 > $o/cal.log 2>&1
  env "$@" $mpirun -np $np /tmp/rank_gpu.sh bin/ondes3d run $big --steps 300 --blocks $l --edge-strip $strip \
    --sched dmda --output /tmp/m.h5 > $o/run_${np}_$l.log 2>&1
  grep -o 'done in.*cell-updates/s' $o/run_${np}_$l.log | head -1
  grep -iE "error|warn|abort" $o/run_${np}_$l.log | head -3
}
have_ucx=$(ompi_info 2>/dev/null | grep -c "MCA pml: ucx")
for mode in ${MODES:-default OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_pml=ucx}; do
  [ $mode = OMPI_MCA_pml=ucx ] && [ "$have_ucx" = 0 ] && continue
  e=""; [ $mode != default ] && e=${mode//,/ }
  echo "2 ranks 1x2+32 $mode: $(mr 2 1x2+32 $e)"
  echo "4 ranks 1x4+16 $mode: $(mr 4 1x4+16 $e)"
  [ -n "${MODES:-}" ] || echo "4 ranks 4x4 $mode: $(mr 4 4x4 $e)"
done
