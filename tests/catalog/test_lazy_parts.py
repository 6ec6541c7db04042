"""The cached catalog keeps cloud data and extra kinds pickled until a command reads them."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

from gpuwise.catalog.lazy import LazyParts


def test_parts_pickle_one_by_one_and_unpickle_on_first_use() -> None:
    parts = LazyParts({"offers": (1, 2), "extra:tariff": ("a",)})
    back = pickle.loads(pickle.dumps(parts))
    assert back._values == {} and set(back._packed) == {"offers", "extra:tariff"}
    assert back["offers"] == (1, 2)
    assert set(back._values) == {"offers"}  # the other part is still bytes
    assert "extra:tariff" in back and "missing" not in back
    assert list(back) == ["extra:tariff", "offers"] and len(back) == 2
    assert back.get("missing", ()) == ()


def test_a_cached_catalog_loads_without_the_cloud_and_setup_schemas(tmp_path: Path) -> None:
    """What `estimate` pays for: GPUs and models, not the offers' or setup pins' classes."""
    code = (
        "import sys\n"
        "from gpuwise.catalog import load_catalog\n"
        "cat = load_catalog()\n"
        "cat.gpu('4090'); cat.extra('decode_efficiency')\n"
        "lazy = [m for m in ('gpuwise.catalog.schema_cloud', 'gpuwise.catalog.schema_setup',"
        " 'gpuwise.catalog.schema_audit') if m in sys.modules]\n"
        "n = len(cat.offers)\n"
        "print(len(lazy), n > 0, 'gpuwise.catalog.schema_cloud' in sys.modules)\n"
    )
    env = {**os.environ, "GPUWISE_CACHE_DIR": str(tmp_path)}
    first = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    second = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert second.returncode == 0, second.stderr
    assert second.stdout.split() == ["0", "True", "True"]


def test_with_part_replaces_one_part_and_keeps_the_rest() -> None:
    from gpuwise.catalog import load_catalog

    cat = load_catalog()
    fewer = cat.with_part("offers", cat.offers[:3])
    assert len(fewer.offers) == 3 and len(cat.offers) > 3
    assert fewer.providers == cat.providers and fewer.extra("tariff") == cat.extra("tariff")
    assert pickle.loads(pickle.dumps(fewer)).offers == fewer.offers
