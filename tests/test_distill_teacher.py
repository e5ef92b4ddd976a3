"""The frozen teacher wrapper: re-normalisation, resize, label order, frozen, autocast dtype."""

import pytest
import torch
from torch import nn

from distill.errors import DistillError
from distill.teacher import FrozenTeacher, check_labels
from models.preprocess import PreprocessConfig

STUDENT = PreprocessConfig(input_size=8, mean=(0.5, 0.5, 0.5), std=(0.5, 0.5, 0.5), labels=["a", "b", "c"])


class Probe(nn.Module):
    """Records its input; logits are fixed per class so the order is visible."""

    def __init__(self, preprocess):
        super().__init__()
        self.preprocess, self.linear, self.drop = preprocess, nn.Linear(3, 3), nn.Dropout(0.5)

    def forward(self, x):
        self.seen = x
        return self.linear(self.drop(x.mean((2, 3))))


def test_renormalises_resizes_and_reorders():
    mine = PreprocessConfig(input_size=16, mean=(0.485, 0.456, 0.406), std=(0.229, 0.224, 0.225), labels=["c", "a", "b"])
    probe = Probe(mine)
    teacher = FrozenTeacher(probe, "probe", STUDENT, ["a", "b", "c"])
    raw = torch.rand(2, 3, 8, 8)
    logits = teacher((raw - 0.5) / 0.5)
    assert probe.seen.shape == (2, 3, 16, 16)
    expected = torch.nn.functional.interpolate((raw - torch.tensor(mine.mean).view(1, 3, 1, 1)) / torch.tensor(mine.std).view(1, 3, 1, 1),
                                               size=(16, 16), mode="bicubic", align_corners=False, antialias=True)
    assert torch.allclose(probe.seen, expected, atol=1e-5)
    direct = probe.linear(probe.seen.mean((2, 3)))
    assert torch.allclose(logits, direct[:, [1, 2, 0]], atol=1e-6)  # teacher's c,a,b -> student's a,b,c


def test_frozen_eval_mode_and_no_gradients():
    teacher = FrozenTeacher(Probe(STUDENT), "probe", STUDENT, ["a", "b", "c"])
    teacher.train()
    assert not teacher.model.training and not any(p.requires_grad for p in teacher.parameters())
    x = torch.rand(4, 3, 8, 8)
    assert torch.equal(teacher(x), teacher(x))  # dropout stays off
    student_logits = torch.randn(4, 3, requires_grad=True)
    loss = torch.nn.functional.kl_div(student_logits.log_softmax(1), teacher(x).softmax(1), reduction="batchmean")
    loss.backward()  # the teacher's inference-mode output works as a KD target
    assert teacher.size is None and not teacher.renormalise and teacher.order is None


def test_runs_in_the_autocast_dtype():
    teacher = FrozenTeacher(Probe(STUDENT), "probe", STUDENT, ["a", "b", "c"])
    with torch.autocast("cpu", dtype=torch.bfloat16):
        assert teacher(torch.rand(2, 3, 8, 8)).dtype == torch.bfloat16


def test_label_space_must_match():
    assert check_labels("t", ["a", "b"], ["a", "b"]) is None
    assert check_labels("t", ["b", "a"], ["a", "b"]) == [1, 0]
    with pytest.raises(DistillError, match="predicts 1000 labels but the data has 2 classes"):
        check_labels("efficientnet_lite0", [f"x{i}" for i in range(1000)], ["a", "b"])


def lite_teacher(labels):
    """A tiny CNN with a preprocessing contract of its own (24 px, ImageNet mean/std)."""
    from models.registry import create_model

    torch.manual_seed(0)
    return create_model("efficientnet_lite0", labels=labels, pretrained=False)


def test_onnxruntime_gives_pytorchs_logits_after_renormalising_resizing_and_reordering():
    model = lite_teacher(["c", "a", "b"])
    on_torch = FrozenTeacher(model, "lite0", STUDENT, ["a", "b", "c"])
    on_ort = FrozenTeacher(lite_teacher(["c", "a", "b"]), "lite0", STUDENT, ["a", "b", "c"])
    on_ort.run_on_onnxruntime(threads=1)
    assert (on_torch.runtime, on_ort.runtime) == ("torch", "onnxruntime")
    x = torch.rand(5, 3, 8, 8) * 2 - 1
    expected, got = on_torch(x), on_ort(x)
    assert got.shape == (5, 3) and got.dtype == torch.float32
    assert torch.allclose(got, expected, atol=1e-4, rtol=1e-4)
    student_logits = torch.randn(5, 3, requires_grad=True)
    torch.nn.functional.mse_loss(student_logits, got).backward()  # usable as a KD target


def test_onnxruntime_refuses_what_it_cannot_run():
    class Unexportable(Probe):
        def forward(self, x):
            return torch.from_numpy(x.mean((2, 3)).numpy())  # leaves the traced graph

    teacher = FrozenTeacher(Unexportable(STUDENT), "probe", STUDENT, ["a", "b", "c"])
    with pytest.raises(DistillError, match="cannot run probe on ONNX Runtime"):
        teacher.run_on_onnxruntime(threads=1)
    assert teacher.runtime == "torch"
    mine = PreprocessConfig(input_size=16, mean=STUDENT.mean, std=STUDENT.std, labels=["a", "b", "c"])
    unresized = FrozenTeacher(Probe(mine), "probe", STUDENT, ["a", "b", "c"], resize=False)
    with pytest.raises(DistillError, match="own 16 px.*student's 8 px"):
        unresized.run_on_onnxruntime(threads=1)


def test_training_runs_the_teacher_where_asked(tmp_path, capsys):
    from distill_support import run_cli, save_teacher, tiny_args

    teacher = save_teacher(tmp_path / "teacher.pt", ["class_0", "class_1", "class_2", "class_3"])
    for runtime in ("auto", "torch"):
        args = tiny_args(tmp_path / runtime, teacher=f"ckpt:{teacher}", teacher_runtime=runtime, synthetic_images=16)
        assert run_cli("train", *args) == 0
        expected = "onnxruntime" if runtime == "auto" else "torch"
        assert f"(on {expected})" in capsys.readouterr().err
