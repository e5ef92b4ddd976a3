"""docs/results.md: the pipeline's numbers on a data set, reproducibly.

    python -m benchmarks.pipeline_results --data ../shared/data/food10 --out runs/food10-cpu [--seeds 3]
    python -m benchmarks.pipeline_results --out runs/food10-cpu --report-only   # from what a run has so far

Runs `python -m distill pipeline --preset cpu` (resumable: rerun to continue) and writes the
run's report, without pictures, under a header naming the command, the commit and the machine.
The run is judged by this project's targets for the food10 recipe (PROJECT_TARGETS), given on the
pipeline's command line; a user's own run states its own, or none.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

from benchmarks.common import ROOT, commit
from distill.report import collect, markdown
from models.machine import cpu_description

# What this project asks of its cpu recipe on food10 (the README's goals for the pipeline).
PROJECT_TARGETS = {"teacher_top1": 0.85, "student_fraction": 0.90, "speedup": 2.0, "kd_gain": 0.05, "hours": 3.0}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", help="data root with train/ and val/ (not needed with --report-only)")
    parser.add_argument("--out", required=True, type=Path, help="the pipeline's run folder")
    parser.add_argument("--preset", default="cpu")
    parser.add_argument("--seeds", type=int, default=1, help="the pipeline's --seeds: the student and the baseline "
                        "trained with this many seeds, the KD gain averaged over them")
    parser.add_argument("--results", type=Path, default=ROOT / "docs" / "results.md")
    parser.add_argument("--report-only", action="store_true", help="do not train; report what the run holds")
    args = parser.parse_args(argv)
    command = [sys.executable, "-m", "distill", "pipeline", "--data", str(args.data), "--out", str(args.out),
               "--preset", args.preset, "--seeds", str(args.seeds),
               *(f"--target={name}={value:g}" for name, value in PROJECT_TARGETS.items())]
    if not args.report_only:
        if not args.data:
            parser.error("--data is needed unless --report-only")
        status = subprocess.run(command, cwd=ROOT).returncode
        if status:
            print(f"pipeline stopped with status {status}; the results below are what it has so far", file=sys.stderr)
    if not (args.out / "pipeline.json").is_file():
        parser.error(f"{args.out} is not a pipeline run folder")
    header = [
        "# Results: the model pipeline",
        "",
        f"Generated {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC by `python -m benchmarks.pipeline_results` at commit "
        f"{commit()} on {cpu_description()}.",
        "Reproduce (resumable; rerun to continue a stopped run):",
        "",
        "```bash",
        f".venv/bin/python -m benchmarks.pipeline_results --data ../shared/data/food10 --out runs/{args.out.name}"
        f" --preset {args.preset}" + (f" --seeds {args.seeds}" if args.seeds > 1 else ""),
        "```",
        "",
    ]
    body = markdown(collect(args.out, PROJECT_TARGETS), images=False)
    body = body.split("\n", 1)[1]  # the report's own title gives way to this page's
    args.results.parent.mkdir(parents=True, exist_ok=True)
    args.results.write_text("\n".join(header) + body)
    print(f"wrote {args.results}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
