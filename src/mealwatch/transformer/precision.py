"""What the CPU computes natively, for choosing a precision."""

from __future__ import annotations

import functools
from pathlib import Path


@functools.cache
def cpu_has_bf16() -> bool:
    """True when the CPU computes bfloat16 natively (AVX512-BF16 or AMX), where autocast speeds training up."""
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags
