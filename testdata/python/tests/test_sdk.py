"""The generated Python SDK (dshproto.transport, dshproto.sdk): the line
transport's rules, each with a test; the typed client and server against
each other; bad peers; and the client on the real npm runtime (the
scenarios of ../shared/real-runtime, compared with what the published
TypeScript client got)."""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import re
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from conftest import FIXTURES, SHARED
from dshproto import sdk, types
from dshproto.codec import ABSENT, JsonValue
from dshproto.transport import (
    Incoming,
    LineTransport,
    MethodNotFoundError,
    ResponseError,
    TransportClosedError,
)


class MemWriter:
    """A writer that feeds what is written into the peer's StreamReader."""

    def __init__(self, target: asyncio.StreamReader) -> None:
        self.target = target

    def write(self, data: bytes) -> None:
        self.target.feed_data(data)

    async def drain(self) -> None:
        await asyncio.sleep(0)

    def close(self) -> None:
        if not self.target.at_eof():
            self.target.feed_eof()


class Peer:
    """The far end of a transport under test: reads its lines, writes raw ones."""

    def __init__(self) -> None:
        self.from_transport = asyncio.StreamReader()
        self.to_transport = asyncio.StreamReader()

    def transport(self, **options: Any) -> LineTransport:
        return LineTransport(self.to_transport, MemWriter(self.from_transport), **options)

    def send(self, line: str) -> None:
        self.to_transport.feed_data(line.encode())

    def eof(self) -> None:
        self.to_transport.feed_eof()

    async def next(self) -> tuple[str, dict[str, Any]]:
        line = await asyncio.wait_for(self.from_transport.readline(), 10)
        return line.decode().removesuffix("\n"), json.loads(line)


class Drops:
    def __init__(self) -> None:
        self.queue: asyncio.Queue[str] = asyncio.Queue()

    def hook(self, line: bytes, reason: str) -> None:
        self.queue.put_nowait(f"{line!r}: {reason}")

    async def wait(self, want: str) -> None:
        got = await asyncio.wait_for(self.queue.get(), 10)
        assert want in got


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_framing_and_ids() -> None:
    async def main() -> None:
        p = Peer()
        t = p.transport(new_id=sdk.new_request_id)
        t.start(None)
        task = asyncio.ensure_future(t.request("initialize", {"cwd": "/w", "nested": {"a": 1}}))
        line, m = await p.next()
        assert re.fullmatch(r"req_[0-9a-f]{32}", m["id"])
        assert line == '{"jsonrpc":"2.0","id":"%s","method":"initialize","params":{"cwd":"/w","nested":{"a":1}}}' % m["id"]
        p.send('{"jsonrpc":"2.0","id":"%s","result":{"ok":true}}\n' % m["id"])
        assert await task == {"ok": True}
        await t.close()

    run(main())


def test_classification() -> None:
    async def main() -> None:
        p, d = Peer(), Drops()
        t = p.transport(on_dropped=d.hook)
        got: asyncio.Queue[str] = asyncio.Queue()

        async def handler(i: Incoming) -> JsonValue:
            got.put_nowait(f"{i.method} id={i.id} params={i.params}")
            return {"pong": i.method}

        t.start(handler)
        p.send('{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":1}}\n')
        assert await got.get() == "ping id=7 params={'x': 1}"
        assert (await p.next())[0] == '{"jsonrpc":"2.0","id":7,"result":{"pong":"ping"}}'
        p.send('{"jsonrpc":"2.0","method":"tick"}\n')
        assert await got.get() == "tick id=None params=Absent.ABSENT"
        p.send('{"jsonrpc":"2.0","id":"x"}\n')
        await d.wait("neither a request, a notification nor a response")
        await t.close()

    run(main())


def test_malformed_lines_dropped() -> None:
    async def main() -> None:
        p, d = Peer(), Drops()
        t = p.transport(on_dropped=d.hook, new_id=lambda n: n)
        t.start(None)
        for bad in ["not json", "[1,2]", '{"jsonrpc":"2.0","method":5}']:
            p.send(bad + "\n")
            await d.wait("")
        p.send("\n")
        task = asyncio.ensure_future(t.request("m"))
        assert (await p.next())[0] == '{"jsonrpc":"2.0","id":1,"method":"m"}'
        p.send('{"jsonrpc":"2.0","id":1,"result":null}\n')
        assert await task is None
        await t.close()

    run(main())


def test_error_responses() -> None:
    async def main() -> None:
        p = Peer()
        t = p.transport()

        async def handler(i: Incoming) -> JsonValue:
            if i.method == "fail":
                raise RuntimeError("disk on fire")
            if i.method == "custom":
                raise ResponseError(-32000, "busy", {"retry": 1})
            raise MethodNotFoundError(i.method)

        t.start(handler)
        for sent, want in [
            ('{"jsonrpc":"2.0","id":1,"method":"nope"}', '{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: nope"}}'),
            ('{"jsonrpc":"2.0","id":2,"method":"fail"}', '{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"disk on fire"}}'),
            ('{"jsonrpc":"2.0","id":"c","method":"custom"}', '{"jsonrpc":"2.0","id":"c","error":{"code":-32000,"message":"busy","data":{"retry":1}}}'),
        ]:
            p.send(sent + "\n")
            assert (await p.next())[0] == want
        await t.close()
        p2 = Peer()
        t2 = p2.transport()
        t2.start(None)
        p2.send('{"jsonrpc":"2.0","id":9,"method":"x/y"}\n')
        assert (await p2.next())[0] == '{"jsonrpc":"2.0","id":9,"error":{"code":-32601,"message":"method not found: x/y"}}'
        await t2.close()

    run(main())


def test_error_response_to_caller() -> None:
    async def main() -> None:
        p = Peer()
        t = p.transport()
        t.start(None)
        task = asyncio.ensure_future(t.request("m"))
        _, m = await p.next()
        p.send('{"jsonrpc":"2.0","id":"%s","error":{"code":-32603,"message":"bad","data":[1]}}\n' % m["id"])
        with pytest.raises(ResponseError) as e:
            await task
        assert (e.value.code, e.value.message, e.value.data) == (-32603, "bad", [1])
        await t.close()

    run(main())


def test_cancel_removes_pending() -> None:
    async def main() -> None:
        p, d = Peer(), Drops()
        t = p.transport(on_dropped=d.hook)
        t.start(None)
        task = asyncio.ensure_future(t.request("slow"))
        _, m = await p.next()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        p.send('{"jsonrpc":"2.0","id":"%s","result":1}\n' % m["id"])
        await d.wait("which no request is waiting for")
        await t.close()

    run(main())


def test_close_rejects_pending() -> None:
    async def main() -> None:
        p = Peer()
        t = p.transport()
        t.start(None)
        tasks = [asyncio.ensure_future(t.request("m")) for _ in range(5)]
        for _ in tasks:
            await p.next()
        await t.close()
        for task in tasks:
            with pytest.raises(TransportClosedError):
                await task
        with pytest.raises(TransportClosedError):
            await t.request("m")
        with pytest.raises(TransportClosedError):
            await t.notify("n")

    run(main())


def test_line_cap() -> None:
    async def main() -> None:
        p, d = Peer(), Drops()
        t = p.transport(max_line_bytes=4 << 20, on_dropped=d.hook)
        got: asyncio.Queue[int] = asyncio.Queue()

        async def handler(i: Incoming) -> JsonValue:
            got.put_nowait(len(i.params) if isinstance(i.params, str) else -1)
            return None

        t.start(handler)
        big = "x" * (3 << 20)
        p.send('{"jsonrpc":"2.0","method":"a","params":"%s"}\n' % big)
        assert await asyncio.wait_for(got.get(), 10) == len(big)
        p.send('{"jsonrpc":"2.0","method":"b","params":"%s"}\n{"jsonrpc":"2.0","method":"c","params":"ok"}\n' % ("y" * (5 << 20)))
        await d.wait("line longer than 4194304 bytes")
        assert await asyncio.wait_for(got.get(), 10) == 2
        await t.close()

    run(main())


def test_serialized_writes() -> None:
    async def main() -> None:
        p = Peer()
        t = p.transport()
        t.start(None)
        payload = "z" * 10000
        await asyncio.gather(*(t.notify("n", {"i": i, "p": payload}) for i in range(200)))
        seen = set()
        for _ in range(200):
            seen.add((await p.next())[1]["params"]["i"])
        assert len(seen) == 200
        await t.close()

    run(main())


def test_bad_peers() -> None:
    async def main() -> None:
        p, d = Peer(), Drops()
        t = p.transport(on_dropped=d.hook)
        t.start(None)
        p.send("\x00\xff{{{\n")
        await d.wait("not a JSON object")
        p.send('{"jsonrpc":"2.0","id":"req_nobody","result":{}}\n')
        await d.wait('response to id "req_nobody", which no request is waiting for')
        with pytest.raises(asyncio.TimeoutError):
            await t.request("never", timeout=0.05)
        task = asyncio.ensure_future(t.request("m"))
        _, m = await p.next()
        await p.next()  # the request that timed out was written first
        p.send('{"jsonrpc":"2.0","id":"%s","res' % m["id"])
        p.eof()
        await d.wait("unterminated last line")
        with pytest.raises(TransportClosedError):
            await task
        await t.wait_closed()

    run(main())


class StandIn:
    """A test double written against the generated Server Protocol."""

    def __init__(self) -> None:
        self.conn: sdk.ServerConn | None = None

    async def initialize(self, params: types.InitializeParams) -> types.InitializeResult:
        return types.InitializeResult(server_info=types.ServerInfo(name="py-stand-in", version=params.model))

    async def session_prompt(self, params: types.SessionPromptParams) -> types.SessionPromptResult:
        assert self.conn is not None
        ev = types.decode_SessionEvent({"type": "plugin/new-thing", "seq": 0, "time": 1, "data": {"x": 1}})
        await self.conn.session_event(types.SessionEventNotification(session_id=params.session_id, event=ev))
        await self.conn.session_status(types.SessionStatusNotification(session_id=params.session_id, status="idle"))
        await self.conn.transport.notify("vendor/extension", {"n": 1})
        return types.SessionPromptResult(message_id="m-1")

    async def shutdown(self, params: types.ShutdownParams) -> types.ShutdownResult:
        return types.ShutdownResult()


def test_client_and_server_typed() -> None:
    async def main() -> None:
        c2s, s2c = asyncio.StreamReader(), asyncio.StreamReader()
        server = StandIn()
        conn = sdk.ServerConn(LineTransport(c2s, MemWriter(s2c), new_id=sdk.new_request_id))
        server.conn = conn
        serving = asyncio.ensure_future(conn.serve(server))
        client = sdk.Client(LineTransport(s2c, MemWriter(c2s), new_id=sdk.new_request_id))
        seen: list[str] = []
        idle = asyncio.Event()

        async def on_event(n: types.SessionEventNotification) -> None:
            assert isinstance(n.event, types.UnknownSessionEvent)
            seen.append("event " + n.event.tag)

        async def on_status(n: types.SessionStatusNotification) -> None:
            seen.append("status " + n.status)

        async def on_other(method: str, params: JsonValue | object) -> None:
            seen.append("other " + method)
            idle.set()

        client.on_session_event(on_event)
        client.on_session_status(on_status)
        client.on_notification(on_other)
        res = await client.initialize(types.InitializeParams(cwd="/w", provider="p", model="m9"))
        assert (res.server_info.name, res.server_info.version) == ("py-stand-in", "m9")
        pr = await client.session_prompt(types.SessionPromptParams(session_id="s", content_blocks=[types.TextBlock(text="hi")]))
        assert pr.message_id == "m-1"
        await asyncio.wait_for(idle.wait(), 10)
        assert seen == ["event plugin/new-thing", "status idle", "other vendor/extension"]
        with pytest.raises(ResponseError) as e:
            await client.transport.request("no/such")
        assert (e.value.code, e.value.message) == (-32601, "method not found: no/such")
        await client.shutdown()
        await client.close()
        await asyncio.wait_for(serving, 10)

    run(main())


# ------------------------------------------------------------ the real runtime

RR = SHARED / "real-runtime"


@pytest.fixture(scope="module")
def runtime() -> Iterator[dict[str, str]]:
    if os.environ.get("DSHGEN_SKIP_REAL") == "1":
        pytest.skip("DSHGEN_SKIP_REAL=1: real-runtime test skipped")
    out = subprocess.run([str(RR / "install.sh")], check=True, capture_output=True, text=True).stdout
    env = dict(os.environ)
    for line in out.splitlines():
        k, _, v = line.partition("=")
        if k in ("DSH_NODE", "DSH_RT_DIR"):
            env[k] = v
    llm = subprocess.Popen([str(RR / "start-fake-llm.sh")], stdout=subprocess.PIPE, env=env, text=True)
    try:
        assert llm.stdout is not None
        env["FAKE_LLM_PORT"] = llm.stdout.readline().strip()
        yield env
    finally:
        llm.terminate()
        llm.wait()


def fixture_turn(scenario: str, session: str, key: str) -> tuple[str, str]:
    summary = json.loads((FIXTURES / "real-captures" / "driver-summary.json").read_text())
    events = []
    for line in (FIXTURES / "real-captures" / scenario / "server-to-client.jsonl").read_text().splitlines():
        f = json.loads(line)
        if f.get("method") == "session.event" and f["params"]["sessionId"] == session:
            events.append(f["params"]["event"])
    return summary[scenario]["observed"][key], finish_reason(events)


def final_text(events: list[dict[str, Any]]) -> str:
    for ev in reversed(events):
        if ev["type"] == "assistant/message":
            return "".join(b["text"] for b in ev["data"]["message"]["content"] if b["type"] == "text")
    return ""


def finish_reason(events: list[dict[str, Any]]) -> str:
    for ev in reversed(events):
        chunk = ev.get("data", {}).get("chunk", {}) if isinstance(ev.get("data"), dict) else {}
        if ev["type"] == "assistant/chunk" and chunk.get("type") == "finish":
            return str(chunk["reason"]["kind"])
    return ""


class Turns:
    """Every notification in order, as the published client's subscription."""

    def __init__(self, client: sdk.Client) -> None:
        self.log: list[tuple[str, str, Any]] = []
        self.changed = asyncio.Condition()

        async def add(item: tuple[str, str, Any]) -> None:
            async with self.changed:
                self.log.append(item)
                self.changed.notify_all()

        async def on_event(n: types.SessionEventNotification) -> None:
            await add(("session.event", n.session_id, n.event.to_json()))

        async def on_status(n: types.SessionStatusNotification) -> None:
            await add(("session.status", n.session_id, n.status))

        async def on_started(n: types.SubagentStartedNotification) -> None:
            await add(("subagent.started", "", None))

        async def on_finished(n: types.SubagentFinishedNotification) -> None:
            await add(("subagent.finished", "", None))

        client.on_session_event(on_event)
        client.on_session_status(on_status)
        client.on_subagent_started(on_started)
        client.on_subagent_finished(on_finished)
        self.client = client

    async def run(self, session: str, text: str) -> tuple[str, str, set[str]]:
        start = len(self.log)
        res = await self.client.session_prompt(
            types.SessionPromptParams(session_id=session, content_blocks=[types.TextBlock(text=text)]), timeout=30
        )
        events: list[dict[str, Any]] = []
        methods: set[str] = set()
        received = False
        i = start
        while True:
            async with self.changed:
                n = i
                await asyncio.wait_for(self.changed.wait_for(lambda: n < len(self.log)), 30)
                method, sid, value = self.log[i]
            i += 1
            if not received:
                if not (method == "session.event" and sid == session and value["type"] == "agent/inbox/spliced"
                        and any(m.get("id") == res.message_id for m in value["data"]["inserted"])):
                    continue
                received = True
            methods.add(method)
            if method == "session.event" and sid == session:
                events.append(value)
            if method == "session.status" and sid == session and value == "idle":
                return final_text(events), finish_reason(events), methods


async def open_client(env: dict[str, str], scenario: str, tmp: pathlib.Path) -> tuple[sdk.Client, str]:
    work = str(tmp / scenario)
    client = await sdk.Client.spawn(str(RR / "start-runtime.sh"), env={**env, "DSH_CWD": work})
    return client, work


async def finish(client: sdk.Client) -> None:
    try:
        await client.shutdown(timeout=10)
    except TransportClosedError:
        pass
    await client.close()


@pytest.mark.parametrize(
    ("scenario", "session", "prompt"),
    [
        ("text-turn", "text-1", "Say hello."),
        ("bash-tool", "bash-1", "Run a command for me. [[BASH]]"),
        ("subagent", "sub-1", "Delegate this to a helper. [[SUBAGENT]]"),
    ],
)
def test_real_runtime_turn(runtime: dict[str, str], tmp_path: pathlib.Path, scenario: str, session: str, prompt: str) -> None:
    async def main() -> None:
        client, work = await open_client(runtime, scenario, tmp_path)
        try:
            turns = Turns(client)
            await client.initialize(types.InitializeParams(cwd=work, provider="deepseek-official", model="deepseek-v4-flash"))
            text, finish_kind, methods = await turns.run(session, prompt)
            assert (text, finish_kind) == fixture_turn(scenario, session, "finalResponse")
            if scenario == "subagent":
                assert {"subagent.started", "subagent.finished"} <= methods
        finally:
            await finish(client)

    run(main())


def test_real_runtime_parallel_sessions(runtime: dict[str, str], tmp_path: pathlib.Path) -> None:
    async def main() -> None:
        client, work = await open_client(runtime, "parallel-sessions", tmp_path)
        try:
            turns = Turns(client)
            await client.initialize(types.InitializeParams(cwd=work, provider="deepseek-official", model="deepseek-v4-flash"))
            a, b = await asyncio.gather(
                turns.run("par-a", "First session, slow answer. [[SLOW:800]]"),
                turns.run("par-b", "Second session, use a tool. [[BASH]]"),
            )
            assert a[:2] == fixture_turn("parallel-sessions", "par-a", "a")
            assert b[:2] == fixture_turn("parallel-sessions", "par-b", "b")
        finally:
            await finish(client)

    run(main())


def test_real_runtime_errors(runtime: dict[str, str], tmp_path: pathlib.Path) -> None:
    async def main() -> None:
        client, work = await open_client(runtime, "unknown-method", tmp_path)
        try:
            for bad in [0, -1, 1.5, "10"]:
                with pytest.raises(ResponseError) as e:
                    await client.transport.request(
                        "initialize", {"cwd": work, "provider": "deepseek-official", "model": "deepseek-v4-flash", "maxTokens": bad}
                    )
                assert (e.value.code, e.value.message) == (-32603, "initialize maxTokens must be a positive safe integer")
            res = await client.initialize(
                types.InitializeParams(cwd=work, provider="deepseek-official", model="deepseek-v4-flash", max_tokens=64)
            )
            assert (res.server_info.name, res.server_info.version) == ("deepseek-harness-sdk-runtime", "0.0.1")
            for method, params in [("session/cancel", {"sessionId": "x"}), ("no/such/method", ABSENT)]:
                with pytest.raises(ResponseError) as e:
                    await client.transport.request(method, params)
                assert (e.value.code, e.value.message) == (-32603, "unknown DeepSeek Harness SDK runtime method: " + method)
        finally:
            await finish(client)

    run(main())


def test_real_runtime_sync_client(runtime: dict[str, str], tmp_path: pathlib.Path) -> None:
    work = str(tmp_path / "sync")
    c = sdk.SyncClient.spawn(str(RR / "start-runtime.sh"), env={**runtime, "DSH_CWD": work})
    try:
        res = c.initialize(types.InitializeParams(cwd=work, provider="deepseek-official", model="deepseek-v4-flash"))
        assert res.server_info.name == "deepseek-harness-sdk-runtime"
        assert c.session_prompt(
            types.SessionPromptParams(session_id="sync-1", content_blocks=[types.TextBlock(text="Say hello.")])
        ).message_id
        c.shutdown(timeout=10)
    finally:
        c.close()

