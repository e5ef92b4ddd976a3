"""The frozen teacher: built from the registry, eval mode, no gradients, never DDP-wrapped.

It takes the student's batch as is and adapts it: re-normalises with the teacher's own
mean/std, resizes to the teacher's input size (optional), and returns logits in the
student's class order. Runs under torch.inference_mode() inside the caller's autocast.

On a CPU the teacher's forward pass can run on ONNX Runtime instead (``run_on_onnxruntime``):
the teacher is exported once at start (models.export, with its parity check) and ONNX Runtime's
fused, pre-packed convolutions run a packaged EfficientNet-Lite several times faster than
PyTorch eager (docs/experiments.md). Frozen weights make that safe: no gradient ever flows into
the teacher.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

from distill.errors import DistillError
from models.preprocess import PreprocessConfig


def check_labels(teacher_name: str, teacher_labels: list[str], classes: list[str]) -> list[int] | None:
    """Index of each class in the teacher's outputs (None when the order is already the same)."""
    if list(teacher_labels) == list(classes):
        return None
    if set(teacher_labels) != set(classes) or len(teacher_labels) != len(classes):
        missing = [c for c in classes if c not in set(teacher_labels)]
        extra = [c for c in teacher_labels if c not in set(classes)]
        clip = lambda names: ", ".join(names[:4]) + (f" (+{len(names) - 4} more)" if len(names) > 4 else "")  # noqa: E731
        raise DistillError(
            f"teacher {teacher_name!r} predicts {len(teacher_labels)} labels but the data has {len(classes)} "
            f"classes" + (f"; not in the teacher: {clip(missing)}" if missing else "")
            + (f"; not in the data: {clip(extra)}" if extra else "")
            + ". Fine-tune a teacher on these classes first (--teacher none --model efficientnet_lite0)"
        )
    position = {label: i for i, label in enumerate(teacher_labels)}
    return [position[c] for c in classes]


class FrozenTeacher(nn.Module):
    def __init__(self, model: nn.Module, name: str, student: PreprocessConfig, classes: list[str], resize: bool = True):
        super().__init__()
        self.name = name
        self.student_size = student.input_size
        self.model = model.eval().requires_grad_(False)
        mine: PreprocessConfig = model.preprocess
        order = check_labels(name, mine.labels, classes)
        self.register_buffer("order", torch.tensor(order) if order else None, persistent=False)
        # x_teacher = (x_student * std_s + mean_s - mean_t) / std_t, folded into one affine map.
        s_mean, s_std = torch.tensor(student.mean), torch.tensor(student.std)
        t_mean, t_std = torch.tensor(mine.mean), torch.tensor(mine.std)
        self.renormalise = not (torch.equal(s_mean, t_mean) and torch.equal(s_std, t_std))
        self.register_buffer("scale", (s_std / t_std).view(1, 3, 1, 1), persistent=False)
        self.register_buffer("shift", ((s_mean - t_mean) / t_std).view(1, 3, 1, 1), persistent=False)
        self.size = mine.input_size if resize and mine.input_size != student.input_size else None
        self.mode = mine.interpolation if mine.interpolation in ("bilinear", "bicubic") else "bilinear"
        self.engine = None  # an ONNX Runtime session of self.model, once run_on_onnxruntime succeeds

    @property
    def runtime(self) -> str:
        return "onnxruntime" if self.engine is not None else "torch"

    def run_on_onnxruntime(self, threads: int) -> None:
        """Export the teacher and run its forward pass on ONNX Runtime (CPU, ``threads`` intra-op
        threads). Raises DistillError when the teacher cannot be exported or the exported file
        disagrees with PyTorch; the teacher then stays on PyTorch."""
        from models.engine import Engine, SessionSettings
        from models.errors import ModelError
        from models.export import export_onnx

        size = self.model.preprocess.input_size
        if self.size is None and self.student_size != size:
            raise DistillError(f"teacher: ONNX Runtime runs the teacher at its own {size} px, but "
                               f"--teacher-resize false feeds it the student's {self.student_size} px")
        try:
            with tempfile.TemporaryDirectory(prefix="foodtag-teacher-") as folder:
                path = export_onnx(self.model, Path(folder) / "teacher.onnx")  # refuses a disagreeing file
                self.engine = Engine(path, providers=["CPUExecutionProvider"],
                                     settings=SessionSettings(intra_op_threads=threads))
        except (ModelError, RuntimeError, ValueError) as exc:
            raise DistillError(f"teacher: cannot run {self.name} on ONNX Runtime ({exc})") from None

    def train(self, mode: bool = True) -> "FrozenTeacher":
        return super().train(False)  # frozen: BatchNorm statistics and dropout stay in eval mode

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        with torch.inference_mode():
            x = images * self.scale + self.shift if self.renormalise else images
            if self.size is not None and x.shape[-1] != self.size:  # a logit cache renders at self.size itself
                x = F.interpolate(x, size=(self.size, self.size), mode=self.mode, align_corners=False, antialias=True)
            if self.engine is not None:
                logits = torch.from_numpy(self.engine.run(x.float().cpu().numpy()))
            else:
                logits = self.model(x)
            if self.order is not None:
                logits = logits.index_select(1, self.order)
        # Inference tensors cannot be saved for backward (the KD loss needs them as targets);
        # a clone made outside inference mode is an ordinary tensor.
        return logits.clone()


def absolute_spec(spec: str) -> str:
    """ckpt:<relative path> -> ckpt:<absolute path>, also inside ensemble:, so a recorded
    teacher still resolves when `python -m distill eval` runs from another folder."""
    if spec.startswith("ensemble:"):
        return "ensemble:" + "+".join(absolute_spec(part) for part in spec[len("ensemble:"):].split("+"))
    if spec.startswith("ckpt:"):
        return "ckpt:" + str(Path(spec[len("ckpt:"):]).expanduser().resolve())
    return spec


def load_teacher_model(spec: str) -> nn.Module | None:
    """The registry model named by spec, or None for 'none' (supervised training)."""
    if not spec or spec.lower() == "none":
        return None
    from models.errors import ModelError
    from models.registry import create_model

    try:
        return create_model(spec)
    except ModelError as exc:
        raise DistillError(f"teacher: {exc}") from None
