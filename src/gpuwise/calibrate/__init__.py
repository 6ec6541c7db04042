"""`gpuwise calibrate`: feed this machine's measured rates back into `estimate` and `plan`.

:mod:`gpuwise.calibrate.entries` (pure) turns a bench result into `measured_rate` catalog
entries; :mod:`gpuwise.calibrate.store` writes them into one gpuwise-managed override file
(marked on its first line), shows and removes it, and never touches a file the user wrote.
"""
