#!/usr/bin/env bash
# Written by gpuwise setup (pytorch, nvidia, v100-32gb, sm 7.0, driver 580.95.05, ubuntu22.04, python 3.11). Why each pin: gpuwise setup --explain
set -euo pipefail
cd "$(dirname "$0")"
if [ -f compose.yaml ] && command -v docker >/dev/null 2>&1; then
  docker compose build
  docker compose run --rm --entrypoint python app -c 'import torch; print(torch.__version__, torch.version.cuda or torch.version.hip, torch.cuda.is_available())'
fi
# gpuwise doctor checks driver, wheel and GPU together; PYTHON= the environment's python
if command -v gpuwise >/dev/null 2>&1; then
  gpuwise doctor ${PYTHON:+--python "$PYTHON"}
else
  echo "gpuwise is not installed: pip install gpuwise, then run: gpuwise doctor" >&2
fi
