"""Key rotation as deploy/README.md describes it, one replica at a time, with interactions running.

Three steps, each rolled out replica by replica: `old,new` (every replica learns the new
key before any seals with it), `new,old` (seal with new, still open old), `new` (once
no state sealed with old is alive). Interactions begun before each restart finish
after it, others run during it, and a state sealed only with the retired key is refused.
"""

import asyncio
import itertools
import secrets
import signal
from contextlib import AsyncExitStack

import pytest
from deploy_clients import Modern, Plan, keyword_text, run_modern
from deploy_cluster import Replica, cluster
from mcp import MCPError

pytestmark = pytest.mark.slow  # tens of seconds: left out of the default run, run by .ci/run

OLD = secrets.token_hex(32)
NEW = secrets.token_hex(32)
STEPS = (f"{OLD},{NEW}", f"{NEW},{OLD}", NEW)
HELD = 3  # interactions begun before each restart and finished after it
RUNNERS = 2  # interactions run back to back during each restart


def restart(replica: Replica, keys: str) -> None:
    """What the operator does: stop the replica (SIGTERM), start it with the new keys, wait for /healthz."""
    assert replica.stop() in (0, -signal.SIGTERM) and "Finished server process" in replica.log(), f"{replica.name} did not shut down cleanly:\n{replica.log()}"
    replica.start(GUIDE_STATE_KEYS=keys)


async def run_during(url: str, numbers, stop: asyncio.Event) -> int:
    """Complete interactions one after another until `stop` is set (at least one); how many."""
    done = 0
    while True:
        number = next(numbers)
        await run_modern(url, Plan(number, ("uncommitted", "branch", "branch-retry")[number % 3], "thorough"))
        done += 1
        if stop.is_set():
            return done


async def test_keys_rotate_one_replica_at_a_time_without_a_failed_interaction(tmp_path):
    numbers = itertools.count()
    with cluster(tmp_path, {"GUIDE_STATE_KEYS": OLD}) as (front, replicas):
        async with AsyncExitStack() as stack:
            retired = await stack.enter_async_context(Modern(front.url, Plan(next(numbers), "branch", "quick")))
            await retired.round()  # sealed with the old key only
            completed = 0
            for keys in STEPS:
                for replica in replicas:
                    held = [await stack.enter_async_context(Modern(front.url, Plan(next(numbers), "branch-retry", "quick"))) for _ in range(HELD)]
                    for interaction in held:
                        await interaction.round()
                    stop = asyncio.Event()
                    running = [asyncio.create_task(run_during(front.url, numbers, stop)) for _ in range(RUNNERS)]
                    await asyncio.to_thread(restart, replica, keys)
                    stop.set()
                    completed += sum(await asyncio.gather(*running))
                    for interaction in held:
                        interaction.plan.check(await interaction.finish(), await keyword_text(front.url, interaction.plan))
                        completed += 1

            assert completed >= len(STEPS) * len(replicas) * (HELD + RUNNERS)
            with pytest.raises(MCPError) as raised:
                await retired.round()
        assert (raised.value.error.code, raised.value.error.message) == (-32602, "Invalid or expired requestState")
        logs = "".join(replica.log() for replica in replicas)
        assert "requestState rejected on resources/read: unknown key" in logs, "the operator's log names the reason"
