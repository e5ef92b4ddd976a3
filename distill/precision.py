"""Mixed precision: which autocast dtype, whether a GradScaler is needed (fp16 only), and which
kernels a ViT trains fastest with under it (bf16 on a CPU: plain matmuls, see use_plain_kernels).

`auto` follows the hardware: bf16 on a CUDA device that supports it; fp32 on a CPU without native
bf16 (AVX2-only CPUs emulate it and train many times slower); and on a CPU with native bf16
(AVX-512 BF16 or AMX) whichever of the two trains the model faster, timed on a few steps
(faster_on_cpu): native is not enough. EfficientNet-Lite0 at 112 px trained at 48 images/s in
bf16 against 34 in fp32 on an AMD EPYC with AVX-512 BF16, but at 52 against 83 on an Intel Xeon
with AMX (its depthwise convolutions are slow in bf16 there).
"""

from __future__ import annotations

import contextlib
import copy
import statistics
import time

import torch
import torch.nn.functional as F
from torch import nn

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


def faster_on_cpu(model: nn.Module, input_size: int, channels_last: bool, batch: int = 32,
                  rounds: int = 3) -> tuple[str, dict[str, float]]:
    """bf16 or fp32, whichever trains a copy of ``model`` faster here: forward, loss and backward on
    random images, the two interleaved over ``rounds`` after a warm-up of each (so that other work
    on the machine slows both alike), the median of each; returns it and each one's images/s."""
    # Its own generator: the probe leaves the training's random stream as it was.
    x = torch.randn(batch, 3, input_size, input_size, generator=torch.Generator().manual_seed(0))
    probes = {}
    for candidate in ("fp32", "bf16"):
        probe = copy.deepcopy(model).train()
        if plain_kernels_are_faster(candidate, torch.device("cpu")):
            use_plain_kernels(probe)
        if channels_last:
            probe = probe.to(memory_format=torch.channels_last)
        probes[candidate] = probe
    images = x.contiguous(memory_format=torch.channels_last) if channels_last else x
    times: dict[str, list[float]] = {candidate: [] for candidate in probes}
    for _ in range(rounds + 1):
        for candidate, probe in probes.items():
            start = time.perf_counter()
            with autocast(candidate, torch.device("cpu")):
                out = probe(images)
            (out[0] if isinstance(out, tuple) else out).float().logsumexp(-1).mean().backward()
            times[candidate].append(time.perf_counter() - start)
    rates = {candidate: batch / statistics.median(t[1:]) for candidate, t in times.items()}
    return max(rates, key=rates.get), rates


def autocast(precision: str, device: torch.device):
    """A fresh autocast context for a resolved precision (nullcontext for fp32)."""
    if precision == "fp32":
        return contextlib.nullcontext()
    return torch.autocast(device.type, dtype=torch.bfloat16 if precision == "bf16" else torch.float16)


def grad_scaler(precision: str, device: torch.device) -> torch.amp.GradScaler:
    # bf16 has fp32's exponent range, so only fp16 gradients need loss scaling.
    return torch.amp.GradScaler(device.type, enabled=precision == "fp16")


def plain_kernels_are_faster(precision: str, device: torch.device) -> bool:
    """On a CPU under bf16 autocast, two fused kernels train a ViT slower than plain matmuls.

    PyTorch's CPU flash-attention kernel (behind ``scaled_dot_product_attention``) is slow in its
    bf16 backward pass, and so is oneDNN's bf16 convolution backward for the patch embedding (a
    16x16 convolution with stride 16, which is one matmul over the patches). In fp32 both ran
    alike, and on CUDA the fused kernels are the fast path (step times: docs/performance.md).
    """
    return device.type == "cpu" and precision == "bf16"


class PatchMatmul(nn.Conv2d):
    """A patch-embedding convolution (kernel = stride, no padding) computed as one matmul over the
    patches: the same parameters (names, shapes) and the same output."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        (kh, kw), (b, c, h, w) = self.kernel_size, x.shape
        if h % kh or w % kw:
            return super().forward(x)
        # reshape, not view: under --channels-last the input and the weight are laid out NHWC
        patches = x.reshape(b, c, h // kh, kh, w // kw, kw).permute(0, 2, 4, 1, 3, 5).reshape(-1, c * kh * kw)
        out = F.linear(patches, self.weight.reshape(self.out_channels, -1), self.bias)
        return out.view(b, h // kh, w // kw, -1).permute(0, 3, 1, 2)

    @classmethod
    def replaces(cls, conv: nn.Module) -> bool:
        """A patch embedding: kernel = stride > 1 (1x1 convolutions, e.g. a hybrid's, were not measured)."""
        return (type(conv) is nn.Conv2d and conv.kernel_size == conv.stride and min(conv.kernel_size) > 1
                and conv.padding in ((0, 0), "valid")
                and conv.dilation == (1, 1) and conv.groups == 1 and conv.padding_mode == "zeros")


def use_plain_kernels(model: nn.Module) -> dict[str, int]:
    """Switch ``model``'s timm attention to its plain path and its patch embeddings to PatchMatmul.

    Only the kernels change, not the function computed, the parameters or the exported graph.
    Returns how many modules of each kind were switched.
    """
    attention = [m for m in model.modules() if isinstance(getattr(m, "fused_attn", None), bool)]
    for module in attention:
        module.fused_attn = False
    patches = [(name, m) for name, m in model.named_modules() if PatchMatmul.replaces(m)]
    for name, conv in patches:
        plain = PatchMatmul(conv.in_channels, conv.out_channels, conv.kernel_size, conv.stride, bias=conv.bias is not None,
                            device="meta")
        plain.weight, plain.bias = conv.weight, conv.bias  # the same Parameters: optimiser and checkpoints see no change
        model.set_submodule(name, plain)
    return {"attention": len(attention), "patch embedding": len(patches)}
