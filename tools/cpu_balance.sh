#!/bin/bash
# Even against PML-balanced cuts (run.balance) on CPU workers only: absorbing.toml, 200 steps, each
# layout both ways, with StarPU's idle share.
#   tools/cpu_balance.sh ["CORES:LAYOUT ..."]          (repository: build/ondes3d)
#   bash bundle/tools/cpu_balance.sh ["CORES:LAYOUT ..."]  (GPU machine: the bundle's bin/ondes3d)
here=$(cd "$(dirname "$0")/.." && pwd)
if [ -d "$here/bin" ]; then
  export LD_LIBRARY_PATH=$here/lib STARPU_SILENT=1
  for f in "$here"/bin/*.gz; do [ -f "${f%.gz}" ] || gunzip -k "$f"; done
  bin=$here/bin/ondes3d
else
  bin=$here/build/ondes3d
fi
for nb in ${1:-8:2x4 16:2x8 16:1x16 16:4x4 16:4x8}; do
  n=${nb%%:*} b=${nb#*:}
  for bal in even pml; do
    echo -n "$n cores $b $bal: "
    STARPU_NCPU=$n STARPU_NCUDA=0 "$bin" run "$here/inputs/absorbing.toml" --steps 200 --blocks "$b" --balance $bal \
      --output /tmp/cpu_balance.h5 2>&1 | grep -E "done in|profile" |
      sed 's/.*info: //; s/seismograms.*//; s/tasks, cpu/tasks; cpu/' | tr '\n' ' '
    echo
  done
done
