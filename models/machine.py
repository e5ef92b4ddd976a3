"""What this CPU is, read at run time from /proc/cpuinfo (one reader for every consumer).

Kept free of heavy imports (no torch, no onnxruntime) so the trainer and the engine can both
ask it: machines here differ (AVX-512 with VNNI and bf16 on one, AVX2 only on another), and
precision and kernel choices follow what the CPU has.
"""

from __future__ import annotations

import functools
import os


@functools.cache
def _cpuinfo_fields() -> dict[str, str]:
    """The first processor's fields; empty off Linux, which only makes choices conservative."""
    fields: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as cpuinfo:
            for line in cpuinfo:
                if not line.strip():
                    break  # end of the first processor's block
                key, _, value = line.partition(":")
                fields.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    return fields


def cpu_flags() -> frozenset[str]:
    """Every feature flag of this CPU (avx2, avx512_vnni, avx512_bf16, amx_bf16, ...)."""
    return frozenset(_cpuinfo_fields().get("flags", "").split())


def cpu_description() -> str:
    """CPU model and core count, for a benchmark's context."""
    return f"{_cpuinfo_fields().get('model name') or 'unknown CPU'}, {os.cpu_count()} cores"
