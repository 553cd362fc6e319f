"""A replica killed with SIGKILL in the middle of a run: 2026-07-28 interactions carry on on the others.

Interactions are begun (one round each, some on the victim), the victim is killed
while more interactions are running, and everything finishes: the sealed state lets
any live replica take the next round, and nginx retries a round the dead replica
can no longer answer (Guide's requests only read, so a retry is safe).
"""

import asyncio
import secrets
from contextlib import AsyncExitStack

import pytest
from deploy_clients import Modern, bounded, keyword_text, plans, run_modern
from deploy_cluster import cluster

pytestmark = pytest.mark.slow  # tens of seconds: left out of the default run, run by .ci/run

BEGUN = 30  # interactions with one round done before the kill
DURING = 60  # interactions running while the kill happens
KILL_AFTER = 20  # ... the kill comes once this many of them are complete


async def test_a_killed_replica_costs_no_2026_interaction(tmp_path):
    with cluster(tmp_path, {"GUIDE_STATE_KEYS": secrets.token_hex(32)}) as (front, replicas):
        victim, live = replicas[1], {replica.address for replica in replicas[::2]}
        everyone = plans(BEGUN + DURING, seed=9)
        async with AsyncExitStack() as stack:
            begun = [await stack.enter_async_context(Modern(front.url, plan)) for plan in everyone[:BEGUN]]
            for interaction in begun:
                await interaction.round()
            assert victim.address in {interaction.replicas()[0] for interaction in begun}

            complete = 0

            async def counted(plan):
                nonlocal complete
                route = await run_modern(front.url, plan)
                complete += 1
                return route

            during = asyncio.ensure_future(bounded((counted(plan) for plan in everyone[BEGUN:]), limit=6))
            while complete < KILL_AFTER and not during.done():  # bounded: the run ends by itself
                await asyncio.sleep(0.01)
            assert not during.done(), "the run finished before the kill; raise DURING"
            await asyncio.to_thread(victim.kill)
            routes = await during

            for interaction in begun:
                text = await interaction.finish()
                interaction.plan.check(text, await keyword_text(front.url, interaction.plan))
                assert set(interaction.replicas()[1:]) <= live, "rounds after the kill go to live replicas"
        assert len(routes) == DURING and all(routes)
        assert victim.process.returncode == -9
