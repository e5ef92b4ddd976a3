"""The product benchmarks: each measures one thing a user relies on, prints a table and says
whether its target is met. Run from the repository root (or anywhere, once installed):

    python -m benchmarks.bench_app            /api/analyze latency and throughput
    python -m benchmarks.bench_batch          batch tool images/s against pure inference; memory
    python -m benchmarks.bench_batch_engines  local and Ray batch engines side by side
    python -m benchmarks.bench_search         food search p50/p95 over the whole catalog
    python -m benchmarks.preset_speed         a preset's student against its teacher, before training
    python -m benchmarks.train_throughput     training images/s: naive loop, trainer, caches, timm
    python -m benchmarks.pipeline_results     the model pipeline's results into docs/results.md

Measured figures are kept with their machine in docs/performance.md and docs/results.md; one-off
experiments answered their question and left a line in docs/experiments.md. Shared helpers live in
benchmarks.common.
"""
