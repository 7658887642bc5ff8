"""A toy KV server speaking kv.schema.json on stdio (for the README's tap example)."""
import json
import sys

store = {"greeting": "hello"}
for line in sys.stdin:
    req = json.loads(line)
    if req.get("method") == "kv/get":
        value = store.get(req["params"]["key"])
        print(json.dumps({"jsonrpc": "2.0", "id": req["id"], "result": {"value": value}}), flush=True)
        print(json.dumps({"jsonrpc": "2.0", "method": "kv/changed",
                          "params": {"op": "put", "key": "seen", "value": req["params"]["key"]}}), flush=True)
    elif "id" in req:
        print(json.dumps({"jsonrpc": "2.0", "id": req["id"],
                          "error": {"code": -32601, "message": "method not found"}}), flush=True)
