"""Export-time rewrites that let ONNX Runtime run the ViT students on its fused kernels.

timm's attention (one QKV Linear, reshape/permute/unbind, scaled_dot_product_attention)
exports as a chain of Reshape/Split/Squeeze/MatMul/Softmax nodes that neither ONNX Runtime's
session optimiser nor its transformer optimizer recognises as attention. So at export time each
timm ``Attention`` is swapped for a module that computes the same thing in PyTorch but exports
as ONNX Runtime's ``com.microsoft.Attention`` contrib op (one node: QKV GEMM, softmax attention
and head merge, with CPU, CUDA and int8 ``QAttention`` kernels). LayerNorm and GELU are left
as plain ONNX and fused by ONNX Runtime's transformer optimizer; the residual adds stay apart
(see optimize_transformer).

TF-ported EfficientNets (the packaged Lite weights, and the hybrid students' stems built from
them) pad their strided convolutions 'same' with timm's ``Conv2dSame``, which works the padding
out from the input's shape on every call. Under a dynamic batch axis ONNX Runtime cannot fold
that arithmetic (about fifteen Shape/Gather/Ceil/Sub/Cast nodes per convolution, then a Pad), yet
at the exported file's fixed image size the padding is a constant; written as one, ONNX Runtime
folds the Pad into the Conv.
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
        fused.set_submodule(name, ExportableAttention(fused.get_submodule(name)))
    return fused, len(targets)


def with_static_padding(model: nn.Module, input_size: int) -> tuple[nn.Module, int]:
    """A copy of ``model`` whose ``Conv2dSame`` layers pad by the constants ``input_size`` needs.

    Returns the copy and how many layers were swapped (0: the model is returned as is). The
    copy computes the same thing at that image size only, which is the size the file declares.
    """
    from timm.layers.conv2d_same import Conv2dSame
    from timm.layers.padding import pad_same_arg

    targets = [name for name, module in model.named_modules() if isinstance(module, Conv2dSame)]
    if not targets:
        return model, 0
    seen: dict[str, tuple[int, int]] = {}

    def record_size(name: str):
        def hook(module, args) -> None:
            seen.setdefault(name, tuple(args[0].shape[-2:]))
        return hook

    hooks = [model.get_submodule(name).register_forward_pre_hook(record_size(name)) for name in targets]
    try:
        with torch.no_grad():
            model(torch.zeros(1, 3, input_size, input_size))
    finally:
        for hook in hooks:
            hook.remove()
    static = copy.deepcopy(model)
    for name in targets:
        if name not in seen:  # not on the forward path at this size: leave it dynamic
            continue
        same = static.get_submodule(name)
        left, right, top, bottom = pad_same_arg(seen[name], same.kernel_size, same.stride, same.dilation)
        conv = nn.Conv2d(same.in_channels, same.out_channels, same.kernel_size, same.stride, 0, same.dilation,
                         same.groups, same.bias is not None)
        conv.load_state_dict(same.state_dict())
        static.set_submodule(name, nn.Sequential(nn.ZeroPad2d((left, right, top, bottom)), conv))
    return static, len(seen)


def transformer_shape(model: nn.Module) -> tuple[int, int] | None:
    """(num_heads, hidden_size) of a ViT's attention, or None for other models."""
    for module in model.modules():
        if _is_plain_timm_attention(module):
            return module.num_heads, module.qkv.in_features
    return None


def optimize_transformer(path: Path, num_heads: int, hidden_size: int) -> onnx.ModelProto:
    """Run ONNX Runtime's transformer optimizer (ViT fusions) on an exported file.

    ``opt_level=0`` applies only the graph-pattern fusions (LayerNormalization, BiasGelu), not
    ONNX Runtime's provider-specific rewrites, so the file stays portable across CPU and GPU
    providers; the session applies those at load time. Attention is fused already (the export
    writes the contrib op). The residual add stays apart from its LayerNorm: ONNX Runtime's CPU
    SkipLayerNormalization kernel was slower than the Add and LayerNormalization it replaces, and
    made the fused file slower than the plain one (docs/experiments.md).
    """
    from onnxruntime.transformers.fusion_options import FusionOptions
    from onnxruntime.transformers.optimizer import optimize_model

    options = FusionOptions("vit")
    options.enable_skip_layer_norm = options.enable_bias_skip_layer_norm = False
    return optimize_model(str(path), model_type="vit", num_heads=num_heads, hidden_size=hidden_size, opt_level=0,
                          optimization_options=options).model


def fused_operator_counts(proto: onnx.ModelProto) -> dict[str, int]:
    """How many fused transformer ops a graph holds (what the bench and tests check)."""
    fused = ("Attention", "QAttention", "MultiHeadAttention", "SkipLayerNormalization", "LayerNormalization", "BiasGelu", "Gelu", "FastGelu")
    counts: dict[str, int] = {}
    for node in proto.graph.node:
        if node.op_type in fused:
            counts[node.op_type] = counts.get(node.op_type, 0) + 1
    return counts
