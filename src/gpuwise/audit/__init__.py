"""`gpuwise audit`: pure rules that turn the facts the audit probes saw into findings.

Nothing in this package touches the machine (probe/audit_*.py do); every rule reads its
thresholds, ports and fixed versions from the catalog (data/audit.toml) through AuditTables.
"""
