"""Batch CSV analysis (`python -m app batch`): one module per step.

runner (options, plan, the run and the CLI) reads rows with csvfile, resolves photo paths
with paths, decodes and predicts in pipeline, adds nutrition (nutrition, rows), logs meals
(log), resumes (resume) and writes the per-day summary (summary); rayengine runs the
decoding and the model on Ray Data actors instead (--engine ray); upload runs the web tab's
upload (app.ui.batch) and archive unpacks its zip safely.
"""

from app.batch.runner import BatchConfig, BatchResult, Progress, default_workers, main, plan_batch, run_batch

__all__ = ["BatchConfig", "BatchResult", "Progress", "default_workers", "main", "plan_batch", "run_batch"]
