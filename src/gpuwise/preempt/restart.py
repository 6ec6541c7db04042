"""How the command is run again: the checkpoint put into its arguments, and the wait (pure).

`{last_checkpoint}` anywhere in an argument is replaced by the checkpoint's path. With no
checkpoint yet (a first start) the placeholder cannot be filled, and a setting that carries it is
dropped rather than passed empty: `--resume_from_checkpoint {last_checkpoint}` (two arguments),
`--resume={last_checkpoint}` and `resume_from_checkpoint={last_checkpoint}` (LLaMA-Factory's
key=value overrides) all disappear, so the trainer starts from scratch. Any other argument
holding it gets an empty string. The same path is exported as
GPUWISE_LAST_CHECKPOINT for scripts that prefer to read it themselves.
"""

from __future__ import annotations

PLACEHOLDER = "{last_checkpoint}"


def substitute(argv: list[str], checkpoint: str | None) -> list[str]:
    """The command with `{last_checkpoint}` filled in (no checkpoint: see the module doc)."""
    if checkpoint is not None:
        return [a.replace(PLACEHOLDER, checkpoint) for a in argv]
    out: list[str] = []
    for arg in argv:
        if arg == PLACEHOLDER and out and out[-1].startswith("-"):
            out.pop()
            continue
        if arg.endswith("=" + PLACEHOLDER):
            continue
        out.append(arg.replace(PLACEHOLDER, ""))
    return out


def uses_placeholder(argv: list[str]) -> bool:
    """Whether the command asks for the checkpoint in its arguments."""
    return any(PLACEHOLDER in a for a in argv)


def backoff_s(attempt: int, base_s: float, cap_s: float) -> float:
    """Wait before restart number `attempt` (1-based): base, 2×base, 4×base, … at most cap."""
    if attempt < 1:
        return 0.0
    return float(min(cap_s, base_s * 2 ** (attempt - 1)))
