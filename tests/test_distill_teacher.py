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
