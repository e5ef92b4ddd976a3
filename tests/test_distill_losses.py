"""Each distillation loss against a direct computation of its formula."""

import math

import pytest
import torch

from distill.losses import distillation_loss, hard_kd, hard_label_ce, soft_kd


@pytest.fixture
def logits():
    g = torch.Generator().manual_seed(0)
    return torch.randn(6, 5, generator=g) * 3, torch.randn(6, 5, generator=g) * 3, torch.tensor([0, 1, 2, 3, 4, 0])


def direct_kl(student, teacher, t):
    """sum_i p_t,i (log p_t,i - log p_s,i) per sample, mean over the batch, times T^2."""
    total = 0.0
    for s_row, t_row in zip(student.tolist(), teacher.tolist()):
        zs = sum(math.exp(v / t) for v in s_row)
        zt = sum(math.exp(v / t) for v in t_row)
        for s, q in zip(s_row, t_row):
            p_t, p_s = math.exp(q / t) / zt, math.exp(s / t) / zs
            total += p_t * (math.log(p_t) - math.log(p_s))
    return total / len(student) * t * t


def direct_ce(logits, targets):
    """-log softmax(logits)[target] averaged, targets as indices or probability rows."""
    total = 0.0
    for row, target in zip(logits.tolist(), targets.tolist()):
        log_z = math.log(sum(math.exp(v) for v in row))
        probs = target if isinstance(target, list) else [float(i == target) for i in range(len(row))]
        total += -sum(p * (v - log_z) for p, v in zip(probs, row))
    return total / len(logits)


@pytest.mark.parametrize("temperature", [1.0, 2.0, 4.0])
def test_soft_kd_is_kl_times_t_squared(logits, temperature):
    student, teacher, _ = logits
    assert soft_kd(student, teacher, temperature).item() == pytest.approx(direct_kl(student, teacher, temperature), rel=1e-5)
    assert soft_kd(teacher, teacher, temperature).item() == pytest.approx(0.0, abs=1e-6)


def test_hard_kd_is_ce_on_teacher_argmax(logits):
    student, teacher, _ = logits
    assert hard_kd(student, teacher).item() == pytest.approx(direct_ce(student, teacher.argmax(1)), rel=1e-5)


def test_hard_label_ce_indices_smoothing_and_soft_targets(logits):
    student, _, labels = logits
    assert hard_label_ce(student, labels).item() == pytest.approx(direct_ce(student, labels), rel=1e-5)
    eps, n = 0.1, student.shape[1]
    smoothed = torch.full((6, n), eps / n).scatter_(1, labels[:, None], 1 - eps + eps / n)
    assert hard_label_ce(student, labels, eps).item() == pytest.approx(direct_ce(student, smoothed), rel=1e-5)
    mixed = torch.softmax(torch.randn(6, n), 1)
    assert hard_label_ce(student, mixed).item() == pytest.approx(direct_ce(student, mixed), rel=1e-5)


@pytest.mark.parametrize("kind", ["soft", "hard"])
@pytest.mark.parametrize("alpha", [0.0, 0.3, 1.0])
def test_total_loss_weights_hard_labels_by_alpha(logits, kind, alpha):
    student, teacher, labels = logits
    kd = direct_kl(student, teacher, 2.0) if kind == "soft" else direct_ce(student, teacher.argmax(1))
    parts = distillation_loss(student, labels, teacher, kind=kind, alpha=alpha, temperature=2.0)
    assert parts["loss"].item() == pytest.approx(alpha * direct_ce(student, labels) + (1 - alpha) * kd, rel=1e-5)


def test_label_free_uses_only_the_teacher(logits):
    student, teacher, _ = logits
    parts = distillation_loss(student, None, teacher, kind="soft", alpha=0.0, temperature=3.0)
    assert parts["loss"].item() == pytest.approx(direct_kl(student, teacher, 3.0), rel=1e-5)
    assert "ce" not in parts


def test_supervised_is_plain_cross_entropy(logits):
    student, _, labels = logits
    parts = distillation_loss(student, labels, None, alpha=0.5)
    assert parts["loss"].item() == pytest.approx(direct_ce(student, labels), rel=1e-5)


def test_deit_distillation_token_routes_teacher_to_dist_head(logits):
    """(cls, dist) output: hard labels train the class head, the teacher the distillation head."""
    cls_head, teacher, labels = logits
    dist_head = cls_head.flip(0)
    for kind, kd in (("soft", direct_kl(dist_head, teacher, 2.0)), ("hard", direct_ce(dist_head, teacher.argmax(1)))):
        parts = distillation_loss((cls_head, dist_head), labels, teacher, kind=kind, alpha=0.25, temperature=2.0)
        assert parts["loss"].item() == pytest.approx(0.25 * direct_ce(cls_head, labels) + 0.75 * kd, rel=1e-5)
    supervised = distillation_loss((cls_head, dist_head), labels, None)
    expected = (direct_ce(cls_head, labels) + direct_ce(dist_head, labels)) / 2
    assert supervised["loss"].item() == pytest.approx(expected, rel=1e-5)


def test_gradients_flow_to_student_only(logits):
    student, teacher, labels = logits
    student = student.clone().requires_grad_(True)
    with torch.inference_mode():
        frozen = teacher * 1.0
    distillation_loss(student, labels, frozen.clone(), alpha=0.5, temperature=2.0)["loss"].backward()
    assert student.grad is not None and student.grad.abs().sum() > 0
