#!/usr/bin/env bash
# Written by gpuwise setup (qlora, amd, mi300x, gfx942, ubuntu22.04, python 3.12). Why each pin: gpuwise setup --explain
# gpuwise never runs this script: read it, then run it yourself.
set -euo pipefail
. /etc/os-release
if [ "${ID:-}" != "ubuntu" ]; then
  echo "This script is for Ubuntu; follow your distribution's driver guide." >&2
  exit 1
fi
sudo apt-get update
# ROCm: install amdgpu-install for this Ubuntu release from AMD's repository
# (https://rocm.docs.amd.com/projects/install-on-linux/), then:
sudo apt-get install -y --no-install-recommends "linux-headers-$(uname -r)"
sudo amdgpu-install -y --usecase=dkms
sudo usermod -aG render,video "$USER"
echo "Reboot, then run ./verify.sh"
