"""Normalize a Hugging Face config.json of any causal LM onto the catalog's model fields.

Architectures name the same shape differently: GPT-J and GPT-BigCode say `n_embd`/`n_layer`,
MPT `d_model`/`n_layers`, ChatGLM `num_layers`/`padded_vocab_size`, Falcon `n_head_kv` or
`multi_query`, Qwen v1 counts both halves of its gated FFN in `intermediate_size`. Each family
reader below states where its defaults come from (the transformers config class or the
checkpoint's own remote code). What is not a causal LM (T5, BART, BERT, diffusion pipelines,
vision or speech encoders) is refused with a UserError naming the architecture.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpuwise.catalog.hf_families import FAMILY_READERS, Config, ModelTraits, first, words
from gpuwise.catalog.hf_layers import attention_pattern, moe_fields, ssm_fields
from gpuwise.catalog.hf_modern import (
    ENCODER_TYPES,
    MODERN_READERS,
    linear_fields,
    sparse_fields,
    vision_fields,
)
from gpuwise.errors import UserError

# model_type → the kind of model gpuwise does not model (a `model.kind.*` message key).
_REFUSED_KINDS = {
    "encoder_decoder": "t5 mt5 umt5 bart mbart pegasus marian longt5 switch_transformers led "
    "prophetnet fsmt m2m_100 nllb_moe plbart bigbird_pegasus blenderbot blenderbot-small "
    "encoder-decoder t5gemma",
    "encoder_only": "deberta deberta-v2 distilbert albert electra "
    "modernbert camembert ernie mpnet xlm nomic_bert",
    "vision": "vit clip_vision_model siglip_vision_model dinov2 resnet convnext swin beit deit "
    "detr yolos segformer sam mobilevit clip siglip efficientnet regnet",
    "audio": "whisper wav2vec2 hubert wavlm speech_to_text seamless_m4t encodec musicgen bark",
}
_REFUSED = {mt: kind for kind, types in _REFUSED_KINDS.items() for mt in words(types)}
_NESTED_TEXT = ("text_config", "llm_config", "language_config")
_READERS = {**FAMILY_READERS, **MODERN_READERS}
_ENCODER_HEADS = ("Model", "ForSequenceClassification")


def refuse_if_not_causal(cfg: Config, where: str) -> None:
    """Raise a UserError naming the architecture when the config is not a decoder-only LM."""
    arch = _arch_name(cfg)
    kind = None
    if "_class_name" in cfg or "_diffusers_version" in cfg:
        kind = "diffusion"
    elif cfg.get("is_encoder_decoder"):
        kind = "encoder_decoder"
    else:
        model_type = str(cfg.get("model_type", "")).lower()
        kind = _REFUSED.get(model_type)
        archs = " ".join(str(a) for a in cfg.get("architectures") or [])
        if kind is None and any(s in archs for s in ("ForImageClassification", "ForMaskedLM")):
            kind = "vision" if "Image" in archs else "encoder_only"
        elif model_type in ENCODER_TYPES and archs and not archs.endswith(_ENCODER_HEADS):
            kind = "encoder_only"  # an encoder with a head other than an embedder's or reranker's
    if kind:
        from gpuwise.i18n import t

        raise UserError("model.not_causal_lm", path=where, arch=arch, kind=t(f"model.kind.{kind}"))


def _arch_name(cfg: Config) -> str:
    archs = cfg.get("architectures")
    if isinstance(archs, list) and archs:
        return str(archs[0])
    return str(cfg.get("_class_name") or cfg.get("model_type") or "unknown architecture")


def flatten_text_config(cfg: Config) -> Config:
    """Multimodal wrappers (Gemma 3, Llama 4, Mistral 3, InternVL) keep the LM in a sub-config."""
    for key in _NESTED_TEXT:
        sub = cfg.get(key)
        if isinstance(sub, dict) and any(k in sub for k in ("hidden_size", "num_hidden_layers")):
            top = {k: v for k, v in cfg.items() if k not in _NESTED_TEXT}
            return {**top, **sub, "architectures": cfg.get("architectures")}
    return cfg


def fields_from_config(cfg: Config, where: str) -> dict[str, Any]:
    """LlmModel fields (without name/id/source/params) from a config.json dict."""
    refuse_if_not_causal(cfg, where)
    top = cfg
    cfg = flatten_text_config(cfg)
    refuse_if_not_causal(cfg, where)
    model_type = str(cfg.get("model_type", "")).lower()
    reader: Callable[[Config], ModelTraits] = _READERS.get(model_type, FAMILY_READERS[""])
    traits = reader(cfg)
    if not (traits.hidden and traits.layers and (traits.heads or traits.ssm_only)):
        raise UserError("model.unknown_arch", path=where, arch=_arch_name(cfg))
    heads = traits.heads or 1
    fields: dict[str, Any] = {
        "family": model_type or "unknown",
        "layers": traits.layers,
        "hidden_size": traits.hidden,
        "intermediate_size": traits.intermediate or 4 * traits.hidden,
        "heads": heads,
        "kv_heads": traits.kv_heads or heads,
        "head_dim": traits.head_dim or max(1, traits.hidden // heads),
        "vocab_size": traits.vocab,
        "tied_embeddings": traits.tied,
        "max_context": traits.context or 4096,
        **traits.shape,
    }
    fields.update(attention_pattern(cfg, model_type, traits.layers))
    fields.update(moe_fields(cfg, model_type, fields))
    fields.update(ssm_fields(cfg, model_type, fields))
    fields.update(linear_fields(cfg, model_type, traits.layers))
    fields.update(sparse_fields(cfg))
    fields.update(vision_fields(top))
    fields.update(storage_fields(cfg))
    return fields


_DTYPES = {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32", "float": "fp32"}


def storage_fields(cfg: Config) -> dict[str, Any]:
    """The checkpoint's stored format, from `quantization_config` or `torch_dtype`/`dtype`."""
    q = cfg.get("quantization_config")
    if isinstance(q, dict):
        method = str(q.get("quant_method", "")).lower()
        bits = int(q.get("bits") or 4)
        if method in ("fp8", "mxfp4"):  # mxfp4: gpt-oss's experts, the rest bf16
            return {"weight_dtype": method, "weight_format_hint": method}
        if method in ("gptq", "awq"):
            hint = f"int{bits}-{method}" if method == "gptq" or bits == 4 else None
            return {"weight_dtype": f"{method}-int{bits}", "weight_format_hint": hint}
        if method == "bitsandbytes":
            if q.get("load_in_4bit") or q.get("_load_in_4bit"):
                return {"weight_dtype": "bnb-4bit", "weight_format_hint": "nf4"}
            return {"weight_dtype": "bnb-int8", "weight_format_hint": "int8"}
        if method:
            return {"weight_dtype": method}
    dtype = _DTYPES.get(str(first(cfg, "torch_dtype", "dtype", default="")).lower())
    return {"weight_dtype": dtype} if dtype else {}
