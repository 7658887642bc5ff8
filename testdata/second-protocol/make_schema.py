#!/usr/bin/env python3
"""Writes mcp.schema.json: a subset of the Model Context Protocol (MCP,
revision 2025-06-18, https://modelcontextprotocol.io/specification/2025-06-18)
in dshgen's schema format. Run from the repository root:

    python3 testdata/second-protocol/make_schema.py

Type and member names follow MCP's schema.ts. Decisions a dshgen schema must
make that MCP leaves open are written into the descriptions."""
import json

S = "https://json-schema.org/draft/2020-12/schema"
STR = {"type": "string"}
INT = {"type": "integer"}
NUM = {"type": "number"}
BOOL = {"type": "boolean"}
META = {"type": "object", "description": "Reserved by MCP for protocol-level metadata (_meta); open."}


def ref(n):
    return {"$ref": "#/$defs/" + n}


def obj(props, required=(), desc=None, closed=False, **kw):
    o = {"type": "object"}
    if desc:
        o["description"] = desc
    o["properties"] = props
    if required:
        o["required"] = list(required)
    if closed:
        o["additionalProperties"] = False
    o.update(kw)
    return o


def arr(items, **kw):
    return dict({"type": "array", "items": items}, **kw)


def with_meta(props):
    p = {"_meta": META}
    p.update(props)
    return p


unit = {"type": "number", "minimum": 0, "maximum": 1}
defs = {
    "JsonValue": {"description": "Any JSON value.", "anyOf": [
        {"type": "null"}, BOOL, NUM, STR, arr(ref("JsonValue")), {"type": "object", "additionalProperties": ref("JsonValue")}]},
    "RequestId": {"description": "A JSON-RPC request id: MCP allows a string or a number (never null). dshgen's validator checks ids itself (a string or an integer).",
                  "oneOf": [STR, INT]},
    "JsonRpcError": obj({"code": INT, "message": STR, "data": ref("JsonValue")}, ["code", "message"],
                        "The error object of a JSON-RPC error response (MCP: JSONRPCError.error). dshgen's validator checks error objects against the $defs entry of this name."),
    "ProgressToken": {"description": "A progress token: a string or an integer.", "oneOf": [STR, INT]},
    "Cursor": dict(STR, description="An opaque pagination cursor."),
    "Role": {"type": "string", "enum": ["user", "assistant"], "description": "The sender or recipient of messages and data."},
    "LoggingLevel": {"type": "string", "enum": ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"],
                     "description": "Syslog severities (RFC 5424)."},
    "Implementation": obj(with_meta({"name": STR, "title": STR, "version": STR}), ["name", "version"],
                          "Name and version of an MCP implementation (clientInfo, serverInfo)."),
    "ClientCapabilities": obj({
        "experimental": {"type": "object", "additionalProperties": {"type": "object"}},
        "roots": obj({"listChanged": BOOL}, desc="Present if the client supports listing roots."),
        "sampling": {"type": "object", "description": "Present if the client supports sampling from an LLM."},
        "elicitation": {"type": "object", "description": "Present if the client supports elicitation from the server."},
    }, desc="Capabilities a client may support; open: new capabilities are kept."),
    "ServerCapabilities": obj({
        "experimental": {"type": "object", "additionalProperties": {"type": "object"}},
        "logging": {"type": "object"},
        "completions": {"type": "object"},
        "prompts": obj({"listChanged": BOOL}),
        "resources": obj({"subscribe": BOOL, "listChanged": BOOL}),
        "tools": obj({"listChanged": BOOL}),
    }, desc="Capabilities a server may support; open."),
    "InitializeRequestParams": obj(with_meta({"protocolVersion": STR, "capabilities": ref("ClientCapabilities"), "clientInfo": ref("Implementation")}),
                                   ["protocolVersion", "capabilities", "clientInfo"]),
    "InitializeResult": obj(with_meta({"protocolVersion": STR, "capabilities": ref("ServerCapabilities"), "serverInfo": ref("Implementation"), "instructions": STR}),
                            ["protocolVersion", "capabilities", "serverInfo"]),
    "RequestParams": obj({"_meta": obj({"progressToken": ref("ProgressToken")}, desc="_meta of a request: may carry a progress token.")},
                         desc="Params of a request that has no others (ping, roots/list)."),
    "NotificationParams": obj(with_meta({}), desc="Params of a notification that has no others."),
    "PaginatedRequestParams": obj({"_meta": obj({"progressToken": ref("ProgressToken")}), "cursor": ref("Cursor")}),
    "EmptyResult": obj(with_meta({}), desc="A result that carries nothing (ping, logging/setLevel)."),
    "Annotations": obj({"audience": arr(ref("Role")), "priority": unit, "lastModified": dict(STR, format="date-time")},
                       desc="Hints about how a client uses or displays an object."),
    "TextContent": obj(with_meta({"type": {"const": "text"}, "text": STR, "annotations": ref("Annotations")}), ["type", "text"]),
    "ImageContent": obj(with_meta({"type": {"const": "image"}, "data": dict(STR, contentEncoding="base64"), "mimeType": STR, "annotations": ref("Annotations")}),
                        ["type", "data", "mimeType"]),
    "AudioContent": obj(with_meta({"type": {"const": "audio"}, "data": dict(STR, contentEncoding="base64"), "mimeType": STR, "annotations": ref("Annotations")}),
                        ["type", "data", "mimeType"]),
    "ResourceLink": obj(with_meta({"type": {"const": "resource_link"}, "uri": dict(STR, format="uri"), "name": STR, "title": STR,
                                   "description": STR, "mimeType": STR, "size": INT, "annotations": ref("Annotations")}),
                        ["type", "uri", "name"]),
    "EmbeddedResource": obj(with_meta({"type": {"const": "resource"}, "resource": ref("ResourceContents"), "annotations": ref("Annotations")}),
                            ["type", "resource"]),
    "ContentBlock": {"description": "A content block, tagged by type. Closed: an unknown type is an error on the wire (the bindings still keep it).",
                     "oneOf": [ref("TextContent"), ref("ImageContent"), ref("AudioContent"), ref("ResourceLink"), ref("EmbeddedResource")]},
    "SamplingContent": {"description": "The content of a sampling message: text, image or audio, tagged by type.",
                        "oneOf": [ref("TextContent"), ref("ImageContent"), ref("AudioContent")]},
    "TextResourceContents": obj(with_meta({"uri": dict(STR, format="uri"), "mimeType": STR, "text": STR}), ["uri", "text"],
                                "Text contents of a resource. Closed here (MCP leaves it open) so that text and blob contents are told apart by shape.", closed=True),
    "BlobResourceContents": obj(with_meta({"uri": dict(STR, format="uri"), "mimeType": STR, "blob": dict(STR, contentEncoding="base64")}), ["uri", "blob"],
                                "Binary contents of a resource, base64. Closed here, as TextResourceContents.", closed=True),
    "ResourceContents": {"description": "Resource contents: text or blob, told apart by shape (the member text or blob).",
                         "oneOf": [ref("TextResourceContents"), ref("BlobResourceContents")]},
    "ToolAnnotations": obj({"title": STR, "readOnlyHint": BOOL, "destructiveHint": BOOL, "idempotentHint": BOOL, "openWorldHint": BOOL}),
    "Tool": obj(with_meta({"name": STR, "title": STR, "description": STR,
                           "inputSchema": obj({"type": {"const": "object"}, "properties": {"type": "object", "additionalProperties": {"type": "object"}},
                                               "required": arr(STR)}, ["type"], "A JSON Schema object for the tool's arguments."),
                           "outputSchema": obj({"type": {"const": "object"}, "properties": {"type": "object", "additionalProperties": {"type": "object"}},
                                                "required": arr(STR)}, ["type"]),
                           "annotations": ref("ToolAnnotations")}), ["name", "inputSchema"]),
    "ListToolsResult": obj(with_meta({"nextCursor": ref("Cursor"), "tools": arr(ref("Tool"))}), ["tools"]),
    "CallToolRequestParams": obj(with_meta({"name": STR, "arguments": {"type": "object", "additionalProperties": ref("JsonValue")}}), ["name"]),
    "CallToolResult": obj(with_meta({"content": arr(ref("ContentBlock")), "structuredContent": {"type": "object", "additionalProperties": ref("JsonValue")},
                                     "isError": BOOL}), ["content"]),
    "Resource": obj(with_meta({"uri": dict(STR, format="uri"), "name": STR, "title": STR, "description": STR, "mimeType": STR,
                               "size": INT, "annotations": ref("Annotations")}), ["uri", "name"]),
    "ListResourcesResult": obj(with_meta({"nextCursor": ref("Cursor"), "resources": arr(ref("Resource"))}), ["resources"]),
    "ReadResourceRequestParams": obj(with_meta({"uri": dict(STR, format="uri")}), ["uri"]),
    "ReadResourceResult": obj(with_meta({"contents": arr(ref("ResourceContents"))}), ["contents"]),
    "PromptArgument": obj({"name": STR, "title": STR, "description": STR, "required": BOOL}, ["name"]),
    "Prompt": obj(with_meta({"name": STR, "title": STR, "description": STR, "arguments": arr(ref("PromptArgument"))}), ["name"]),
    "ListPromptsResult": obj(with_meta({"nextCursor": ref("Cursor"), "prompts": arr(ref("Prompt"))}), ["prompts"]),
    "GetPromptRequestParams": obj(with_meta({"name": STR, "arguments": {"type": "object", "additionalProperties": STR}}), ["name"]),
    "PromptMessage": obj({"role": ref("Role"), "content": ref("ContentBlock")}, ["role", "content"]),
    "GetPromptResult": obj(with_meta({"description": STR, "messages": arr(ref("PromptMessage"))}), ["messages"]),
    "SetLevelRequestParams": obj(with_meta({"level": ref("LoggingLevel")}), ["level"]),
    "ModelHint": obj({"name": STR}),
    "ModelPreferences": obj({"hints": arr(ref("ModelHint")), "costPriority": unit, "speedPriority": unit, "intelligencePriority": unit}),
    "SamplingMessage": obj({"role": ref("Role"), "content": ref("SamplingContent")}, ["role", "content"]),
    "CreateMessageRequestParams": obj(with_meta({
        "messages": arr(ref("SamplingMessage")), "modelPreferences": ref("ModelPreferences"), "systemPrompt": STR,
        "includeContext": {"type": "string", "enum": ["none", "thisServer", "allServers"]},
        "temperature": NUM, "maxTokens": INT, "stopSequences": arr(STR), "metadata": {"type": "object"}}), ["messages", "maxTokens"]),
    "CreateMessageResult": obj(with_meta({"role": ref("Role"), "content": ref("SamplingContent"), "model": STR, "stopReason": STR}),
                               ["role", "content", "model"]),
    "Root": obj(with_meta({"uri": dict(STR, format="uri", pattern="^file://"), "name": STR}), ["uri"]),
    "ListRootsResult": obj(with_meta({"roots": arr(ref("Root"))}), ["roots"]),
    "ProgressNotificationParams": obj(with_meta({"progressToken": ref("ProgressToken"), "progress": NUM, "total": NUM, "message": STR}),
                                      ["progressToken", "progress"]),
    "LoggingMessageNotificationParams": obj(with_meta({"level": ref("LoggingLevel"), "logger": STR, "data": ref("JsonValue")}), ["level", "data"]),
    "CancelledNotificationParams": obj(with_meta({"requestId": ref("RequestId"), "reason": STR}), ["requestId"]),
}


def req(direction, params, result, desc, optional=False):
    e = {"kind": "request", "direction": direction, "params": ref(params), "result": ref(result), "description": desc}
    if optional:
        e["paramsOptional"] = True
    return e


def note(direction, params, desc, optional=False):
    e = {"kind": "notification", "direction": direction, "params": ref(params), "description": desc}
    if optional:
        e["paramsOptional"] = True
    return e


C, SV = "client-to-server", "server-to-client"
methods = {
    "initialize": req(C, "InitializeRequestParams", "InitializeResult", "First request of a session: protocol version and capabilities."),
    "ping": req(C, "RequestParams", "EmptyResult", "Liveness check. MCP lets either side send it; dshgen's x-methods has one direction per method, so this schema describes the client's ping.", True),
    "tools/list": req(C, "PaginatedRequestParams", "ListToolsResult", "List the server's tools.", True),
    "tools/call": req(C, "CallToolRequestParams", "CallToolResult", "Call a tool."),
    "resources/list": req(C, "PaginatedRequestParams", "ListResourcesResult", "List the server's resources.", True),
    "resources/read": req(C, "ReadResourceRequestParams", "ReadResourceResult", "Read a resource."),
    "prompts/list": req(C, "PaginatedRequestParams", "ListPromptsResult", "List the server's prompts.", True),
    "prompts/get": req(C, "GetPromptRequestParams", "GetPromptResult", "Get a prompt, filled in with arguments."),
    "logging/setLevel": req(C, "SetLevelRequestParams", "EmptyResult", "Set the minimum level of notifications/message the server sends."),
    "sampling/createMessage": req(SV, "CreateMessageRequestParams", "CreateMessageResult", "The server asks the client to sample an LLM."),
    "roots/list": req(SV, "RequestParams", "ListRootsResult", "The server asks the client for its roots.", True),
    "notifications/initialized": note(C, "NotificationParams", "The client is ready, after the initialize response.", True),
    "notifications/progress": note(SV, "ProgressNotificationParams", "Progress of a long request. MCP lets either side send it; described here for the server."),
    "notifications/message": note(SV, "LoggingMessageNotificationParams", "A log message from the server."),
    "notifications/tools/list_changed": note(SV, "NotificationParams", "The server's tool list changed.", True),
    "notifications/cancelled": note(C, "CancelledNotificationParams", "Cancel a request in flight. MCP lets either side send it; described here for the client."),
}

doc = {
    "$schema": S,
    "$id": "urn:dshgen:testdata:second-protocol:mcp",
    "title": "ModelContextProtocol",
    "description": "A subset of the Model Context Protocol (revision 2025-06-18): lifecycle, tools, resources, prompts, logging, sampling and roots, over JSON-RPC 2.0. The second protocol of dshgen's tests.",
    "x-dshgen-rules": ["initialize-first"],
    "x-methods": methods,
    "$defs": defs,
}
with open("testdata/second-protocol/mcp.schema.json", "w") as f:
    json.dump(doc, f, indent=2)
    f.write("\n")
