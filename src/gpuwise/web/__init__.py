"""`gpuwise serve`: local web pages and a JSON API over the same service layer as the CLI.

FastAPI and uvicorn are the `web` extra: nothing here is imported unless `gpuwise serve` runs
(or a test imports it), so the CLI's start-up never pays for them.
"""
