#!/usr/bin/env bash
# Written by gpuwise setup (pytorch, ascend, ascend-910b, CANN 8.0.0, python 3.10). Why each pin: gpuwise setup --explain
set -euo pipefail
cd "$(dirname "$0")"
"${PYTHON:-python3}" -c 'import torch, torch_npu; print(torch.__version__, torch.npu.is_available())'
# gpuwise doctor checks driver, wheel and GPU together; PYTHON= the environment's python
if command -v gpuwise >/dev/null 2>&1; then
  gpuwise doctor ${PYTHON:+--python "$PYTHON"}
else
  echo "gpuwise is not installed: pip install gpuwise, then run: gpuwise doctor" >&2
fi
