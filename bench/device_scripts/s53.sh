#!/bin/bash
# StarPU's CUDA driver knobs on two GPUs in one process (benchmark.toml, 300 steps, 1x2 and 1x2+16,
# two rounds alternated; the s51 build): a driver thread per stream (STARPU_CUDA_THREAD_PER_WORKER=1)
# rather than one per GPU, a deeper pipeline (STARPU_CUDA_PIPELINE=4), 2 or 8 streams a GPU
# instead of 4, and the dmdar policy (ready data first), against one GPU at 1x1.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
export STARPU_NCPU=0
modes="default STARPU_CUDA_THREAD_PER_WORKER=1 STARPU_CUDA_PIPELINE=4 STARPU_NWORKER_PER_CUDA=2 STARPU_NWORKER_PER_CUDA=8 sched=dmdar"
# srate LAYOUT[+STRIP] MODE [STEPS]: the rate of a 2-GPU run in MODE
srate() {
  local l=${1%%+*} strip=0 m=$2 sched=dmda e=""
  [[ $1 == *+* ]] && strip=${1#*+}
  case $m in default) ;; sched=*) sched=${m#sched=} ;; *) e=$m ;; esac
  env STARPU_NCUDA=2 $e ${CAL:+STARPU_CALIBRATE=1} bin/ondes3d run $big --steps ${3:-300} --blocks $l --edge-strip $strip \
    --sched $sched --output /tmp/r.h5 2>&1 | grep -o 'done in.*cell-updates/s'
}
calibrate bin/ondes3d 1x1 STARPU_NCUDA=1
for l in 1x2 1x2+16; do for m in $modes; do CAL=1 srate $l $m 40 > /dev/null; done; done
for rep in 1 2; do
  echo "1 GPU 1x1 #$rep: $(rate bin/ondes3d 1x1 STARPU_NCUDA=1)"
  for l in 1x2 1x2+16; do for m in $modes; do echo "2 GPUs $l $m #$rep: $(srate $l $m)"; done; done
done
