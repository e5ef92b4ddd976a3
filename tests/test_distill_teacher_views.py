"""A live teacher larger than the student gets its own rendering of each view, as the logit cache does.

The student is 16 px, the teacher 32 px: each sample's one view (crop box, flip, RandAugment
seed) is rendered at both sizes, Mixup/CutMix mixes both with the same pairs, lam and box, and
the training step hands the teacher its rendering instead of the student's crop upsampled.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from distill_support import image_folder, run_cli, run_subprocess, save_teacher, tiny_args, write_image

from distill import config, data
from distill.mixing import BatchMixer
from distill.teacher import FrozenTeacher
from distill.train import Trainer, resolve_config
from models.preprocess import PreprocessConfig
from models.registry import create_model

CLASSES = ["a", "b", "c"]
STUDENT = PreprocessConfig(input_size=16, mean=(0.5, 0.5, 0.5), std=(0.25, 0.25, 0.25))


@pytest.fixture
def photos(tmp_path):
    return image_folder(tmp_path / "photos", CLASSES, 4)


def teacher_of_size(path, size: int) -> FrozenTeacher:
    model = create_model(f"ckpt:{save_teacher(path, CLASSES, img_size=size)}")
    return FrozenTeacher(model, f"ckpt:{path}", STUDENT, CLASSES)


def augmented(photos) -> data.ImageDataset:
    transform = data.train_transform(STUDENT, True, "rand-m9-mstd0.5-inc1", 0.08, 0.25)
    return data.make_dataset(data.open_source(str(photos), "train"), transform, seed=0)


def test_each_view_is_rendered_at_both_sizes_from_the_photo(tmp_path, photos):
    dataset = augmented(photos)
    teacher = teacher_of_size(tmp_path / "t.pt", 32)
    assert data.teacher_view_size(teacher, dataset.transform) == 32
    views, sharper = data.TeacherViews(dataset, 32), 0
    for epoch in (0, 1):
        views.epoch = epoch
        for i in range(len(views)):
            student_view, label, skipped, teacher_view = views[i]
            plain = dataset[i]
            torch.testing.assert_close(student_view, plain[0], atol=0, rtol=0)  # the student's data are unchanged
            assert (label, skipped) == plain[1:]
            image, _, _ = dataset.load(i)
            sharp = dataset.transform.apply(image, dataset.view(image, i), 32)  # the logit cache's rendering
            torch.testing.assert_close(teacher_view, sharp, atol=0, rtol=0)
            upsampled = F.interpolate(student_view[None], size=(32, 32), mode="bicubic", antialias=True)[0]
            sharper += int(not torch.allclose(teacher_view, upsampled, atol=1e-2))
    assert sharper > len(views)  # mostly not the student's crop upsampled (some views are flat)


def test_equal_sizes_and_no_resize_render_nothing_extra(tmp_path):
    dataset = data.make_dataset(data.open_source("synthetic", "train", synthetic_images=8),
                                data.train_transform(STUDENT, True, "none", 0.08, 0.0), seed=0)
    assert data.teacher_view_size(teacher_of_size(tmp_path / "same.pt", 16), dataset.transform) is None
    model = create_model(f"ckpt:{save_teacher(tmp_path / 'big.pt', CLASSES, img_size=32)}")
    assert data.teacher_view_size(FrozenTeacher(model, "t", STUDENT, CLASSES, resize=False), dataset.transform) is None
    assert data.teacher_view_size(None, dataset.transform) is None
    evaluated = data.make_dataset(dataset.source, data.EvalTransform(STUDENT), seed=0)
    assert data.teacher_view_size(teacher_of_size(tmp_path / "big2.pt", 32), evaluated.transform) is None


@pytest.mark.parametrize("mixup, cutmix", [(0.8, 0.0), (0.0, 1.0), (0.8, 1.0)])
def test_mixing_pastes_the_same_pairs_weight_and_scaled_box_into_both_renderings(mixup, cutmix):
    """With the teacher's batch an exact 2x nearest upsampling of the student's, mixing then upsampling
    must equal upsampling then mixing: same partner, same lam, the CutMix box scaled by 2."""
    mixer = BatchMixer(mixup, cutmix, 0.1, num_classes=3)
    generator = torch.Generator().manual_seed(0)
    changed = 0
    for seed in range(6):
        images = torch.randn(8, 3, 16, 16, generator=generator)
        labels = torch.randint(0, 3, (8,), generator=generator)
        logits = torch.randn(8, 3, generator=generator)
        big = F.interpolate(images, scale_factor=2, mode="nearest")
        with data.seeded(seed):
            alone = mixer(images.clone(), labels, logits)
        with data.seeded(seed):
            mixed, targets, mixed_logits, mixed_big = mixer(images.clone(), labels, logits, big.clone())
        torch.testing.assert_close(mixed, alone[0], atol=0, rtol=0)  # the student's mix is unchanged
        torch.testing.assert_close(targets, alone[1], atol=0, rtol=0)
        torch.testing.assert_close(mixed_logits, alone[2], atol=0, rtol=0)
        assert alone[3] is None and mixed.is_contiguous()
        torch.testing.assert_close(mixed_big, F.interpolate(mixed, scale_factor=2, mode="nearest"), atol=1e-6, rtol=1e-6)
        changed += int(not torch.allclose(mixed_big, big))
    assert changed >= 5  # the batches really were mixed


def trainer_for(tmp_path, photos, teacher_size: int, **options) -> Trainer:
    """A trainer whose teacher stays on PyTorch, so a forward hook sees what the teacher is given."""
    teacher = save_teacher(tmp_path / f"t{teacher_size}.pt", CLASSES, img_size=teacher_size)
    options = {"val_data": "none", **options}
    argv = tiny_args(tmp_path / f"run{teacher_size}", data=photos, teacher=f"ckpt:{teacher}",
                     augment="true", batch_size=4, teacher_runtime="torch", **options)
    cfg, _ = resolve_config(config.parse_args(config.TrainConfig, argv, "test", "test"))
    return Trainer(cfg)


def teacher_inputs(trainer: Trainer, batch) -> list[torch.Tensor]:
    seen = []
    handle = trainer.teacher.model.register_forward_pre_hook(lambda _, args: seen.append(args[0].clone()))
    try:
        trainer.train_step([batch])
    finally:
        handle.remove()
    return seen


def test_the_training_step_feeds_the_teacher_its_own_rendering(tmp_path, photos):
    trainer = trainer_for(tmp_path, photos, 32, mixup=0, cutmix=0)
    assert isinstance(trainer.train_set, data.TeacherViews) and trainer.train_set.size == 32
    images, labels, skipped, teacher_view = batch = next(iter(trainer.train_loader()))
    assert images.shape[-1] == 16 and teacher_view.shape[-1] == 32
    (seen,) = teacher_inputs(trainer, batch)
    teacher = trainer.teacher  # it re-normalises to its own mean/std; the size it is given as is
    torch.testing.assert_close(seen, teacher_view * teacher.scale + teacher.shift if teacher.renormalise else teacher_view)


def test_with_mixing_the_teacher_gets_its_rendering_mixed_like_the_students(tmp_path, photos):
    trainer = trainer_for(tmp_path, photos, 32, mixup=0.8, cutmix=1.0)
    batch = next(iter(trainer.train_loader()))
    _, _, _, mixed_teacher_view, _ = trainer._prepare([t.clone() for t in batch], 0)
    assert not torch.allclose(mixed_teacher_view, batch[3])  # mixed
    (seen,) = teacher_inputs(trainer, batch)
    teacher = trainer.teacher
    torch.testing.assert_close(seen, mixed_teacher_view * teacher.scale + teacher.shift if teacher.renormalise
                               else mixed_teacher_view)


def test_an_equal_size_teacher_takes_the_old_path(tmp_path, photos):
    trainer = trainer_for(tmp_path, photos, 16, mixup=0, cutmix=0)
    assert isinstance(trainer.train_set, data.ImageDataset)
    batch = next(iter(trainer.train_loader()))
    assert len(batch) == 3
    (seen,) = teacher_inputs(trainer, batch)
    assert seen.shape[-1] == 16


def test_image_cache_is_kept_at_the_live_teachers_size(tmp_path):
    # Photos larger than both sizes, so the cache shrinks them (a smaller one is kept as it is).
    for label, name in enumerate(CLASSES):
        for i in range(4):
            write_image(tmp_path / "large" / name / f"{i:03d}.png", label, i, size=64)
    trainer = trainer_for(tmp_path, tmp_path / "large", 32, image_cache=tmp_path / "cache")
    teacher_resize = trainer.teacher.model.preprocess.resize_size
    assert teacher_resize > trainer.student.preprocess.resize_size
    image, _, _ = trainer.train_set.base.load(0)
    assert min(image.size) == teacher_resize


def test_two_ranks_with_a_live_larger_teacher_match_one_process(tmp_path):
    """Each rank renders its own samples' teacher views: 2 x batch 4 gives 1 x batch 8's weights."""
    from distill_support import checkpoint_weights, max_difference

    teacher = save_teacher(tmp_path / "t.pt", [f"class_{i}" for i in range(4)], img_size=32)
    common = dict(teacher=f"ckpt:{teacher}", augment="true", mixup=0, cutmix=0,
                  synthetic_images=32, max_steps=2, val_data="none", alpha=0.5)
    result = run_subprocess(["train", *tiny_args(tmp_path / "ddp", batch_size=4, **common)], nproc=2)
    assert result.returncode == 0, result.stderr[-3000:]
    assert run_cli("train", *tiny_args(tmp_path / "single", batch_size=8, **common)) == 0
    assert max_difference(checkpoint_weights(tmp_path / "ddp" / "last.pt"),
                          checkpoint_weights(tmp_path / "single" / "last.pt")) < 1e-5


def test_validation_gives_the_teacher_its_own_rendering(tmp_path, photos):
    """The agreement figure compares the teacher on the photo through the student's preprocessing
    at the teacher's size, not on the student's 16 px pixels upsampled."""
    from distill.evaluate import evaluate

    teacher = teacher_of_size(tmp_path / "t.pt", 32)
    transform = data.eval_transform(STUDENT, teacher)
    assert isinstance(transform, data.EvalViews)
    assert isinstance(data.eval_transform(STUDENT, teacher_of_size(tmp_path / "same.pt", 16)), data.EvalTransform)
    assert isinstance(data.eval_transform(STUDENT, None), data.EvalTransform)
    dataset = data.make_dataset(data.open_source(str(photos), "train"), transform, seed=0)
    image, _, _ = dataset.load(0)
    student_view, teacher_view = dataset[0][0]
    assert student_view.shape[-1] == 16 and teacher_view.shape[-1] == 32
    sharp = PreprocessConfig(input_size=32, mean=STUDENT.mean, std=STUDENT.std).apply(image)
    torch.testing.assert_close(teacher_view, torch.from_numpy(sharp), atol=0, rtol=0)

    loader = data.make_loader(dataset, data.ShardSampler(len(dataset)), 4, 0, False)
    seen = []
    handle = teacher.model.register_forward_pre_hook(lambda _, args: seen.append(args[0].clone()))
    try:
        student = create_model(f"ckpt:{save_teacher(tmp_path / 's.pt', CLASSES, img_size=16)}")
        metrics = evaluate(student, loader, CLASSES, device=torch.device("cpu"), teacher=teacher)
    finally:
        handle.remove()
    assert "agreement" in metrics and metrics["images"] == len(dataset)
    first = next(iter(loader))[0][1]
    expected = first * teacher.scale + teacher.shift if teacher.renormalise else first
    torch.testing.assert_close(seen[0], expected)


def test_the_trainers_validation_renders_for_a_larger_teacher(tmp_path, photos):
    trainer = trainer_for(tmp_path, photos, 32, mixup=0, cutmix=0, val_data=str(photos))
    assert isinstance(trainer.val_loader.dataset.transform, data.EvalViews)
    sizes = []
    handle = trainer.teacher.model.register_forward_pre_hook(lambda _, args: sizes.append(args[0].shape[-1]))
    try:
        trainer.end_of_epoch()
    finally:
        handle.remove()
    assert sizes and set(sizes) == {32} and "agreement" in trainer.last_metrics
