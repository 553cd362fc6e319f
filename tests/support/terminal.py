"""Children started in a pseudo-terminal for the interactive commands' tests."""

import signal


def interruptible() -> None:
    """Give a child started by the tests Ctrl-C's default meaning, whatever the test run inherited.

    `nohup` and some CI runners start the suite with SIGINT ignored, and an ignored
    signal stays ignored across exec: the child would never see Ctrl-C.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)
