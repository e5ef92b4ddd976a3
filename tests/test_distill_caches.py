"""The decoded-image and teacher-logit caches: exact replay, invalidation, resume after a kill."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import torch
from distill_support import REPO, TINY_VIT, image_folder, run_cli, save_teacher, tiny_args

from distill import data
from distill.cache_files import DIGESTS
from distill.config import LossConfig
from distill.image_cache import build_image_cache, image_cache_folder
from distill.logit_cache import ReplayDataset, build_logit_cache, logit_cache_folder
from distill.task import DistillTask
from distill.teacher import FrozenTeacher
from models.preprocess import PreprocessConfig
from models.registry import create_model

CLASSES = ["a", "b", "c"]
PRE = PreprocessConfig(input_size=16, mean=(0.5, 0.5, 0.5), std=(0.25, 0.25, 0.25))


def make_teacher(path, seed=0):
    model = create_model(f"ckpt:{save_teacher(path, CLASSES, seed=seed)}")
    return FrozenTeacher(model, f"ckpt:{path}", PRE, CLASSES)


def train_set(root, re_prob=0.25):
    transform = data.train_transform(PRE, True, "rand-m9-mstd0.5-inc1", 0.08, re_prob)
    return data.make_dataset(data.open_source(str(root), "train"), transform, seed=0)


@pytest.fixture
def photos(tmp_path):
    return image_folder(tmp_path / "photos", CLASSES, 4)


def test_cached_logits_equal_live_teacher_on_the_same_views(tmp_path, photos):
    teacher, dataset = make_teacher(tmp_path / "t.pt"), train_set(photos)
    cache = build_logit_cache(teacher, dataset, tmp_path / "cache", views=3, topk=10, log=lambda _: None)
    replay = ReplayDataset(dataset, cache)
    task = DistillTask(create_model("vit_micro", labels=CLASSES, pretrained=False, **TINY_VIT), teacher,
                       LossConfig(alpha=0.5, temperature=4.0), labelled=True, label_smoothing=0.0)
    seen_views = set()
    for epoch in range(3):
        replay.epoch = epoch
        items = [replay[i] for i in range(len(replay))]
        images = torch.stack([item[0] for item in items])
        labels = torch.tensor([item[1] for item in items])
        cached = torch.stack([item[3] for item in items])
        torch.testing.assert_close(cached, teacher(images), atol=1e-5, rtol=1e-5)
        cached_loss = task(images, labels, cached)["loss"]
        live_loss = task(images, labels)["loss"]  # the task calls the teacher itself
        torch.testing.assert_close(cached_loss, live_loss, atol=1e-5, rtol=1e-5)
        seen_views.update((i, cache.choose(0, epoch, i)) for i in range(len(replay)))
    assert len(seen_views) == 3 * len(replay)  # K epochs replay every view once



def test_stored_renderings_replay_exactly_what_rendering_again_gives(tmp_path, photos):
    """--logit-pixels: the loader reads each view's stored crop + RandAugment and only normalises and
    erases it; tensors, labels, skipped counts and logits equal the cache that renders again."""
    (photos / "b" / "001.png").write_bytes(b"corrupt")  # replaced by the next photo: skipped 1
    teacher, dataset = make_teacher(tmp_path / "t.pt"), train_set(photos, re_prob=0.5)
    rendering = build_logit_cache(teacher, dataset, tmp_path / "cache", views=3, topk=10, log=lambda _: None)
    stored = build_logit_cache(teacher, dataset, tmp_path / "cache", views=3, topk=10, pixels=True, log=lambda _: None)
    assert stored.pixels and not rendering.pixels and stored.path != rendering.path
    assert stored.folder.array("pixels").shape == (len(dataset), 3, 16, 16, 3)
    from torchvision.transforms.functional import to_tensor

    erased = 0
    for epoch in range(3):
        replays = ReplayDataset(dataset, rendering), ReplayDataset(dataset, stored)
        for replay in replays:
            replay.epoch = epoch
        for i in range(len(dataset)):
            (again, label, skipped, logits), (read, read_label, read_skipped, read_logits) = (r[i] for r in replays)
            torch.testing.assert_close(read, again, atol=0, rtol=0)
            torch.testing.assert_close(read_logits, logits, atol=1e-6, rtol=1e-6)
            assert (read_label, read_skipped) == (label, skipped)
            rendered, _, _ = stored.rendered(np.array([i]), np.array([stored.choose(0, epoch, i)]))
            erased += not torch.equal(read, dataset.transform.finish.transforms[1](to_tensor(rendered[0])))
        # the loader asks for whole batches: read and normalised at once, the same samples
        singles = [replays[1][i] for i in range(len(dataset))]
        batch = replays[1].__getitems__(list(range(len(dataset))))
        assert [item[1:3] for item in batch] == [item[1:3] for item in singles]
        for part in (0, 3):
            torch.testing.assert_close(torch.stack([item[part] for item in batch]),
                                       torch.stack([item[part] for item in singles]), atol=0, rtol=0)
    assert 0 < erased < 3 * len(dataset)  # random erasing ran (p=0.5), and replayed the same rectangles
    assert sum(ReplayDataset(dataset, stored)[i][2] for i in range(len(dataset))) == 1


def test_a_larger_teacher_labels_each_view_rendered_at_its_own_size(tmp_path, photos):
    """Same crop, flip and RandAugment as the student's replay, drawn sharp at the teacher's 32 px
    instead of the student's 16 px upsampled (erasing off: it draws its rectangle per size)."""
    model = create_model(f"ckpt:{save_teacher(tmp_path / 't32.pt', CLASSES, img_size=32)}")
    teacher, dataset = FrozenTeacher(model, "t32", PRE, CLASSES), train_set(photos, re_prob=0.0)
    cache = build_logit_cache(teacher, dataset, tmp_path / "cache", views=2, topk=10, log=lambda _: None)
    assert cache.folder.manifest["render_size"] == 32
    replay = ReplayDataset(dataset, cache)
    for i in range(len(replay)):
        student_view, _, _, cached = replay[i]
        assert student_view.shape[-1] == 16
        image, _, _ = dataset.load(i)
        sharp = dataset.transform.apply(image, cache.views_at(np.array([i]), np.array([cache.choose(0, 0, i)]))[0], 32)
        torch.testing.assert_close(cached, teacher(sharp[None])[0], atol=1e-5, rtol=1e-5)
        assert not torch.allclose(cached, teacher(student_view[None])[0], atol=1e-6, rtol=0)  # not the upsampled crop

def test_top_k_keeps_the_softmax_of_the_top_k(tmp_path, photos):
    teacher, dataset = make_teacher(tmp_path / "t.pt"), train_set(photos)
    cache = build_logit_cache(teacher, dataset, tmp_path / "cache", views=2, topk=2, log=lambda _: None)
    pixels, *_, logits = ReplayDataset(dataset, cache)[5]
    live = teacher(pixels[None])[0]
    top = live.topk(2).indices
    torch.testing.assert_close(logits.softmax(0)[top], live.softmax(0)[top], atol=1e-6, rtol=1e-5)


def test_logit_cache_is_rebuilt_when_teacher_data_or_transform_change(tmp_path, photos):
    teacher, dataset = make_teacher(tmp_path / "t.pt"), train_set(photos)
    args = dict(views=2, topk=10, precision="fp32", num_classes=3)
    base = logit_cache_folder(teacher, dataset, tmp_path, **args).path
    assert logit_cache_folder(teacher, train_set(photos), tmp_path, **args).path == base  # same inputs
    changed = [
        logit_cache_folder(make_teacher(tmp_path / "t2.pt", seed=1), dataset, tmp_path, **args),
        logit_cache_folder(teacher, train_set(photos, re_prob=0.5), tmp_path, **args),
        logit_cache_folder(teacher, dataset, tmp_path, **{**args, "views": 3}),
    ]
    (photos / "a" / "000.png").write_bytes((photos / "b" / "000.png").read_bytes())
    changed.append(logit_cache_folder(teacher, train_set(photos), tmp_path, **args))
    paths = {base} | {folder.path for folder in changed}
    assert len(paths) == 5


def test_image_cache_replays_the_decoded_images_and_is_rebuilt_on_change(tmp_path, photos):
    dataset = train_set(photos)
    (photos / "b" / "001.png").write_bytes(b"corrupt")
    store = build_image_cache(dataset, tmp_path / "cache", size=20, workers=2, log=lambda _: None)
    for index in range(len(dataset)):
        image, label, skipped = dataset.decode(index)
        cached, cached_label, cached_skipped = store.load(index)
        assert (cached_label, cached_skipped) == (label, skipped) and min(cached.size) == 20
        expected = np.asarray(image.resize(cached.size, 3, reducing_gap=3.0))
        assert np.abs(np.asarray(cached).astype(int) - expected).max() <= 1
    dataset.store = store
    assert [dataset.load(i)[1:] for i in range(len(dataset))] == [dataset.decode(i)[1:] for i in range(len(dataset))]
    synthetic = data.make_dataset(data.open_source("synthetic", "train", synthetic_images=8), dataset.transform, 0)
    synthetic.store = build_image_cache(synthetic, tmp_path / "cache", size=20, log=lambda _: None)
    assert [synthetic.load(i)[1] for i in range(8)] == [synthetic.decode(i)[1] for i in range(8)]
    assert image_cache_folder(dataset, tmp_path / "cache", 24).path != store.path
    (photos / "c" / "000.png").write_bytes((photos / "a" / "000.png").read_bytes())
    assert image_cache_folder(train_set(photos), tmp_path / "cache", 20).path != store.path


def test_photos_copied_again_unchanged_keep_their_caches(tmp_path, photos):
    teacher, args = make_teacher(tmp_path / "t.pt"), dict(views=2, topk=10, precision="fp32", num_classes=3)
    images = image_cache_folder(train_set(photos), tmp_path / "cache", 20).path
    logits = logit_cache_folder(teacher, train_set(photos), tmp_path / "cache", **args).path
    for path in (photos / "a").iterdir():  # what a copy that does not keep times does
        os.utime(path, ns=(10**18, 10**18))
    assert image_cache_folder(train_set(photos), tmp_path / "cache", 20).path == images
    assert logit_cache_folder(teacher, train_set(photos), tmp_path / "cache", **args).path == logits
    photo = photos / "a" / "001.png"
    edited = bytearray(photo.read_bytes())
    edited[-20] ^= 0xFF  # same size, other content
    photo.write_bytes(bytes(edited))
    assert image_cache_folder(train_set(photos), tmp_path / "cache", 20).path != images
    assert logit_cache_folder(teacher, train_set(photos), tmp_path / "cache", **args).path != logits


def test_the_digest_memo_forgets_photos_that_are_gone(tmp_path, photos):
    memo = tmp_path / "cache" / DIGESTS
    image_cache_folder(train_set(photos), tmp_path / "cache", 20)
    remembered = set(json.loads(memo.read_text()))
    assert remembered == {str(p) for p in photos.glob("*/*.png")}
    removed, added = photos / "a" / "000.png", photos / "b" / "new.png"
    added.write_bytes(removed.read_bytes())
    removed.unlink()
    image_cache_folder(train_set(photos), tmp_path / "cache", 20)
    assert set(json.loads(memo.read_text())) == remembered - {str(removed)} | {str(added)}


def test_a_cache_written_in_an_older_layout_is_never_read(tmp_path, photos, monkeypatch):
    """A layout change (e.g. a column added to the stored shapes) must not crash a run on an old folder."""
    import distill.image_cache as image_cache
    import distill.logit_cache as logit_cache

    dataset = train_set(photos)
    teacher = make_teacher(tmp_path / "t.pt")
    args = dict(views=2, topk=3, precision="fp32", num_classes=3)
    images = image_cache_folder(dataset, tmp_path, 20).path
    logits = logit_cache_folder(teacher, dataset, tmp_path, **args).path
    monkeypatch.setattr(image_cache, "LAYOUT", image_cache.LAYOUT + 1)
    monkeypatch.setattr(logit_cache, "LAYOUT", logit_cache.LAYOUT + 1)
    assert image_cache_folder(dataset, tmp_path, 20).path != images
    assert logit_cache_folder(teacher, dataset, tmp_path, **args).path != logits


BUILD_SLOWLY = """
import sys, time
from pathlib import Path
sys.path[:0] = [{repo!r}, {tests!r}]
import test_distill_caches as t
from distill import data, image_cache, logit_cache
kind, root, photos = sys.argv[1], sys.argv[2], Path(sys.argv[3])
decode = data.ImageDataset.decode
def slow(self, index):
    time.sleep(0.05)
    return decode(self, index)
data.ImageDataset.decode = slow
dataset = t.train_set(photos)
if kind == "images":
    image_cache.build_image_cache(dataset, root, size=20, workers=1)
else:
    logit_cache.build_logit_cache(t.make_teacher(Path(root) / "t.pt"), dataset, root, views=2, batch_size=2, pixels=True)
"""


@pytest.mark.parametrize("kind", ["images", "logits"])
def test_a_build_killed_midway_resumes_to_a_complete_correct_cache(tmp_path, kind):
    photos = image_folder(tmp_path / "photos", CLASSES, 30)
    killed, fresh = tmp_path / "killed", tmp_path / "fresh"
    killed.mkdir()
    fresh.mkdir()
    script = BUILD_SLOWLY.format(repo=str(REPO), tests=str(REPO / "tests"))
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    process = subprocess.Popen([sys.executable, "-c", script, kind, str(killed), str(photos)], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    deadline, done = time.time() + 180, 0  # generous: a loaded machine starts the child slowly
    while time.time() < deadline and process.poll() is None:
        flags = list(killed.glob(f"{kind}-*/done.npy"))
        done = int(np.load(flags[0]).sum()) if flags else 0
        if done >= 4:
            break
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert 4 <= done < 90, process.stderr.read().decode()[-2000:]
    (folder,) = killed.glob(f"{kind}-*")
    assert not data_is_complete(folder)
    dataset = train_set(photos)
    if kind == "images":
        resumed = build_image_cache(dataset, killed, size=20, log=lambda _: None)
        reference = build_image_cache(dataset, fresh, size=20, log=lambda _: None)
        names = ("pixels", "shapes", "done")
    else:
        # with stored renderings: every array of the cache is checked
        resumed = build_logit_cache(make_teacher(killed / "t.pt"), dataset, killed, views=2, pixels=True, log=lambda _: None)
        reference = build_logit_cache(make_teacher(fresh / "t.pt"), dataset, fresh, views=2, pixels=True, log=lambda _: None)
        names = ("view_params", "top_values", "top_index", "rest", "pixels", "labels", "skipped", "done")
    assert resumed.path == folder
    for name in names:
        np.testing.assert_allclose(resumed.folder.array(name), reference.folder.array(name), atol=1e-5, rtol=1e-5)


def data_is_complete(folder) -> bool:
    import json

    return json.loads((folder / "manifest.json").read_text())["complete"]


def test_training_with_both_caches_reuses_them(tmp_path, photos, capsys):
    save_teacher(tmp_path / "t.pt", CLASSES)
    common = dict(data=photos, val_data="none", teacher=f"ckpt:{tmp_path / 't.pt'}", augment="true", batch_size=4,
                  image_cache=tmp_path / "cache", logit_cache=tmp_path / "cache", logit_views=2)
    assert run_cli("train", *tiny_args(tmp_path / "one", **common)) == 0
    first = capsys.readouterr().err
    assert "teacher-logit cache: 12 of 12 images x 2 views" in first and "decoded-image cache: decoding 12" in first
    assert "Mixup/CutMix mixes the teacher's outputs" in first  # tiny_args keeps the default Mixup
    assert run_cli("train", *tiny_args(tmp_path / "two", mixup=0, cutmix=0, **common)) == 0
    second = capsys.readouterr().err
    assert "cache:" not in second and "step time breakdown" in second  # reused; the step table is printed
    assert "Mixup/CutMix" not in second
    assert len([p for p in (tmp_path / "cache").glob("*-*") if p.is_dir()]) == 2


def test_stored_renderings_train_in_process_exactly_as_rendering_again(tmp_path, photos, capsys):
    """--logit-pixels with --num-workers auto on a CPU: batches are read in the training process,
    and every step's loss equals the run that renders each view again in loader workers."""
    save_teacher(tmp_path / "t.pt", CLASSES)
    common = dict(data=photos, val_data="none", teacher=f"ckpt:{tmp_path / 't.pt'}", augment="true", batch_size=4,
                  epochs=3, num_workers="auto", logit_cache=tmp_path / "cache", logit_views=2)
    losses = {}
    for pixels in ("false", "true"):
        assert run_cli("train", *tiny_args(tmp_path / pixels, logit_pixels=pixels, **common)) == 0
        records = [json.loads(line) for line in (tmp_path / pixels / "metrics.jsonl").read_text().splitlines()]
        losses[pixels] = [r["train/loss"] for r in records if "train/loss" in r]
        in_process = "training batches are read in the training process" in capsys.readouterr().err
        assert in_process == (pixels == "true")
    assert len(losses["true"]) == 9 and losses["true"] == losses["false"]


def test_two_ranks_fill_one_logit_cache_equal_to_a_single_process_build(tmp_path):
    from distill_support import run_subprocess

    teacher = save_teacher(tmp_path / "t.pt", [f"class_{i}" for i in range(4)])
    common = dict(teacher=f"ckpt:{teacher}", augment="true", synthetic_images=32, batch_size=4, max_steps=1,
                  val_data="none", logit_views=2)
    result = run_subprocess(["train", *tiny_args(tmp_path / "ddp", logit_cache=tmp_path / "two", **common)], nproc=2)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "teacher-logit cache: 16 of 32 images" in result.stderr  # rank 0 reports its half
    assert run_cli("train", *tiny_args(tmp_path / "one", logit_cache=tmp_path / "one-cache", **common)) == 0
    (two,), (one,) = (tmp_path / "two").glob("logits-*"), (tmp_path / "one-cache").glob("logits-*")
    assert data_is_complete(two)
    for name in ("view_params", "top_values", "top_index", "done"):
        np.testing.assert_allclose(np.load(two / f"{name}.npy"), np.load(one / f"{name}.npy"), atol=1e-5)


def test_the_image_cache_shrinks_large_photos_and_keeps_small_ones_as_they_are():
    from PIL import Image

    from distill.image_cache import shrink

    assert shrink(Image.new("RGB", (400, 300)), 146).size == (195, 146)
    assert shrink(Image.new("RGB", (1000, 200)), 100).size == (200, 100)  # at most 2:1 kept, centred
    # A 64 px Food-101 photo is not enlarged to the training size: the crop resizes it anyway, and
    # 75,709 of them take 0.9 GB instead of 4.8.
    assert shrink(Image.new("RGB", (64, 64)), 146).size == (64, 64)
    assert shrink(Image.new("RGB", (64, 200)), 146).size == (64, 128)
