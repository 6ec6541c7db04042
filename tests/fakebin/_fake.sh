#!/bin/sh
# Stand-in for a vendor tool, for gpuwise's probe tests (written for gpuwise, not recorded).
# Usage (through a symlink or wrapper named like the tool): the tool name picks the variables
#   FAKE_<TOOL>_MODE  ok | fail | hang | garbage | crash | empty
#   FAKE_<TOOL>_FILE  file printed in "ok" mode
#   FAKE_<TOOL>_MSG   line printed in "fail" mode (exit code FAKE_<TOOL>_RC, default 1)
# where <TOOL> is the tool name upper-cased with - turned into _ (nvidia-smi -> NVIDIA_SMI).
tool=$(basename "$0")
var=$(printf '%s' "$tool" | tr 'a-z-' 'A-Z_')
eval "mode=\${FAKE_${var}_MODE:-ok}"
eval "file=\${FAKE_${var}_FILE:-}"
eval "msg=\${FAKE_${var}_MSG:-error}"
eval "rc=\${FAKE_${var}_RC:-1}"
case "$mode" in
  ok) [ -n "$file" ] && cat "$file"; exit 0 ;;
  fail) printf '%s\n' "$msg"; exit "$rc" ;;
  hang) exec sleep 60 ;;
  garbage) printf '\000\001\377<nvidia_smi_log><gpu>\200 not what you expect {"models": [\n'; exit 0 ;;
  crash) kill -SEGV $$ ;;
  empty) exit 0 ;;
esac
printf 'unknown fake mode %s\n' "$mode" >&2
exit 2
