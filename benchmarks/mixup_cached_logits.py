"""How far Mixup/CutMix targets built from cached logits are from a live teacher's, on food10.

    python benchmarks/mixup_cached_logits.py --data food10 [--per-class 64] [--json PATH]

With a teacher-logit cache the teacher saw the unmixed views, so a mixed image's target is
lam * logits_a + (1 - lam) * logits_b (distill.mixing.BatchMixer). A live teacher instead
looks at the mixed pixels. This compares the two targets on the validation photos, mixed in
batches exactly as training mixes them: top-1 agreement, the KL divergence between their
T=4 softmaxes (what the soft KD loss trains on), and the share of each target's probability on
the two mixed classes. The teacher is EfficientNet-Lite0 (ImageNet weights) with a linear head
fitted on --per-class training photos per class, so it needs no GPU and no hub.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch
import torch.nn.functional as F

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.train_throughput import default_data, subset  # noqa: E402
from distill import data  # noqa: E402
from distill.mixing import BatchMixer  # noqa: E402
from distill.teacher import FrozenTeacher  # noqa: E402
from models.registry import create_model  # noqa: E402

TEMPERATURE = 4.0


def batches(dataset, batch_size: int):
    loader = torch.utils.data.DataLoader(dataset, batch_size=batch_size, num_workers=data.resolve_workers("auto"))
    for images, labels, _ in loader:
        yield images, labels


def fit_head(model, dataset, batch_size: int, classes: int) -> None:
    """A linear probe on the frozen body's pooled features (LBFGS, weight decay 1e-3)."""
    features, labels = [], []
    with torch.inference_mode():
        for images, targets in batches(dataset, batch_size):
            features.append(model.forward_head(model.forward_features(images), pre_logits=True))
            labels.append(targets)
    x, y = torch.cat(features).clone(), torch.cat(labels)
    head = torch.nn.Linear(x.shape[1], classes)
    optimizer = torch.optim.LBFGS(head.parameters(), max_iter=200, line_search_fn="strong_wolfe")

    def closure():
        optimizer.zero_grad()
        loss = F.cross_entropy(head(x), y) + 1e-3 * head.weight.square().sum()
        loss.backward()
        return loss

    optimizer.step(closure)
    model.reset_classifier(classes)
    model.get_classifier().load_state_dict(head.state_dict())


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--data", type=Path, default=default_data())
    p.add_argument("--per-class", type=int, default=64, help="training photos per class for the teacher's head")
    p.add_argument("--img-size", type=int, default=128)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--work", type=Path, default=REPO / "runs" / "mixup_cached_logits")
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    torch.manual_seed(0)
    args.work.mkdir(parents=True, exist_ok=True)
    train_root = subset(args.data, args.work, args.per_class)
    train = data.open_source(str(train_root), "train")
    val = data.remap(data.open_source(str(args.data / "val"), "train"), train.classes, "val")
    model = create_model("efficientnet_lite0", labels=train.classes).eval()
    model.preprocess.input_size = args.img_size
    transform = data.EvalTransform(model.preprocess)
    fit_head(model, data.make_dataset(train, transform, 0), args.batch_size, len(train.classes))
    teacher = FrozenTeacher(model, "lite0-probe", model.preprocess, train.classes, resize=False)
    mixer = BatchMixer(0.8, 1.0, 0.0, len(train.classes))
    totals = dict(images=0, teacher_correct=0, agree=0, kl=0.0, live_on_pair=0.0, cached_on_pair=0.0)
    for step, (images, labels) in enumerate(batches(data.make_dataset(val, transform, 0), args.batch_size)):
        if len(images) % 2:
            images, labels = images[:-1], labels[:-1]
        logits = teacher(images)
        with data.seeded(step):
            mixed, _, cached, _ = mixer(images, labels, logits)
        live = teacher(mixed)
        pair = (F.one_hot(labels, len(train.classes)) + F.one_hot(labels.flip(0), len(train.classes))) > 0
        live_p, cached_p = (F.softmax(t / TEMPERATURE, -1) for t in (live, cached))
        totals["images"] += len(images)
        totals["teacher_correct"] += int((logits.argmax(1) == labels).sum())
        totals["agree"] += int((live.argmax(1) == cached.argmax(1)).sum())
        totals["kl"] += float(F.kl_div(cached_p.log(), live_p, reduction="sum"))
        totals["live_on_pair"] += float((F.softmax(live, -1) * pair).sum())
        totals["cached_on_pair"] += float((F.softmax(cached, -1) * pair).sum())
    n = totals["images"]
    result = {"images": n, "teacher_top1": totals["teacher_correct"] / n, "top1_agreement": totals["agree"] / n,
              "kl_t4_per_image": totals["kl"] / n, "live_mass_on_mixed_pair": totals["live_on_pair"] / n,
              "cached_mass_on_mixed_pair": totals["cached_on_pair"] / n}
    print(f"teacher (Lite0 + linear head on {len(train)} photos) val top-1 {result['teacher_top1']:.1%} on {n} photos")
    print(f"mixed val batches (Mixup 0.8 / CutMix 1.0): cached-logit target vs live teacher: top-1 agreement "
          f"{result['top1_agreement']:.1%}, KL(live || cached) at T=4 {result['kl_t4_per_image']:.4f} per image; "
          f"probability on the two mixed classes: live {result['live_mass_on_mixed_pair']:.1%}, "
          f"cached {result['cached_mass_on_mixed_pair']:.1%}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
