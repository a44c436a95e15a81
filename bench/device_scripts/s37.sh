#!/bin/bash
# Where 4x4 loses against 1x1 on one GPU (the kept build of s35): benchmark.toml as is, without
# the free surface (no image kernel; the stations 1 km deep, out of the top PML), with the
# thinnest PML (pml_width = 2, a fifth of the PML cells) and with both, StarPU dmda 1x1 and 4x4,
# 300 steps, two rounds after a calibration run each.
cd "$(dirname "$0")"
. ./common.sh "$@"
nvidia-smi --query-gpu=name --format=csv,noheader
export STARPU_NCPU=0 STARPU_NCUDA=1
sed -e 's/^free_surface = true/free_surface = false/' -e 's/^\(position = .*\), 0.0\]/\1, 1000.0]/' $big > /tmp/nofs.toml
sed 's/^pml_width = 10/pml_width = 2/' $big > /tmp/pml2.toml
sed 's/^pml_width = 10/pml_width = 2/' /tmp/nofs.toml > /tmp/nofs_pml2.toml
for c in $big /tmp/nofs.toml /tmp/pml2.toml /tmp/nofs_pml2.toml; do
  for l in 1x1 4x4; do
    STARPU_CALIBRATE=1 bin/ondes3d run $c --steps 40 --blocks $l --sched dmda --output /tmp/c.h5 > $o/calib_$(basename $c .toml)_$l.log 2>&1
    for rep in 1 2; do
      echo "$(basename $c .toml) $l #$rep: $(bin/ondes3d run $c --steps 300 --blocks $l --sched dmda --output /tmp/r.h5 2>&1 | grep -oE 'done in.*cell-updates/s|error.*' | head -1)"
    done
  done
done
