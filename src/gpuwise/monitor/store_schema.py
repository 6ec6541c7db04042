"""The run store's tables (schema version 1), documented for other tools in docs/monitor.md.

Units are in the column names; every sample table is keyed by (run_id, t). Kept apart from the
store's code so the schema can be read (and diffed between versions) on its own.
"""

SCHEMA_VERSION = 1
DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  command TEXT NOT NULL,
  source TEXT NOT NULL,
  host TEXT NOT NULL,
  started_at REAL NOT NULL,
  ended_at REAL,
  exit_code INTEGER,
  status TEXT NOT NULL,
  interval_s REAL NOT NULL,
  recorder_pid INTEGER,
  child_pid INTEGER,
  attribution TEXT NOT NULL DEFAULT 'process',
  gpus TEXT NOT NULL DEFAULT '[]',
  options TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS gpu_samples (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  t REAL NOT NULL, span_s REAL NOT NULL, n INTEGER NOT NULL DEFAULT 1,
  vendor TEXT NOT NULL, gpu INTEGER NOT NULL,
  memory_used_bytes REAL, memory_used_max_bytes REAL, utilization_pct REAL,
  temperature_c REAL, temperature_max_c REAL, power_w REAL, power_max_w REAL,
  energy_j REAL, sm_clock_mhz REAL, throttle TEXT
);
CREATE INDEX IF NOT EXISTS gpu_samples_run ON gpu_samples (run_id, t);
CREATE TABLE IF NOT EXISTS proc_samples (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  t REAL NOT NULL, span_s REAL NOT NULL, vendor TEXT NOT NULL, gpu INTEGER NOT NULL,
  pid INTEGER NOT NULL, gpu_memory_bytes REAL, gpu_memory_max_bytes REAL
);
CREATE INDEX IF NOT EXISTS proc_samples_run ON proc_samples (run_id, t);
CREATE TABLE IF NOT EXISTS host_samples (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  t REAL NOT NULL, span_s REAL NOT NULL, n INTEGER NOT NULL DEFAULT 1,
  cpu_percent REAL, memory_used_bytes REAL, memory_used_max_bytes REAL,
  tree_procs INTEGER, tree_rss_bytes REAL, tree_rss_max_bytes REAL, tree_cpu_percent REAL
);
CREATE INDEX IF NOT EXISTS host_samples_run ON host_samples (run_id, t);
CREATE TABLE IF NOT EXISTS events (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  t REAL NOT NULL, vendor TEXT, gpu INTEGER, kind TEXT NOT NULL, detail TEXT NOT NULL
);
"""
