"""Run calls at the same moment: threads released together at a barrier, each call's result or exception
collected in order, so a test can assert how every racer ended."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


def together(calls: list[Callable[[], T]]) -> list[T | BaseException]:
    """Each call's return value, or the exception it raised, in the order of ``calls``."""
    barrier = threading.Barrier(len(calls))

    def run(call: Callable[[], T]) -> T | BaseException:
        barrier.wait()
        try:
            return call()
        except Exception as exc:  # collected: the test asserts on how each racer ended
            return exc

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(run, calls))
