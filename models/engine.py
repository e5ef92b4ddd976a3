"""Inference on ONNX Runtime. Everything about preprocessing comes from the file's metadata."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnxruntime as ort
from PIL import Image

from models.errors import ModelError
from models.metadata import read_metadata
from models.preprocess import PreprocessConfig

# TensorRT and CUDA first when this machine really has them; ORT skips unavailable ones.
_PREFERRED_PROVIDERS = ("TensorrtExecutionProvider", "CUDAExecutionProvider", "CPUExecutionProvider")


@dataclass(frozen=True)
class Prediction:
    label: str
    probability: float


def default_providers() -> list[str]:
    available = set(ort.get_available_providers())
    if not _cuda_device_present():
        available -= {"TensorrtExecutionProvider", "CUDAExecutionProvider"}
    return [p for p in _PREFERRED_PROVIDERS if p in available]


def _cuda_device_present() -> bool:
    # onnxruntime-gpu lists CUDA even on machines without a GPU, then warns at session start.
    if os.environ.get("CUDA_VISIBLE_DEVICES", None) in ("", "-1"):
        return False
    return Path("/proc/driver/nvidia/version").exists()


class Engine:
    def __init__(self, path: str | Path, providers: list[str] | None = None, threads: int | None = None):
        self.path = Path(path)
        if not self.path.is_file():
            raise ModelError(f"{self.path}: model file not found")
        meta = read_metadata(self.path)
        self.preprocess = PreprocessConfig.from_json(meta["preprocess"])
        self.labels: list[str] = json.loads(meta["labels"])
        self.model_name = meta["model_name"]
        self.version = meta["version"]
        self.metadata = meta
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # One inference at a time uses every core; the app serialises calls through its queue.
        options.intra_op_num_threads = threads or os.cpu_count() or 1
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.log_severity_level = 3
        try:
            self.session = ort.InferenceSession(str(self.path), options, providers=providers or default_providers())
        except Exception as exc:
            raise ModelError(f"{self.path}: ONNX Runtime cannot load it ({type(exc).__name__}: {exc})") from None
        self.input_name = self.session.get_inputs()[0].name
        self.providers = self.session.get_providers()

    def preprocess_image(self, image: Image.Image) -> np.ndarray:
        return self.preprocess.apply(image)

    def run(self, batch: np.ndarray) -> np.ndarray:
        """Raw logits for a preprocessed batch (N, 3, H, W)."""
        return self.session.run(None, {self.input_name: np.ascontiguousarray(batch, dtype=np.float32)})[0]

    def predict_arrays(self, batch: np.ndarray, top_k: int = 5) -> list[list[Prediction]]:
        logits = self.run(batch).astype(np.float64)
        logits -= logits.max(axis=1, keepdims=True)
        probabilities = np.exp(logits)
        probabilities /= probabilities.sum(axis=1, keepdims=True)
        k = max(1, min(top_k, len(self.labels)))
        order = np.argsort(-probabilities, axis=1)[:, :k]
        return [[Prediction(self.labels[i], float(row[i])) for i in indices] for row, indices in zip(probabilities, order)]

    def predict(self, images: list[Image.Image], top_k: int = 5) -> list[list[Prediction]]:
        if not images:
            return []
        return self.predict_arrays(np.stack([self.preprocess_image(image) for image in images]), top_k)
