"""What is known about a machine, read without touching it: pure and shared.

The live probes (probe/) run tools and read files; `doctor --from` reads what a user pasted.
Both turn text into facts through the parsers here (nvidia-smi XML, kernel log, os-release,
npu-smi, rocm-smi, nvcc, Ollama's API and settings), both report through the typed outcomes of
:mod:`gpuwise.parse.result`, and the doctor's rules and `setup` read those facts through
:mod:`gpuwise.parse.view`. Nothing in this package does I/O, so doctor and setup import no
probe module.
"""
