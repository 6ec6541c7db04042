"""Pure estimators: memory (VRAM per GPU) and speed, over catalog data. No I/O."""
