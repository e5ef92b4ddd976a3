"""Knowledge distillation from a frozen teacher into a small ViT student (`python -m distill`).

Modules, one concept each: config (dataclasses + CLI), data (sources, transforms, samplers),
teacher (frozen, re-normalising wrapper), losses, task (loss for one batch), dist (all DDP
code), optim (AdamW + schedule), checkpoint (atomic I/O), evaluate, logbook (tqdm, JSONL,
TensorBoard, plot), profiling, train (the loop).
"""
