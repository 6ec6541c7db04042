"""`gpuwise doctor --from FILE…`: diagnose text someone pasted from another machine.

Each module here recognises one kind of output (nvidia-smi's table, `python -m
torch.utils.collect_env`, an `ollama serve` log, …) anywhere in the text, in any mix and order,
and turns it into facts; :mod:`.assemble` shapes those facts like the probes' results so the same
rules run on them. Everything is a pure function of the text: nothing on this machine is read.
"""
