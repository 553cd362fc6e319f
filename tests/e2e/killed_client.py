"""A legacy client, run as a process of its own: it reads a command that asks a form, says so, and never answers."""

import asyncio
import sys

from fastmcp import Client


async def main(url: str, address: str) -> None:
    async def never(message, response_type, params, context):
        print("asked", flush=True)
        await asyncio.Event().wait()

    async with Client(url, mode="legacy", elicitation_handler=never) as client:
        await client.read_resource(address)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
