"""A server (``peer.py server``, on stdio) and a client (``peer.py client CMD
ARGS...``, spawning the server command) of the Todo Protocol
(../todo.schema.json) written against the Python SDK dshgen generates
(package ``todo`` on PYTHONPATH, imported from its root); gen/emit
TestSDKEdgeCases drives it (see ../README.md).
"""

from __future__ import annotations

import asyncio
import json
import sys

from todo import (
    AddParams,
    AddResult,
    Client,
    FailParams,
    ServerConn,
    TransportClosedError,
    UnimplementedServer,
)


class PeerServer(UnimplementedServer):
    """Answers todo/add after 200 ms (a response still being made when the
    input ends) and fails todo/fail."""

    async def todo_add(self, params: AddParams) -> AddResult:
        await asyncio.sleep(0.2)
        return AddResult(title=params.title)

    async def todo_fail(self, params: FailParams) -> AddResult:
        raise RuntimeError("todo/fail always fails")


async def serve() -> None:
    conn = await ServerConn.stdio()
    await conn.serve(PeerServer())


def step(v: dict[str, object]) -> None:
    print(json.dumps(v), flush=True)


async def client(argv: list[str]) -> None:
    """todo/add with None params (refused before anything is sent), then
    with params, on a server that reads one line and exits without an
    answer: the call fails with the closed transport."""
    c = await Client.spawn(*argv)
    try:
        try:
            await c.todo_add(None, timeout=60)  # type: ignore[arg-type] # what the test is about
            step({"step": "nil-params", "refused": False})
        except TypeError:
            step({"step": "nil-params", "refused": True})
        try:
            await c.todo_add(AddParams(title="sent"), timeout=60)
            step({"step": "eof", "closed": False})
        except TransportClosedError as e:
            print("python client: todo/add:", e, file=sys.stderr)
            step({"step": "eof", "closed": True})
    finally:
        await c.close()


def main() -> None:
    if sys.argv[1:] == ["server"]:
        asyncio.run(serve())
    elif len(sys.argv) >= 3 and sys.argv[1] == "client":
        asyncio.run(client(sys.argv[2:]))
    else:
        sys.exit("usage: peer.py server | peer.py client CMD [ARG...]")


if __name__ == "__main__":
    main()
