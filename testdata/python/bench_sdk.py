"""Round trips per second of the generated Python SDK over an in-memory
stream pair (a typed Client.initialize answered by a ServerConn serving a
Server), and of a bare write/readline of the same two lines.

    DSHGEN_PYTHON=... $DSHGEN_PYTHON testdata/python/bench_sdk.py [N]
"""

from __future__ import annotations

import asyncio
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "out" / "python"))

from dshproto import sdk, types  # noqa: E402
from dshproto.transport import LineTransport  # noqa: E402

REQ = (
    b'{"jsonrpc":"2.0","id":"req_0123456789abcdef0123456789abcdef","method":"initialize",'
    b'"params":{"cwd":"/work","provider":"deepseek-official","model":"deepseek-v4-flash"}}\n'
)
RES = b'{"jsonrpc":"2.0","id":"req_0123456789abcdef0123456789abcdef","result":{"serverInfo":{"name":"b","version":"v"}}}\n'


class MemWriter:
    def __init__(self, target: asyncio.StreamReader) -> None:
        self.target = target

    def write(self, data: bytes) -> None:
        self.target.feed_data(data)

    async def drain(self) -> None:
        return None

    def close(self) -> None:
        self.target.feed_eof()


class Echo:
    async def initialize(self, params: types.InitializeParams) -> types.InitializeResult:
        return types.InitializeResult(server_info=types.ServerInfo(name="b", version=params.model))

    async def session_prompt(self, params: types.SessionPromptParams) -> types.SessionPromptResult:
        raise NotImplementedError

    async def shutdown(self, params: types.ShutdownParams) -> types.ShutdownResult:
        return types.ShutdownResult()


async def sdk_round_trips(n: int) -> float:
    c2s, s2c = asyncio.StreamReader(), asyncio.StreamReader()
    conn = sdk.ServerConn(LineTransport(c2s, MemWriter(s2c)))
    serving = asyncio.ensure_future(conn.serve(Echo()))
    client = sdk.Client(LineTransport(s2c, MemWriter(c2s), new_id=sdk.new_request_id))
    p = types.InitializeParams(cwd="/work", provider="deepseek-official", model="deepseek-v4-flash")
    t = time.perf_counter()
    for _ in range(n):
        await client.initialize(p)
    dt = time.perf_counter() - t
    await client.close()
    await conn.close()
    serving.cancel()
    return dt


async def bare_round_trips(n: int) -> float:
    c2s, s2c = asyncio.StreamReader(), asyncio.StreamReader()

    async def peer() -> None:
        while await c2s.readline():
            s2c.feed_data(RES)

    task = asyncio.ensure_future(peer())
    t = time.perf_counter()
    for _ in range(n):
        c2s.feed_data(REQ)
        await s2c.readline()
    dt = time.perf_counter() - t
    task.cancel()
    return dt


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    s = asyncio.run(sdk_round_trips(n))
    b = asyncio.run(bare_round_trips(n))
    print(f"python sdk:  {n / s:9.0f} round trips/s  {s / n * 1e6:7.1f} us each")
    print(f"python bare: {n / b:9.0f} round trips/s  {b / n * 1e6:7.1f} us each")
    print(f"added by the SDK: {(s - b) / n * 1e6:.1f} us per round trip")


if __name__ == "__main__":
    main()
