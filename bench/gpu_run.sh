#!/usr/bin/env bash
# The GPU run of issue 13 in one command (about 10 minutes on one H200):
#   bash bench/gpu_run.sh            (from the repository root; results in $OUT or /tmp/gpu-run)
# Uses the CUDA target if this Python already has one; otherwise installs the project's `cuda`
# extra (numba-cuda) -- from $WHEELS (a folder of wheels) when set, for machines without an
# index. Then runs bench/gpu_solve.py: GPU vs CPU check at n = 8, carry-over n = 10 and 11 on the
# GPU (matrix games/s against all CPU cores), and the 13-card carry-over game if the measured
# rate says it fits in the time left.
set -euo pipefail
PY=${PYTHON:-python3}
OUT=${OUT:-/tmp/gpu-run}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$OUT/gpu.txt" || true
if ! "$PY" -c "from numba import cuda; assert cuda.is_available()" 2>/dev/null; then
  if [ -n "${WHEELS:-}" ]; then
    "$PY" -m pip install -q --no-index --find-links "$WHEELS" -e '.[cuda]'
  else
    "$PY" -m pip install -q -e '.[cuda]'
  fi
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
timeout 570 "$PY" bench/gpu_solve.py --out "$OUT" --budget 540 2>&1 | tee "$OUT/log.txt"
