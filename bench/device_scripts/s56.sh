#!/bin/bash
# Open MPI's shared-memory fragments for the ranks' halos (s55: copy-in/copy-out, ~3.3 MB a face a
# half step): the default 32 KiB fragments against 256 KiB and 1 MiB (btl_vader_max_send_size,
# with the eager limit at 32 KiB), and CMA single copy (if the machine allows it), 2 ranks at 1x2+32
# and 4 at 1x4+16.
cd "$(dirname "$0")"
MODES="default OMPI_MCA_btl_vader_max_send_size=262144,OMPI_MCA_btl_vader_eager_limit=32768 OMPI_MCA_btl_vader_max_send_size=1048576,OMPI_MCA_btl_vader_eager_limit=32768 OMPI_MCA_btl_vader_single_copy_mechanism=cma" \
  bash s55.sh "$@"
