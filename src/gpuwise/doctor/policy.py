"""Judgement thresholds of the doctor (policy, not facts: change them freely).

Facts such as minimum driver versions live in the catalog with sources; these numbers only
decide when something is worth mentioning.
"""

from __future__ import annotations

GIB = 1024**3

# Another process holding more than this share of a GPU's memory is worth a warning: a job
# started now gets the rest, and "CUDA out of memory" follows.
HELD_MEMORY_FRACTION = 0.5
# Below this, /dev/shm is too small for NCCL's shared-memory transport and DataLoader workers in
# a container (Docker's default is 64 MiB).
SHM_MIN_BYTES = 1 * GIB
# An Ollama model with at least this share on the CPU counts as "running on the CPU".
OLLAMA_CPU_WARN_PERCENT = 1
