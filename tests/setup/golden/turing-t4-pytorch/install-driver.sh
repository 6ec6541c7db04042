#!/usr/bin/env bash
# Written by gpuwise setup (pytorch, nvidia, t4, sm 7.5, driver 535.104.05, ubuntu22.04, python 3.10). Why each pin: gpuwise setup --explain
# gpuwise never runs this script: read it, then run it yourself.
set -euo pipefail
. /etc/os-release
if [ "${ID:-}" != "ubuntu" ]; then
  echo "This script is for Ubuntu; follow your distribution's driver guide." >&2
  exit 1
fi
sudo apt-get update
# The pinned wheels need NVIDIA driver >= 525; DKMS rebuilds it per kernel.
sudo apt-get install -y --no-install-recommends "linux-headers-$(uname -r)" dkms
# Branch 580, the one gpuwise setup chose for these pins.
sudo apt-get install -y nvidia-driver-580
echo "Reboot, then run ./verify.sh"
