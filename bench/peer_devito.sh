#!/usr/bin/env bash
# The CPU peer benchmark (bench/peer_devito.py): makes .venv-peer with Devito 4.8.23 from PyPI
# (once; not a test dependency), then runs Devito's elastic operator and ondes3d side by side.
#   bench/peer_devito.sh [--cores N] [--cases CASE:STEPS[:BLOCKS] ...] [--out results.csv] [--bin ondes3d]
# PEER_PYTHON=/path/to/python uses an interpreter that already has Devito (the GPU machine's).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
python=${PEER_PYTHON:-}
if [ -z "$python" ]; then
  venv=$here/.venv-peer
  python=$venv/bin/python
  if ! "$python" -c "import devito, scipy, pytest" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check devito==4.8.23 scipy pytest
  fi
fi
exec "$python" "$here/bench/peer_devito.py" "$@"
