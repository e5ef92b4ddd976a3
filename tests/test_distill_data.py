"""Data sources, samplers and reproducible augmentation."""

import random

import numpy as np
import pytest
import torch

from distill import data
from distill.errors import DistillError
from distill_support import image_folder, write_image
from models.preprocess import PreprocessConfig

PRE = PreprocessConfig(input_size=16, mean=(0.5, 0.5, 0.5), std=(0.25, 0.25, 0.25), labels=[])


def test_image_folder_and_train_val_root(tmp_path):
    image_folder(tmp_path / "train", ["b_cls", "a_cls"], 3)
    image_folder(tmp_path / "val", ["a_cls"], 2)
    (tmp_path / "train" / "loose.png").write_bytes(b"")  # files beside class folders are not samples
    train = data.open_source(str(tmp_path), "train")
    assert train.classes == ["a_cls", "b_cls"] and len(train) == 6
    assert data.has_val_split(str(tmp_path))
    val = data.remap(data.open_source(str(tmp_path), "val"), train.classes, "val")
    assert len(val) == 2 and {label for _, label in val.items} == {0}
    single = data.open_source(str(tmp_path / "train"), "train")
    assert single.classes == train.classes and not data.has_val_split(str(tmp_path / "train"))


def test_food101_layout(tmp_path):
    (tmp_path / "meta").mkdir()
    (tmp_path / "meta" / "classes.txt").write_text("apple_pie\nbaklava\n")
    (tmp_path / "meta" / "train.txt").write_text("apple_pie/1\nbaklava/2\nbaklava/3\n")
    (tmp_path / "meta" / "test.txt").write_text("apple_pie/4\n")
    for name, label in (("apple_pie/1", 0), ("baklava/2", 1), ("baklava/3", 1), ("apple_pie/4", 0)):
        write_image(tmp_path / "images" / f"{name}.jpg", label, 0)
    train = data.open_source(str(tmp_path), "train")
    assert train.classes == ["apple_pie", "baklava"] and [label for _, label in train.items] == [0, 1, 1]
    test = data.open_source(str(tmp_path), "val")
    assert len(test) == 1 and test.items[0][0].endswith("images/apple_pie/4.jpg")


def test_csv_manifest_labelled_unlabelled_and_mixed(tmp_path):
    write_image(tmp_path / "img" / "x.png", 0, 0)
    write_image(tmp_path / "img" / "y.png", 1, 0)
    (tmp_path / "l.csv").write_text("path,label\nimg/x.png,pho\nimg/y.png,bibimbap\n")
    (tmp_path / "u.csv").write_text("path,label\nimg/x.png,\nimg/y.png,\n")
    (tmp_path / "m.csv").write_text("path,label\nimg/x.png,pho\nimg/y.png,\n")
    labelled = data.open_source(str(tmp_path / "l.csv"), "train")
    assert labelled.classes == ["bibimbap", "pho"] and labelled.items[0] == (str(tmp_path / "img" / "x.png"), 1)
    assert data.open_source(str(tmp_path / "u.csv"), "train").classes is None
    with pytest.raises(DistillError, match="mixes labelled and unlabelled"):
        data.open_source(str(tmp_path / "m.csv"), "train")


def test_unlabelled_folder_and_empty_folder(tmp_path):
    for i in range(3):
        write_image(tmp_path / "photos" / f"{i}.jpg", 0, i)
    source = data.open_source(str(tmp_path / "photos"), "train")
    assert source.classes is None and all(label == -1 for _, label in source.items)
    (tmp_path / "empty").mkdir()
    with pytest.raises(DistillError, match="no images found"):
        data.open_source(str(tmp_path / "empty"), "train")
    (tmp_path / "one" / "soup").mkdir(parents=True)
    write_image(tmp_path / "one" / "soup" / "a.png", 0, 0)
    with pytest.raises(DistillError, match="only one class"):
        data.check_training_source(data.open_source(str(tmp_path / "one"), "train"))


def test_synthetic_classes_differ_and_are_reproducible():
    source = data.open_source("synthetic", "train", synthetic_classes=3, synthetic_images=30)
    dataset = data.make_dataset(source, data.EvalTransform(PRE), seed=0)
    x0, y0, _ = dataset[0]
    assert torch.equal(x0, dataset[0][0]) and y0 == 0 and dataset[1][1] == 1
    means = [torch.stack([dataset[i][0] for i in range(c, 30, 3)]).mean(0) for c in range(3)]
    assert min((means[a] - means[b]).abs().mean() for a in range(3) for b in range(a + 1, 3)) > 0.1


def test_epoch_sampler_splits_global_batches_across_ranks():
    kwargs = dict(size=50, step_samples=8, seed=3, epoch=1)
    single = list(data.EpochSampler(**kwargs))
    assert len(single) == 48 and len(set(single)) == 48
    ranks = [list(data.EpochSampler(**kwargs, rank=r, world_size=2)) for r in range(2)]
    for k in range(12):  # batch 2 per rank == batch 4 of one process, batch for batch
        assert sorted(ranks[0][2 * k:2 * k + 2] + ranks[1][2 * k:2 * k + 2]) == sorted(single[4 * k:4 * k + 4])
    assert list(data.EpochSampler(**kwargs, skip=16)) == single[16:]
    assert single != list(data.EpochSampler(**{**kwargs, "epoch": 2}))


def test_augmentation_depends_only_on_seed_epoch_index():
    source = data.open_source("synthetic", "train", synthetic_images=8)
    transform = data.train_transform(PRE, True, "rand-m9-mstd0.5-inc1", 0.08, 0.25)
    dataset = data.make_dataset(source, transform, seed=0)
    first = dataset[5][0]
    torch.manual_seed(123)
    random.seed(5)
    state = (torch.get_rng_state(), random.getstate(), np.random.get_state()[1].copy())
    assert torch.equal(dataset[5][0], first)
    assert torch.equal(torch.get_rng_state(), state[0]) and random.getstate() == state[1]
    assert np.array_equal(np.random.get_state()[1], state[2])  # global RNGs untouched
    dataset.epoch = 1
    assert not torch.equal(dataset[5][0], first)


def test_corrupt_images_are_skipped_counted_and_warned(tmp_path, capsys):
    image_folder(tmp_path, ["a", "b"], 2)
    (tmp_path / "a" / "001.png").write_bytes(b"not an image")
    (tmp_path / "b" / "000.png").write_bytes(b"")
    dataset = data.make_dataset(data.open_source(str(tmp_path), "train"), data.EvalTransform(PRE), seed=0)
    results = [dataset[i] for i in range(4)]
    assert [skipped for _, _, skipped in results] == [0, 2, 1, 0]
    err = capsys.readouterr().err
    assert "001.png: not an image" in err and "000.png: file is empty" in err
    for path in (tmp_path / "a" / "000.png", tmp_path / "b" / "001.png"):
        path.write_bytes(b"\x89PNG\r\n\x1a\n truncated")
    with pytest.raises(DistillError, match="not one image"):
        dataset[0]
