#!/usr/bin/env bash
# Written by gpuwise setup (ollama, amd, gfx1031, ubuntu22.04, python 3.11). Why each pin: gpuwise setup --explain
set -euo pipefail
cd "$(dirname "$0")"
if [ -f compose.yaml ] && command -v docker >/dev/null 2>&1; then
  docker compose build
  docker compose up -d --wait
  curl -fsS http://127.0.0.1:11434/api/version
fi
# gpuwise doctor checks driver, wheel and GPU together; PYTHON= the environment's python
if command -v gpuwise >/dev/null 2>&1; then
  gpuwise doctor ${PYTHON:+--python "$PYTHON"}
else
  echo "gpuwise is not installed: pip install gpuwise, then run: gpuwise doctor" >&2
fi
