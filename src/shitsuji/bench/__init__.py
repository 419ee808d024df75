"""Benchmarks that drive the same remember/recall code users run, and print figures.

Each bench builds its own throw-away database in a temporary directory, so running one
never touches a user's memories.
"""

from ._common import bench_engine
from .extraction import run_extraction_check
from .japanese import run_japanese
from .latency import run_latency
from .locomo import run_locomo
from .longmemeval import run_longmemeval

__all__ = [
    "bench_engine",
    "run_extraction_check",
    "run_japanese",
    "run_latency",
    "run_locomo",
    "run_longmemeval",
]
