"""The image embedding an exported model gives beside its logits: its pooled penultimate features.

Personal dishes (models.dishes) are recognised from these vectors without training a network.
The embedding is the input of the model's own classifier, so it costs one extra output of a
forward pass the analysis runs anyway.
"""

from __future__ import annotations

import torch
from torch import nn

EMBEDDING_OUTPUT = "embedding"


def _timm_parts(model: nn.Module) -> tuple[nn.Module, torch.Tensor | None] | None:
    """(the timm network that computes the logits, class indices it is restricted to), or None
    where the model is not one timm network with a classifier (an ensemble, say)."""
    indices = getattr(model, "class_indices", None)
    network = getattr(model, "base", model) if indices is not None else model
    if not all(hasattr(network, name) for name in ("forward_features", "forward_head", "get_classifier")):
        return None
    return network, indices


class LogitsAndEmbedding(nn.Module):
    """``model`` answering (logits, embedding): the classifier's input is the embedding."""

    def __init__(self, network: nn.Module, class_indices: torch.Tensor | None):
        super().__init__()
        self.network = network
        if class_indices is not None:
            self.register_buffer("class_indices", class_indices.clone(), persistent=False)
        else:
            self.class_indices = None

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        embedding = self.network.forward_head(self.network.forward_features(x), pre_logits=True)
        logits = self.network.get_classifier()(embedding)
        if self.class_indices is not None:
            logits = logits.index_select(1, self.class_indices)
        return logits, embedding


def with_embedding(model: nn.Module, input_size: int) -> nn.Module | None:
    """``model`` wrapped to also output its embedding, or None where that is not possible.

    The wrapper must give the model's own logits: a model whose head does more than a linear
    classifier on pooled features (a distilled ViT averaging two heads) is exported without one.
    """
    parts = _timm_parts(model)
    if parts is None:
        return None
    wrapped = LogitsAndEmbedding(*parts).eval()
    probe = torch.linspace(-1, 1, 2 * 3 * input_size * input_size).reshape(2, 3, input_size, input_size)
    with torch.no_grad():
        expected = model(probe)
        logits, embedding = wrapped(probe)
    if embedding.ndim != 2 or logits.shape != expected.shape or not torch.allclose(logits, expected, rtol=1e-4, atol=1e-4):
        return None
    return wrapped
