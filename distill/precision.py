"""Mixed precision: which autocast dtype, and whether a GradScaler is needed (fp16 only).

`auto` follows the hardware: bf16 on a CUDA device that supports it, and on a CPU only where
bf16 is native (AVX-512 BF16 or AMX); elsewhere (e.g. AVX2-only CPUs, where bf16 autocast
trains about 20x slower than fp32) fp32.
"""

from __future__ import annotations

import contextlib

import torch

from models.machine import cpu_flags


def native_bf16(device: torch.device) -> bool:
    if device.type == "cuda":
        return torch.cuda.is_bf16_supported()
    return bool(cpu_flags() & {"avx512_bf16", "amx_bf16"})


def capability(device: torch.device) -> str:
    """A few words on what the device computes natively (for the run's banner)."""
    if device.type == "cuda":
        return torch.cuda.get_device_name(device) + (", bf16" if native_bf16(device) else "")
    return f"CPU {torch.backends.cpu.get_cpu_capability()}" + (", native bf16" if native_bf16(device) else ", no native bf16")


def resolve(precision: str, device: torch.device) -> str:
    if precision == "auto":
        return "bf16" if native_bf16(device) else "fp32"
    return precision


def autocast(precision: str, device: torch.device):
    """A fresh autocast context for a resolved precision (nullcontext for fp32)."""
    if precision == "fp32":
        return contextlib.nullcontext()
    return torch.autocast(device.type, dtype=torch.bfloat16 if precision == "bf16" else torch.float16)


def grad_scaler(precision: str, device: torch.device) -> torch.amp.GradScaler:
    # bf16 has fp32's exponent range, so only fp16 gradients need loss scaling.
    return torch.amp.GradScaler(device.type, enabled=precision == "fp16")


def plain_attention_is_faster(precision: str, device: torch.device) -> bool:
    """On a CPU under bf16 autocast, timm attention trains faster as plain matmul + softmax.

    PyTorch's CPU flash-attention kernel (behind ``scaled_dot_product_attention``) is slow in
    its bf16 backward pass: a ViT-Ti/16 with 5 blocks, batch 32, took 112-120 ms per training
    step with it and 67-69 ms without at 128 px, 272 against 216 ms at 224 px; in fp32 the two
    paths were within 5% (AMX CPU, 2 threads). On CUDA the fused kernels are the fast path.
    """
    return device.type == "cpu" and precision == "bf16"


def use_plain_attention(model: torch.nn.Module) -> int:
    """Switch timm's attention modules in ``model`` to their plain path; returns how many.

    Only the kernel changes, not the function computed, the parameters or the exported graph.
    """
    modules = [m for m in model.modules() if isinstance(getattr(m, "fused_attn", None), bool)]
    for module in modules:
        module.fused_attn = False
    return len(modules)
