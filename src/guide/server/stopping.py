"""The moment an HTTP replica begins to stop, for the parts that must let their clients go then, not after the grace period.

On SIGTERM uvicorn stops accepting connections and waits up to its grace period
for the requests in flight before the application hears of the stop (its
lifespan ends only after). A request that only ends when told to, such as a
2026-07-28 `subscriptions/listen` stream, would hold the whole grace period and
then be cut with a traceback. So uvicorn's first step of a stop (asking each
connection to shut down, see `guide.server.connections`) calls `begin`, which
runs what the running servers registered, once.
"""

from collections.abc import Callable

_waiting: list[Callable[[], None]] = []


def on_stop(callback: Callable[[], None]) -> Callable[[], None]:
    """Run `callback` when the process begins to stop; returns a function that takes it back (a server that ended first)."""
    _waiting.append(callback)
    return lambda: _waiting.remove(callback) if callback in _waiting else None


def begin() -> None:
    """The process begins to stop: run every registered callback, once."""
    while _waiting:
        _waiting.pop(0)()
