"""A token-bucket rate limiter for outgoing API calls.

Each bucket holds up to ``capacity`` tokens and refills at ``rate`` tokens per second;
a call spends one token and waits when the bucket is empty.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

DEFAULT_CAPACITY = 10


class RateLimitExceeded(RuntimeError):
    """Raised by ``try_acquire`` callers that choose not to wait."""


class TokenBucket:
    """A thread-safe token bucket.

    The clock is injectable so that tests can advance time without sleeping.
    """

    capacity: int
    rate: float

    def __init__(self, rate: float, capacity: int = DEFAULT_CAPACITY, clock: Callable[[], float] = time.monotonic):
        if rate <= 0:
            raise ValueError(f"rate must be positive, got {rate!r}")
        self.rate = rate
        self.capacity = capacity
        self._clock = clock
        self._tokens = float(capacity)
        self._updated = clock()
        self._lock = threading.Lock()

    def _refill(self) -> None:
        now = self._clock()
        elapsed = now - self._updated
        self._tokens = min(self.capacity, self._tokens + elapsed * self.rate)
        self._updated = now

    def try_acquire(self, tokens: int = 1) -> bool:
        """Spend ``tokens`` if available; never blocks."""
        with self._lock:
            self._refill()
            if self._tokens >= tokens:
                self._tokens -= tokens
                return True
            return False

    def wait_time(self, tokens: int = 1) -> float:
        """Seconds until ``tokens`` would be available (0.0 if they are now)."""
        with self._lock:
            self._refill()
            missing = tokens - self._tokens
            return max(0.0, missing / self.rate)

    def acquire(self, tokens: int = 1, timeout: float | None = None) -> None:
        """Block until ``tokens`` are spent, or raise RateLimitExceeded after ``timeout`` seconds."""
        deadline = None if timeout is None else self._clock() + timeout
        while not self.try_acquire(tokens):
            delay = self.wait_time(tokens)
            if deadline is not None and self._clock() + delay > deadline:
                raise RateLimitExceeded(f"no {tokens} token(s) within {timeout}s")
            time.sleep(delay)


def limited(bucket: TokenBucket) -> Callable[[Callable[..., object]], Callable[..., object]]:
    """Decorator: every call to the wrapped function first acquires one token."""

    def decorate(func: Callable[..., object]) -> Callable[..., object]:
        def wrapper(*args: object, **kwargs: object) -> object:
            bucket.acquire()
            return func(*args, **kwargs)

        return wrapper

    return decorate
