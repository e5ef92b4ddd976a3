"""Inference on ONNX Runtime. Everything about preprocessing comes from the file's metadata."""

from __future__ import annotations

import dataclasses
import json
import os
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import onnxruntime as ort
from PIL import Image

from models.calibration import softmax
from models.errors import ModelError
from models.machine import cpu_flags
from models.metadata import read_metadata
from models.preprocess import PreprocessConfig

# TensorRT and CUDA first when this machine really has them; ORT skips unavailable ones.
_PREFERRED_PROVIDERS = ("TensorrtExecutionProvider", "CUDAExecutionProvider", "CPUExecutionProvider")
GPU_PROVIDERS = ("TensorrtExecutionProvider", "CUDAExecutionProvider")
_GRAPH_LEVELS = {
    "disable": ort.GraphOptimizationLevel.ORT_DISABLE_ALL,
    "basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
    "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
    "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL,
}


@lru_cache(maxsize=1)
def cpu_features() -> frozenset[str]:
    """The SIMD flags of this CPU that decide int8 and bf16 kernels (read at run time).

    avx512_vnni / avx_vnni: int8 dot products in one instruction (int8 much faster);
    avx512_bf16 / amx_bf16: native bf16. An AVX2-only CPU has none of them.
    """
    wanted = {"avx2", "avx512f", "avx512_vnni", "avx_vnni", "avx512_bf16", "amx_bf16", "amx_int8"}
    return frozenset(wanted & cpu_flags())


def usable_cpus() -> int:
    """Cores this process may run on (cgroup/affinity aware), not the host's total."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


@dataclass(frozen=True)
class SessionSettings:
    """ONNX Runtime session options, chosen from the machine unless given.

    One inference at a time uses every usable core (intra-op); graph branches run one after the
    other (inter-op 1, sequential), since a classifier has no parallel branches worth a thread
    pool, and the app serialises calls through its queue. ``allow_spinning`` keeps the pool's
    threads busy-waiting between ops (ONNX Runtime's default, lowest latency on an idle machine);
    on a machine shared with other busy processes, turning it off hands their cores back and
    is faster there. ``micro_batch``: on a CPU provider, a larger batch runs as consecutive runs of
    this many images (None: 4 per intra-op thread; 0: whole batches), so each op's activations stay
    in the CPU's caches. ``dynamic_block_base``: ONNX Runtime's dynamic work split
    (session.dynamic_block_base; 0: its static split), which balances the pool's threads over
    small ops. What each setting gave: docs/performance.md.
    """

    intra_op_threads: int = field(default_factory=usable_cpus)
    inter_op_threads: int = 1
    graph_optimization: str = "all"
    parallel_execution: bool = False
    allow_spinning: bool = True
    micro_batch: int | None = None
    dynamic_block_base: int = 4

    def __post_init__(self) -> None:
        if self.graph_optimization not in _GRAPH_LEVELS:
            raise ModelError(f"graph_optimization must be one of {', '.join(_GRAPH_LEVELS)}, got {self.graph_optimization!r}")
        if self.intra_op_threads < 1 or self.inter_op_threads < 1:
            raise ModelError("thread counts must be at least 1")
        if self.micro_batch is not None and self.micro_batch < 0:
            raise ModelError(f"micro_batch must be >= 0 (0: whole batches), got {self.micro_batch}")

    @property
    def cpu_run_size(self) -> int:
        """Images per ONNX Runtime run on a CPU provider (0: the whole batch)."""
        return 4 * self.intra_op_threads if self.micro_batch is None else self.micro_batch

    def to_ort(self) -> ort.SessionOptions:
        options = ort.SessionOptions()
        options.graph_optimization_level = _GRAPH_LEVELS[self.graph_optimization]
        options.intra_op_num_threads = self.intra_op_threads
        options.inter_op_num_threads = self.inter_op_threads
        options.execution_mode = ort.ExecutionMode.ORT_PARALLEL if self.parallel_execution else ort.ExecutionMode.ORT_SEQUENTIAL
        options.log_severity_level = 3
        options.add_session_config_entry("session.intra_op.allow_spinning", "1" if self.allow_spinning else "0")
        if self.dynamic_block_base:
            options.add_session_config_entry("session.dynamic_block_base", str(self.dynamic_block_base))
        return options


@dataclass(frozen=True)
class Prediction:
    label: str
    probability: float
    food: str | None = None  # a personal dish: the food it is (None: the label names the food)


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
    """One ONNX model loaded for inference.

    ``providers`` defaults to the best present on this machine (TensorRT, CUDA, CPU);
    ``settings`` to SessionSettings() (threads from the usable cores, all graph optimisations);
    ``threads`` is a shortcut for the intra-op thread count. On a GPU provider, inputs and
    outputs go through IO binding so each call makes one host-to-device and one device-to-host copy.
    """

    def __init__(
        self,
        path: str | Path,
        providers: list[str] | None = None,
        threads: int | None = None,
        settings: SessionSettings | None = None,
    ):
        self.path = Path(path)
        if not self.path.is_file():
            raise ModelError(f"{self.path}: model file not found")
        meta = read_metadata(self.path)
        self.preprocess = PreprocessConfig.from_json(meta["preprocess"])
        self.labels: list[str] = json.loads(meta["labels"])
        self.model_name = meta["model_name"]
        self.version = meta["version"]
        self.metadata = meta
        settings = settings or SessionSettings()
        if threads is not None:
            settings = dataclasses.replace(settings, intra_op_threads=threads)
        self.settings = settings
        try:
            self.session = ort.InferenceSession(str(self.path), settings.to_ort(), providers=providers or default_providers())
        except Exception as exc:
            raise ModelError(f"{self.path}: ONNX Runtime cannot load it ({type(exc).__name__}: {exc})") from None
        outputs = [output.name for output in self.session.get_outputs()]
        # The embedding output (models.embedding) is optional: files exported before it have none.
        self.embedding_name: str | None = meta.get("embedding_output")
        expected = 2 if self.embedding_name else 1
        if len(self.session.get_inputs()) != 1 or len(outputs) != expected or (self.embedding_name and self.embedding_name not in outputs):
            raise ModelError(f"{self.path}: an image classifier has one input and {expected} output(s); this file has "
                             f"{len(self.session.get_inputs())} and {len(outputs)}")
        self.input_name = self.session.get_inputs()[0].name
        self.output_name = next(name for name in outputs if name != self.embedding_name)
        # Callers always pass float32; a file with float16 inputs gets its batch converted here.
        self.input_dtype = np.float16 if self.session.get_inputs()[0].type == "tensor(float16)" else np.float32
        self.providers = self.session.get_providers()
        self.device = "cuda" if self.providers[0] in GPU_PROVIDERS else "cpu"

    def preprocess_image(self, image: Image.Image) -> np.ndarray:
        return self.preprocess.apply(image)

    @property
    def has_embedding(self) -> bool:
        """Whether the file outputs the image embedding that personal dishes need."""
        return self.embedding_name is not None

    def run(self, batch: np.ndarray) -> np.ndarray:
        """Raw logits for a preprocessed batch (N, 3, H, W)."""
        return self._run(batch, [self.output_name])[0]

    def run_with_embedding(self, batch: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """(logits, embeddings) of one forward pass; embeddings None for a file without them."""
        if self.embedding_name is None:
            return self.run(batch), None
        logits, embedding = self._run(batch, [self.output_name, self.embedding_name])
        return logits, embedding.astype(np.float32, copy=False)

    def _run(self, batch: np.ndarray, names: list[str]) -> list[np.ndarray]:
        batch = np.ascontiguousarray(batch, dtype=self.input_dtype)
        if self.device == "cpu":
            step = self.settings.cpu_run_size or len(batch)
            if len(batch) <= step:
                return self.session.run(names, {self.input_name: batch})
            parts = [self.session.run(names, {self.input_name: batch[i:i + step]}) for i in range(0, len(batch), step)]
            return [np.concatenate([part[k] for part in parts]) for k in range(len(names))]
        binding = self.session.io_binding()
        binding.bind_ortvalue_input(self.input_name, ort.OrtValue.ortvalue_from_numpy(batch, "cuda", 0))
        for name in names:
            binding.bind_output(name, "cuda", 0)
        self.session.run_with_iobinding(binding)
        return binding.copy_outputs_to_cpu()

    def predict_arrays(self, batch: np.ndarray, top_k: int = 5) -> list[list[Prediction]]:
        return self.top_predictions(self.run(batch), top_k)

    def top_predictions(self, logits: np.ndarray, top_k: int = 5) -> list[list[Prediction]]:
        """The ``top_k`` labels of each row of logits, by softmax probability."""
        probabilities = self.probabilities(logits)
        k = max(1, min(top_k, len(self.labels)))
        order = np.argsort(-probabilities, axis=1, kind="stable")[:, :k]  # ties: label order, as app.dishes.merged_top
        return [[Prediction(self.labels[i], float(row[i])) for i in indices] for row, indices in zip(probabilities, order)]

    def probabilities(self, logits: np.ndarray) -> np.ndarray:
        """Softmax of each row of logits, float64 (a calibrated file's logits are already / T)."""
        return softmax(logits)

    def embed(self, images: list[Image.Image]) -> np.ndarray:
        """The embeddings (N, D) of ``images``; ModelError for a file without that output."""
        if self.embedding_name is None:
            raise ModelError(f"{self.model_name}: this model file has no embedding output, so it cannot learn "
                             "personal dishes; re-export it with `python -m models export` (or use the default model)")
        return self.run_with_embedding(np.stack([self.preprocess_image(image) for image in images]))[1]

    def predict(self, images: list[Image.Image], top_k: int = 5) -> list[list[Prediction]]:
        if not images:
            return []
        return self.predict_arrays(np.stack([self.preprocess_image(image) for image in images]), top_k)
