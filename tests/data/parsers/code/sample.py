"""Token bucket helpers."""

import time
from dataclasses import dataclass

DEFAULT_RATE = 5.0


# Shared clock so tests can patch it.
def now() -> float:
    return time.monotonic()


class Bucket(Base):
    """A token bucket."""

    capacity: int = 10

    def __init__(self, rate: float) -> None:
        self.rate = rate

    @property
    def full(self) -> bool:
        def helper():
            return True

        return helper()


@dataclass
class Config:
    rate: float = DEFAULT_RATE


if __name__ == "__main__":
    print(now())
