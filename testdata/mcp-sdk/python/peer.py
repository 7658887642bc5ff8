"""An MCP 2025-11-25 server (``peer.py server``, on stdio) and client
(``peer.py client CMD ARGS...``, spawning the server command) written against
the Python SDK dshgen generates from the published schema (package ``mcp`` on
PYTHONPATH). The client prints the transcript of what it got as JSON lines
(see testdata/mcp-sdk/README.md); gen/emit's TestMCPSDKPeers runs every pair.
"""

from __future__ import annotations

import asyncio
import json
import sys

from mcp import types as t
from mcp.codec import Absent, JsonValue
from mcp.sdk import Client, ServerConn, UnimplementedServer
from mcp.transport import ResponseError, TransportClosedError

# ---- server ----


class PeerServer(UnimplementedServer):
    """The MCP server: one tool, "summarize", which asks the client's model
    (sampling/createMessage) and roots (roots/list), pings the client, tries
    a method the client does not serve, and reports progress between. The
    requests it does not implement are answered -32601 (UnimplementedServer)."""

    def __init__(self, conn: ServerConn) -> None:
        self.conn = conn
        self.initialized = asyncio.Event()
        self.client = ""

    async def initialize(self, params: t.InitializeRequestParams) -> t.InitializeResult:
        self.client = params.client_info.name
        return t.InitializeResult(
            protocol_version=params.protocol_version,
            server_info=t.Implementation(name="mcp-peer-server", version="1.0.0"),
            capabilities=t.ServerCapabilities(tools=t.ServerCapabilitiesTools(list_changed=False)),
        )

    async def notifications_initialized(self, params: t.NotificationParams) -> None:
        self.initialized.set()

    async def ping(self, params: t.RequestParams) -> t.EmptyResult:
        return t.EmptyResult()

    async def tools_list(self, params: t.PaginatedRequestParams) -> t.ListToolsResult:
        return t.ListToolsResult(
            tools=[
                t.Tool(
                    name="summarize",
                    description="Summarizes text with the client's model.",
                    input_schema=t.ToolInputSchema(properties={"text": {"type": "string"}}, required=["text"]),
                )
            ]
        )

    async def tools_call(self, params: t.CallToolRequestParams) -> t.CallToolResult:
        if params.name != "summarize":
            raise ResponseError(-32602, "unknown tool: " + params.name, {"tool": params.name})
        await self.initialized.wait()
        text = (params.arguments or {}).get("text")
        if not isinstance(text, str):
            raise ResponseError(-32602, "summarize: text must be a string")
        token = params.meta.progress_token if params.meta is not None else None

        async def progress(n: int, message: str) -> None:
            if token is not None:
                await self.conn.notifications_progress(
                    t.ProgressNotificationParams(progress_token=token, progress=n, total=3, message=message)
                )

        await progress(1, "sampling")
        sample = await self.conn.sampling_create_message(
            t.CreateMessageRequestParams(
                messages=[t.SamplingMessage(role="user", content=t.TextContent(text="Summarize: " + text))],
                max_tokens=64,
                system_prompt="Answer in one line.",
            )
        )
        # The request asks for no task, so the answer is the union's
        # CreateMessageResult branch.
        if not isinstance(sample, t.CreateMessageResult):
            raise TypeError(f"sampling/createMessage answered {type(sample).__name__}, want CreateMessageResult")
        if not isinstance(sample.content, t.TextContent):
            raise TypeError(f"sampling/createMessage: content is {type(sample.content).__name__}, want text")
        answer = sample.content.text
        await progress(2, "roots")
        roots = await self.conn.roots_list()
        await self.conn.ping()
        try:
            await self.conn.transport.request("peer/unknown")
        except ResponseError as e:
            unknown = e
        else:
            raise RuntimeError("peer/unknown: got a result, want an error response")
        await progress(3, "done")
        return t.CallToolResult(
            content=[t.TextContent(text=answer)],
            structured_content={
                "summary": answer,
                "model": sample.model,
                "stopReason": sample.stop_reason,
                "roots": [r.uri for r in roots.roots],
                "client": self.client,
                "unknownMethod": {"code": unknown.code, "message": unknown.message},
            },
            is_error=False,
        )


async def serve() -> None:
    conn = await ServerConn.stdio()
    await conn.serve(PeerServer(conn))


# ---- client ----


def transcript(line: dict[str, object]) -> None:
    """Print one JSON line of the transcript."""
    print(json.dumps(line), flush=True)


def error_line(step: str, e: BaseException) -> dict[str, object]:
    """The transcript form of an error response."""
    if not isinstance(e, ResponseError):
        return {"step": step, "notAResponseError": repr(e)}
    err: dict[str, object] = {"code": e.code, "message": e.message}
    if not isinstance(e.data, Absent):
        err["data"] = e.data
    return {"step": step, "error": err}


async def call_tool(client: Client, tool: str, arguments: dict[str, JsonValue]) -> t.CallToolResult:
    """The one use of tools/call's result: call tool with arguments (progress
    token "call-1") and return the result, which must be the CallToolResult
    branch of the result union (the request asks for no task)."""
    res = await client.tools_call(
        t.CallToolRequestParams(name=tool, arguments=arguments, meta=t.CallToolRequestParamsMeta(progress_token="call-1"))
    )
    if not isinstance(res, t.CallToolResult):
        raise TypeError(f"tools/call answered {type(res).__name__}, want CallToolResult")
    return res


async def run_client(argv: list[str]) -> None:
    served: list[dict[str, object]] = []
    progress: asyncio.Queue[t.ProgressNotificationParams] = asyncio.Queue()
    dropped: list[str] = []
    client = await Client.spawn(*argv, on_dropped=lambda line, reason: dropped.append(reason))

    def dropped_line() -> None:
        """Report the lines the transport did not deliver, if any."""
        if dropped:
            transcript({"step": "dropped", "lines": len(dropped)})

    async def sampling(p: t.CreateMessageRequestParams) -> t.CreateMessageResult:
        served.append({"step": "served", "method": "sampling/createMessage", "params": p.to_json()})
        asked = p.messages[0].content.text if p.messages and isinstance(p.messages[0].content, t.TextContent) else ""
        return t.CreateMessageResult(
            role="assistant",
            content=t.TextContent(text=f"{p.max_tokens} tokens at most: {asked}"),
            model="peer-model",
            stop_reason="endTurn",
        )

    async def roots(p: t.RequestParams) -> t.ListRootsResult:
        served.append({"step": "served", "method": "roots/list"})
        return t.ListRootsResult(roots=[t.Root(uri="file:///tmp/peer-root", name="peer-root")])

    async def ping(p: t.RequestParams) -> t.EmptyResult:
        served.append({"step": "served", "method": "ping"})
        return t.EmptyResult()

    async def on_progress(p: t.ProgressNotificationParams) -> None:
        await progress.put(p)

    client.on_sampling_create_message(sampling)
    client.on_roots_list(roots)
    client.on_ping(ping)
    client.on_notifications_progress(on_progress)
    try:
        try:
            init = await client.initialize(
                t.InitializeRequestParams(
                    protocol_version="2025-11-25",
                    client_info=t.Implementation(name="mcp-peer-client", version="1.0.0"),
                    capabilities=t.ClientCapabilities(roots=t.ClientCapabilitiesRoots(), sampling=t.ClientCapabilitiesSampling()),
                ),
                timeout=30,
            )
        except TransportClosedError:
            dropped_line()
            transcript({"step": "initialize", "error": "transport closed"})
            return
        transcript({"step": "initialize", "result": init.to_json()})
        await client.notifications_initialized()
        transcript({"step": "ping", "result": (await client.ping(timeout=30)).to_json()})
        transcript({"step": "tools/list", "result": (await client.tools_list(timeout=30)).to_json()})
        res = await call_tool(client, "summarize", {"text": "the quick brown fox"})
        for s in served:
            transcript(s)
        for _ in range(3):
            p = await asyncio.wait_for(progress.get(), 30)
            transcript({"step": "progress", "params": p.to_json()})
        transcript({"step": "tools/call", "result": res.to_json()})
        try:
            await call_tool(client, "nope", {})
        except Exception as e:  # noqa: BLE001 (the transcript says what it was)
            transcript(error_line("tools/call nope", e))
        try:
            await client.transport.request("peer/unknown", timeout=30)
        except Exception as e:  # noqa: BLE001
            transcript(error_line("peer/unknown", e))
        dropped_line()
    finally:
        await client.close()


def main() -> None:
    if sys.argv[1:2] == ["server"]:
        asyncio.run(serve())
    elif sys.argv[1:2] == ["client"] and len(sys.argv) > 2:
        asyncio.run(run_client(sys.argv[2:]))
    else:
        sys.exit("usage: peer.py server | peer.py client CMD [ARG...]")


if __name__ == "__main__":
    main()
