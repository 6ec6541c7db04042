#!/usr/bin/env bash
# Written by gpuwise setup (pytorch, apple, apple-m3-max, macos, python 3.12). Why each pin: gpuwise setup --explain
set -euo pipefail
cd "$(dirname "$0")"
"${PYTHON:-python3}" -c 'import torch; print(torch.__version__, torch.backends.mps.is_available())'
# gpuwise doctor checks driver, wheel and GPU together; PYTHON= the environment's python
if command -v gpuwise >/dev/null 2>&1; then
  gpuwise doctor ${PYTHON:+--python "$PYTHON"}
else
  echo "gpuwise is not installed: pip install gpuwise, then run: gpuwise doctor" >&2
fi
