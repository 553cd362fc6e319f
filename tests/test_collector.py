"""The garbage collector is off during bulk work, back on after the last pause, and what was frozen is handed back by `thaw`."""

import gc
import threading

import pytest

from guide import collector


@pytest.fixture(autouse=True)
def collector_on():
    was = gc.isenabled()
    gc.enable()
    yield
    gc.unfreeze()
    (gc.enable if was else gc.disable)()


def test_a_pause_turns_the_collector_off_and_back_on():
    with collector.paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_pauses_nest_and_overlap_across_threads():
    inside, release = threading.Event(), threading.Event()

    def other() -> None:
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


def test_a_collector_turned_off_by_the_program_stays_off():
    gc.disable()
    with collector.paused():
        pass
    assert not gc.isenabled()


def test_what_was_alive_after_a_pause_is_frozen_until_thawed():
    class Node:
        pass

    node = Node()
    node.self = node  # a cycle: only the collector frees it
    with collector.paused():
        pass
    assert gc.get_freeze_count() > 0
    del node
    assert not any(type(item) is Node for item in gc.get_objects())  # frozen objects are out of the collector's sight
    collector.thaw()
    assert gc.get_freeze_count() == 0
    assert any(type(item) is Node for item in gc.get_objects())  # back in sight, and still there: nothing freed a frozen cycle
    gc.collect()
    assert not any(type(item) is Node for item in gc.get_objects())
