"""A tiny randomly initialised Stable Diffusion pipeline, built offline from configs (for tests).

It exercises the real diffusers code path (tokenizer, CLIP text encoder, UNet, VAE, scheduler)
in well under a second per image on a CPU; its pictures are noise-like, not photographs.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from mnemoforge.backends.image.diffusion import _require_ml

BOS, EOS = "<|startoftext|>", "<|endoftext|>"


def _byte_chars() -> list[str]:
    """GPT-2/CLIP byte-to-unicode table: one printable character for each of the 256 bytes."""
    bs = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return [chr(c) for c in cs]


def tiny_vocab() -> dict[str, int]:
    """A byte-level BPE vocabulary with no merges: every byte, alone and word-final, plus BOS/EOS."""
    chars = _byte_chars()
    tokens = [*chars, *(c + "</w>" for c in chars), BOS, EOS]
    return {t: i for i, t in enumerate(tokens)}


def tiny_tokenizer() -> Any:
    """A ``CLIPTokenizer`` from a vocab.json/merges.txt written to a temporary folder (no download)."""
    from transformers import CLIPTokenizer

    with tempfile.TemporaryDirectory(prefix="mnemoforge-tok-") as d:
        vocab, merges = Path(d) / "vocab.json", Path(d) / "merges.txt"
        vocab.write_text(json.dumps(tiny_vocab()), encoding="utf-8")
        merges.write_text("#version: 0.2\n", encoding="utf-8")
        return CLIPTokenizer(str(vocab), str(merges), model_max_length=77)


def tiny_pipeline(seed: int = 0) -> Any:
    """A tiny ``StableDiffusionPipeline`` (32x32 native) with weights from ``torch.manual_seed(seed)``."""
    _require_ml()
    import torch
    from diffusers import AutoencoderKL, DDIMScheduler, StableDiffusionPipeline, UNet2DConditionModel
    from transformers import CLIPTextConfig, CLIPTextModel

    tokenizer = tiny_tokenizer()
    vocab = tokenizer.get_vocab()
    torch.manual_seed(seed)
    unet = UNet2DConditionModel(
        sample_size=16,
        in_channels=4,
        out_channels=4,
        layers_per_block=1,
        block_out_channels=(32, 64),
        down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"),
        up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"),
        cross_attention_dim=32,
        attention_head_dim=4,
        norm_num_groups=8,
    )
    vae = AutoencoderKL(
        in_channels=3,
        out_channels=3,
        latent_channels=4,
        block_out_channels=(16, 32),
        layers_per_block=1,
        down_block_types=("DownEncoderBlock2D",) * 2,
        up_block_types=("UpDecoderBlock2D",) * 2,
        norm_num_groups=8,
        sample_size=32,
    )
    text_encoder = CLIPTextModel(
        CLIPTextConfig(
            vocab_size=1000,
            hidden_size=32,
            intermediate_size=37,
            num_attention_heads=4,
            num_hidden_layers=2,
            max_position_embeddings=77,
            projection_dim=32,
            bos_token_id=vocab[BOS],
            eos_token_id=vocab[EOS],
            pad_token_id=vocab[EOS],
        )
    )
    scheduler = DDIMScheduler(
        beta_start=0.00085,
        beta_end=0.012,
        beta_schedule="scaled_linear",
        clip_sample=False,
        set_alpha_to_one=False,
        steps_offset=1,
    )
    pipe = StableDiffusionPipeline(
        vae=vae.eval(),
        text_encoder=text_encoder.eval(),
        tokenizer=tokenizer,
        unet=unet.eval(),
        scheduler=scheduler,
        safety_checker=None,
        feature_extractor=None,
        requires_safety_checker=False,
    )
    pipe.set_progress_bar_config(disable=True)
    return pipe
