"""Export-time rewrites that let ONNX Runtime run the ViT students on its fused kernels.

timm's attention (one QKV Linear, reshape/permute/unbind, scaled_dot_product_attention)
exports as a chain of Reshape/Split/Squeeze/MatMul/Softmax nodes that neither ONNX Runtime's
session optimiser nor its transformer optimizer recognises as attention. So at export time each
timm ``Attention`` is swapped for a module that computes the same thing in PyTorch but exports
as ONNX Runtime's ``com.microsoft.Attention`` contrib op (one node: QKV GEMM, softmax attention
and head merge, with CPU, CUDA and int8 ``QAttention`` kernels). LayerNorm, GELU and the
residual adds are left as plain ONNX and fused by ONNX Runtime's transformer optimizer.
"""

from __future__ import annotations

import copy
from pathlib import Path

import onnx
import torch
import torch.nn.functional as F
from torch import nn

ORT_DOMAIN = "com.microsoft"


class _AttentionOp(torch.autograd.Function):
    """Self-attention that exports as one ``com.microsoft.Attention`` node."""

    @staticmethod
    def forward(ctx, x, qkv_weight, qkv_bias, num_heads: int, scale: float):
        batch, tokens, _ = x.shape
        qkv = (x @ qkv_weight + qkv_bias).reshape(batch, tokens, 3, num_heads, -1).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        out = F.scaled_dot_product_attention(q, k, v, scale=scale)
        return out.transpose(1, 2).reshape(batch, tokens, -1)

    @staticmethod
    def symbolic(g, x, qkv_weight, qkv_bias, num_heads: int, scale: float):
        out = g.op(f"{ORT_DOMAIN}::Attention", x, qkv_weight, qkv_bias, num_heads_i=num_heads, scale_f=scale)
        out.setType(x.type())
        return out


class ExportableAttention(nn.Module):
    """A timm ``Attention`` with the QKV weight laid out as the contrib op wants: (C, 3C)."""

    def __init__(self, attention: nn.Module):
        super().__init__()
        self.num_heads = attention.num_heads
        self.scale = float(attention.scale)
        weight = attention.qkv.weight.detach()
        self.qkv_weight = nn.Parameter(weight.t().contiguous(), requires_grad=False)
        bias = attention.qkv.bias
        self.qkv_bias = nn.Parameter(
            bias.detach().clone() if bias is not None else weight.new_zeros(weight.shape[0]), requires_grad=False
        )
        self.proj = attention.proj

    def forward(self, x: torch.Tensor, attn_mask: torch.Tensor | None = None, is_causal: bool = False) -> torch.Tensor:
        if attn_mask is not None or is_causal:
            raise ValueError("the fused attention export covers unmasked self-attention only")
        return self.proj(_AttentionOp.apply(x, self.qkv_weight, self.qkv_bias, self.num_heads, self.scale))


def _is_plain_timm_attention(module: nn.Module) -> bool:
    """timm attention the contrib op computes exactly: no QK-norm, scale-norm or gate."""
    from timm.models.vision_transformer import Attention

    return (
        type(module) is Attention
        and isinstance(module.q_norm, nn.Identity)
        and isinstance(module.k_norm, nn.Identity)
        and isinstance(module.norm, nn.Identity)
        and getattr(module, "gate", None) is None
        and module.attn_dim == module.qkv.in_features  # the op needs hidden size = heads x head size
    )


def with_exportable_attention(model: nn.Module) -> tuple[nn.Module, int]:
    """A copy of ``model`` whose plain timm attention blocks export as fused attention.

    Returns the copy and how many blocks were swapped (0: the model is returned as is).
    """
    targets = [name for name, module in model.named_modules() if _is_plain_timm_attention(module)]
    if not targets:
        return model, 0
    fused = copy.deepcopy(model)
    for name in targets:
        parent_name, _, child = name.rpartition(".")
        parent = fused.get_submodule(parent_name) if parent_name else fused
        setattr(parent, child, ExportableAttention(getattr(parent, child)))
    return fused, len(targets)


def transformer_shape(model: nn.Module) -> tuple[int, int] | None:
    """(num_heads, hidden_size) of a ViT's attention, or None for other models."""
    for module in model.modules():
        if _is_plain_timm_attention(module):
            return module.num_heads, module.qkv.in_features
    return None


def optimize_transformer(path: Path, num_heads: int, hidden_size: int) -> onnx.ModelProto:
    """Run ONNX Runtime's transformer optimizer (ViT fusions) on an exported file.

    ``opt_level=0`` applies only the graph-pattern fusions (SkipLayerNormalization, BiasGelu,
    Attention), not ONNX Runtime's provider-specific rewrites, so the file stays portable across
    CPU and GPU providers; the session applies those at load time.
    """
    from onnxruntime.transformers.optimizer import optimize_model

    return optimize_model(str(path), model_type="vit", num_heads=num_heads, hidden_size=hidden_size, opt_level=0).model


def fused_operator_counts(proto: onnx.ModelProto) -> dict[str, int]:
    """How many fused transformer ops a graph holds (what the bench and tests check)."""
    fused = ("Attention", "QAttention", "MultiHeadAttention", "SkipLayerNormalization", "LayerNormalization", "BiasGelu", "Gelu", "FastGelu")
    counts: dict[str, int] = {}
    for node in proto.graph.node:
        if node.op_type in fused:
            counts[node.op_type] = counts.get(node.op_type, 0) + 1
    return counts
