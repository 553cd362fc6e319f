"""The garbage collector is off during bulk work, back on after the last pause, and nothing is frozen.

Each test runs in a process of its own: the collector is the process's, and a
server of another test may still be finishing bulk work in a worker thread.
"""

import subprocess
import sys
import textwrap


def run(code: str) -> None:
    """Run `code` (with `gc` and `guide.collector` imported) in a fresh interpreter; its assertions must hold."""
    source = "import gc, threading\nfrom guide import collector\n" + textwrap.dedent(code)
    done = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_a_pause_turns_the_collector_off_and_back_on():
    run("""
        with collector.paused():
            assert not gc.isenabled()
        assert gc.isenabled()
    """)


def test_pauses_nest_and_overlap_across_threads():
    run("""
        inside, release = threading.Event(), threading.Event()

        def other():
            with collector.paused():
                inside.set()
                release.wait(5)

        thread = threading.Thread(target=other)
        with collector.paused():
            thread.start()
            inside.wait(5)
            with collector.paused():
                assert not gc.isenabled()
        assert not gc.isenabled()  # the other thread's pause is still on
        release.set()
        thread.join(5)
        assert gc.isenabled()
    """)


def test_a_collector_turned_off_by_the_program_stays_off():
    run("""
        gc.disable()
        with collector.paused():
            pass
        assert not gc.isenabled()
    """)


def test_nothing_is_frozen():
    run("""
        with collector.paused():
            pass
        assert gc.get_freeze_count() == 0
    """)
