"""What a rendered plan must never show a reader, in either language: a raw configuration id
('own:mi355x-8gpu-server×1[2/8]', 'aliyun:ecs.gn7i:spot', '×4×2nodes'), an i18n key that was
never filled ('cost.item.network'), or, in Chinese, an English word that has a normal Chinese
rendering ('device-map', 'batch', 'yes'). Product names, catalog names, flags, scenario keys
and units stay as they are: they are stripped before the Chinese check, the rest must be on a
short allow-list (a blind review found all three defects; tests/advise/blind_wave6.yaml)."""

from __future__ import annotations

import re
from functools import cache

from gpuwise.catalog import Catalog
from gpuwise.i18n import messages

RAW_ID = re.compile(
    r"(?<![\w-])(?:own|rent):[a-z0-9]"  # a candidate's internal label
    r"|×\d+\[\d+/\d+\]"  # a system's devices used, as the label writes them
    r"|×\d+nodes\b"
    r"|(?<![\w-])[a-z0-9-]+:[^\s:]+:(?:spot|on-demand|monthly|reserved[\w-]*)\b"
)
DOTTED = re.compile(r"(?<![\w./-])([a-z][a-z_]*)((?:\.[a-z][a-z_]*)+)(?![\w/-])")
ASCII_WORD = re.compile(r"[A-Za-z][\w+\-]*(?:\.[A-Za-z][\w+\-]*)*")
FLAG = re.compile(r"--[a-z][\w-]*(?: (?![\u4e00-\u9fff])[^\s，。；）]+)?")
SCENARIO_SETTING = re.compile(r"\b[a-z_][\w.]*:(?: \{[^}]*\}| [^\s，。；）)]+)?")
COMMAND = re.compile(r"\bgpuwise(?: [a-z][\w-]*)*")
VERSION = re.compile(r"(?<![\w-])v\d[\w.]*")
FILE_PATH = re.compile(r"(?<![\w/.-])(?:[\w.-]+/)+[\w.-]+\.(?:md|toml|yaml|json)\b")
"""A file the text points to (docs/catalog-format.md): a name, not prose to translate."""
KERNEL = re.compile(r"(?<![\w.-])[a-z0-9]+(?:_[a-z0-9]+)+(?![\w.-])")
"""A kernel or backend named as the engine spells it (gptq_marlin): a name, not prose."""
ADDRESS = re.compile(r"\b[\w-]+(?:\.[\w-]+)*\.(?:org|com|cn|ai|io|net|cpp)\b")

ALLOWED_IN_ZH = frozenset(
    (
        # units and measures
        "GB",
        "GiB",
        "TB",
        "MB",
        "kW",
        "W",
        "kWh",
        "MWh",
        "h",
        "s",
        "tokens",
        "token",
        "p10",
        "p90",
        "PUE",
        "TDP",
        "ECC",  # error-correcting memory, as Chinese server specs write it (ECC 内存)
        "Mac",  # product names the rule on consumer cards in racks cites (桌面 Mac, Radeon RX)
        "RX",
        # fused training kernels named in risk.fused_only, and logits as Chinese ML texts write it
        "Hugging",
        "Face",
        "Liger",
        "logits",
        "x",
        "B",
        "M",
        "K",
        # Intel's device names as its software writes them (the PyTorch "XPU" device, Arc cards)
        "XPU",
        # backends and packages named in the compat notes a refused card is quoted with
        # (plan.note_cards_refused): llama.cpp's Vulkan backend, the XLA compiler, vLLM's TPU
        # plugin
        "Vulkan",
        "FP8-Marlin",  # vLLM's weight-only FP8 kernel (Ampere), as its docs name it
        "xla",
        "tpu-inference",
        "Pallas",  # JAX's kernel language for TPU (the FlashAttention kernel's note)
        "Llama",  # the model family named in a rule's recipe (micro-batch-assumed)
        # CPU architectures as Chinese technical writing names them (risk.arm_host)
        "Arm",
        "aarch64",
        "x86",
        "Arc",
        # data-protection law and certification quoted by name (GDPR Art. 28, ISO 27001)
        "GDPR",
        "ISO",
        # the distributed runtime vLLM launches a replica across machines with
        "Ray",
        # a US rate and regulation quoted by name (F&A, 2 CFR 200.1)
        "F",
        "A",
        "CFR",
        # hardware, links and numeric formats with no other usual name in Chinese
        "GPU",
        "CPU",
        "NPU",
        "TPU",
        "APU",
        "KV",
        "IP",
        "API",
        "SLA",
        "N+1",
        "PCIe",
        "NVLink",
        "SXM",
        "OAM",
        "SXM2",
        "SXM4",
        "SXM5",
        "HGX",
        "DGX",
        "Gb",
        "InfiniBand",
        "RoCE",
        "RDMA",
        # quantization schemes and model families quoted by name in the compat notes
        "W8A8SC",
        "W8A8",
        "Qwen3",
        "Silicon",
        "bf16",
        "fp16",
        "fp8",
        "FP8",
        "INT8",  # a number format, as FP8
        "NVFP4",  # NVIDIA's 4-bit float format (Blackwell)
        "W8A8",  # Ascend's integer quantization schemes (weights/activations bits)
        "W8A16",
        "W4A8",
        "W4A16",
        "fp32",
        "int8",
        "int4",
        "float16",
        "bfloat16",
        "half",
        "dtype",
        "tokens/s",
        "ZeRO-1",
        "ZeRO-2",
        "ZeRO-3",
        "FSDP",
        "DDP",
        "LoRA",
        "QLoRA",
        "GPTQ",
        "AWQ",
        "GGUF",
        "k-quant",  # llama.cpp's quantization family (Q3_K_M, Q4_K_M)
        "Llama-3-8B",  # the model llama.cpp measures its formats' perplexity on
        "MoE",
        "MLA",
        "GQA",
        "MPS",
        "eager",
        "JSON",
        "json",
        "YAML",
        "CUDA",
        "ROCm",
        "CANN",
        "Metal",
        "macOS",
        "Linux",
        "Windows",
        "XLA",
        "Neuron",
        "oneAPI",
        "Gaudi",
        "RDNA",
        "CDNA",
        "Turing",
        "Volta",
        "Ampere",
        "Ada",
        "Hopper",
        "Blackwell",
        "Pascal",
        "Lovelace",
        "SM120",
        "GeForce",
        "Tesla",
        # vendors, projects and flag values named as they name themselves
        "NVIDIA",
        "AMD",
        "Intel",
        "Huawei",
        "Moore",
        "Threads",
        # Chinese accelerator makers, named in Chinese with their own brand in brackets
        # (寒武纪（Cambricon）): the domestic-only rule lists them (blind w60-01)
        "Cambricon",
        "Biren",
        "Hygon",
        "Iluvatar",
        "CoreX",
        "MetaX",
        "Kunlunxin",
        "Enflame",
        "MUSA",
        "GPUStack",
        "Apple",
        "Google",
        "AWS",
        "Azure",
        "Ascend",
        "Atlas",
        "Radeon",
        "Instinct",
        "PyTorch",
        "vLLM",
        "SGLang",
        "DeepSpeed",
        "FlashAttention",
        "TensorRT-LLM",
        "Triton",
        "MindSpore",
        "MindIE",
        "torch_npu",
        "transformers",
        "sentence-transformers",
        "Text",
        "Embeddings",
        "Inference",
        "pooling",
        "Ollama",
        "ollama",
        "llama.cpp",
        "bitsandbytes",
        "Unsloth",
        "JAX",
        "TensorFlow",
        "ATB",
        "torch.compile",
        "awq_marlin",
        "vllm-ascend",
        "Snt3",
        "Snt9",
        "Snt9B",
        "Snt9C",
        "MI300x",
        "YYYY-MM-DD",
        "e.g",
        "USD",
        "CNY",
        "EUR",
    )
)


@cache
def _i18n_namespaces() -> frozenset[str]:
    return frozenset(k.split(".")[0] for k in messages())


def _catalog_strings(cat: Catalog) -> list[str]:
    """Every name or id the catalog gives a thing a reader may see named (longest first)."""
    names: set[str] = set()
    for g in cat.gpus:  # an architecture is a product name too ("MUSA (3rd gen)", "Da Vinci")
        names |= {g.id, g.name, g.architecture or "", *g.aliases}
    for m in cat.models:
        names |= {m.id, m.name, *m.hf_repos, *m.ollama_tags, *m.aliases}
    for p in cat.providers.values():
        names |= {p.id, p.name_en, p.name_zh, *p.rdma_clusters, *p.domestic_accelerators}
    names |= {o.instance for o in cat.offers}
    for kind in ("system", "engine", "rule", "region", "weight_format", "precision", "site"):
        for row in cat.extra(kind):
            names |= {getattr(row, f) for f in ("id", "name") if getattr(row, f, None)}
            names |= set(getattr(row, "aliases", ()) or ())
    return sorted((n for n in names if n), key=len, reverse=True)


LATIN = r"[A-Za-z0-9_-]"
"""A name's edge: a Latin letter, digit or dash goes on the word; a Chinese character abuts it
as written Chinese does ("Verda（DataCrunch）的 b300")."""


def _catalog_pattern(cat: Catalog) -> re.Pattern[str]:
    return cat.derived(
        "test-plan-text-names",
        lambda: re.compile(
            "|".join(rf"(?<!{LATIN}){re.escape(n)}(?!{LATIN})" for n in _catalog_strings(cat))
        ),
    )


def text_defects(cat: Catalog, text: str, lang: str, user: tuple[str, ...] = ()) -> list[str]:
    """The raw ids, unfilled i18n keys and (zh) stray English words in a rendered plan; `user`:
    what the user wrote and the plan quotes back (the scenario's name, the model asked for)."""
    found = [f"raw id {m.group(0)!r}" for m in RAW_ID.finditer(text)]
    spaces = _i18n_namespaces()
    found += [f"i18n key {m.group(0)!r}" for m in DOTTED.finditer(text) if m.group(1) in spaces]
    if lang == "zh":
        for quoted in sorted(filter(None, user), key=len, reverse=True):
            text = re.sub(rf"(?<!{LATIN}){re.escape(quoted)}(?!{LATIN})", " ", text)
        # a setting first: its key may also be a catalog word ('region: any')
        rest = _catalog_pattern(cat).sub(" ", SCENARIO_SETTING.sub(" ", text))
        for pattern in (ADDRESS, FILE_PATH, COMMAND, FLAG, VERSION, KERNEL):
            rest = pattern.sub(" ", rest)
        words = {w.strip("-") for w in ASCII_WORD.findall(rest)}
        found += [f"English word {w!r}" for w in sorted(words - ALLOWED_IN_ZH) if w]
    return found
