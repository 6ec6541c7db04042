"""`gpuwise bench`: measure what this machine's accelerator reaches, beside its datasheet.

Edge code beside :mod:`gpuwise.probe`: it imports PyTorch (lazily, only here: the product runs
without it) and the monitor's samplers. The arithmetic (FLOPs, bytes, bus bandwidth, statistics)
and the verdicts are pure functions (:mod:`gpuwise.bench.formulas`, :mod:`gpuwise.bench.verdict`).
Methods follow mamf-finder (matmul sweep), nvbandwidth (copies) and nccl-tests (busbw); see
docs in each module and research notes wave2.md §2.
"""
