"""`python -m gpuwise`."""

from gpuwise.cli.app import run

run()
