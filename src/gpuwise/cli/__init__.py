"""Command-line interface: thin modules that parse, call the core and render.

typer validates option values with pydantic, whose import scans every installed package for
pydantic plugins (importlib.metadata). gpuwise uses none, so the CLI turns the scan off for its
own process unless the user set the variable; this keeps start-up within its 0.25 s budget.
"""

import os

os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
