"""Clocks a test hands the server (`create_server(clock=...)`), so that how long a form was with the client is what the test
says, never how fast the machine is: a decline that came back "at once" and one a person took seconds over."""


class Clock:
    """Time that moves only when the test moves it (`advance`), or by `step` seconds at each look."""

    def __init__(self, step: float = 0.0, start: float = 1_000_000.0) -> None:
        self.step = step
        self.now = start

    def __call__(self) -> float:
        self.now += self.step
        return self.now

    def advance(self, seconds: float) -> None:
        """Let `seconds` go by (a client that takes that long to answer calls this before it answers)."""
        self.now += seconds


def person() -> Clock:
    """A clock by which every form is with the client for seconds (5 at each look): each answer is a person's, never automatic."""
    return Clock(step=5.0)
