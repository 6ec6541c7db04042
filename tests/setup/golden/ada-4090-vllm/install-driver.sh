#!/usr/bin/env bash
# Written by gpuwise setup (vllm, nvidia, rtx-4090, sm 8.9, driver 580.65.06, ubuntu24.04, python 3.12). Why each pin: gpuwise setup --explain
# gpuwise never runs this script: read it, then run it yourself.
set -euo pipefail
. /etc/os-release
if [ "${ID:-}" != "ubuntu" ]; then
  echo "This script is for Ubuntu; follow your distribution's driver guide." >&2
  exit 1
fi
sudo apt-get update
# The pinned wheels need NVIDIA driver >= 580; DKMS rebuilds it per kernel.
sudo apt-get install -y --no-install-recommends "linux-headers-$(uname -r)" dkms
# Branch 580, the one gpuwise setup chose for these pins.
sudo apt-get install -y nvidia-driver-580
echo "Reboot, then run ./verify.sh"
