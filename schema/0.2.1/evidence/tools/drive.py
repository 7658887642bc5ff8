"""Drive the PyPI runtime (deepseek-harness-runtime-bin 0.2.1rc2) with the PyPI SDK's own client
(deepseek-harness-sdk 0.2.1rc2), one scenario per call, every runtime process behind `dshgen tap`.

    python drive.py SCENARIO OUT_DIR LLM_PORT

Writes OUT_DIR/SCENARIO[-N].log (the tap's interleaved capture, one per runtime process) and
OUT_DIR/SCENARIO.observed.json (what the SDK surfaced: results and errors; not wire data).
Env: DSHGEN (dshgen binary), RT (runtime executable), WORK (scratch dir, its paths end up in frames).
"""
import base64, json, os, struct, sys, threading, time, zlib

from deepseek_harness import DeepSeekHarness, DeepSeekHarnessConfig
from deepseek_harness.client import _EmptyResponse, _WorkingDirectoryResponse
from deepseek_harness.errors import JsonRpcError

scenario, out, port = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
work = os.path.abspath(os.environ.get("WORK", os.path.join(out, "work")))
os.makedirs(out, exist_ok=True)
observed = {"scenario": scenario, "steps": []}
proc_no = [0]


def note(step, **kw):
    kw["step"] = step
    observed["steps"].append(kw)


def wrapper():
    path = os.path.join(out, "tap-rt.sh")
    with open(path, "w") as f:
        f.write('#!/bin/bash\nexec "$DSHGEN" tap --no-validate --capture "$TAP_CAPTURE" -- "$RT" "$@"\n')
    os.chmod(path, 0o755)
    return path


def harness(home="home", **over):
    proc_no[0] += 1
    cap = os.path.join(out, scenario + ("" if proc_no[0] == 1 else f"-{proc_no[0]}") + ".log")
    wd = os.path.join(work, scenario)
    os.makedirs(wd + "/h", exist_ok=True)
    cfg = dict(cwd=wd, dsh_bin=wrapper(), dsh_home=os.path.join(work, scenario + "-" + home),
               base_url="http://127.0.0.1:" + port, api_key="sk-test",
               env={"HOME": wd + "/h", "TAP_CAPTURE": cap, "DSHGEN": os.environ["DSHGEN"], "RT": os.environ["RT"]},
               request_timeout_seconds=180, shutdown_timeout_seconds=10, initialize_timeout_seconds=180)
    cfg.update(over)
    return DeepSeekHarness(DeepSeekHarnessConfig(**cfg))


def summary(r):
    return {"final_response": r.final_response, "finish_reason": r.finish_reason,
            "event_types": sorted({e.get("type") for e in r.events}),
            "methods": sorted({n.method for n in r.notifications})}


def err(e):
    if isinstance(e, JsonRpcError):
        return {"code": e.code, "message": e.message.split("\n")[0], "data": e.data}
    return {"exception": type(e).__name__, "message": str(e).split("\n")[0]}


def attempt(step, fn):
    try:
        res = fn()
        note(step, ok=True, result=res)
        return res
    except Exception as e:  # noqa: BLE001 - the point is to record what the SDK raised
        note(step, ok=False, error=err(e))
        return None


def raw(h, method, params, model=_EmptyResponse):
    r = h.client.request(method, params, response_model=model)
    return r.model_dump()


def png_2x2():
    def chunk(t, d):
        c = struct.pack(">I", len(d)) + t + d
        return c + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
    rows = b"".join(b"\x00" + b"\xff\x00\x00" * 2 for _ in range(2))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def wait_idle(h, sid, timeout=60):
    """Block until session.status idle for sid arrives on a fresh subscription."""
    with h.client.subscribe_session_notifications(sid) as sub:
        end = time.time() + timeout
        while time.time() < end:
            n = sub.next()
            if n.method == "session.status" and n.payload.get("sessionId") == sid and n.payload.get("status") == "idle":
                return True
    return False


if scenario == "text-turn":
    with harness() as h:
        attempt("run", lambda: summary(h.run("Say hello.", session_id="s-text")))

elif scenario == "bash-tool":
    with harness() as h:
        attempt("run", lambda: summary(h.run("[bash] Print the proof word.", session_id="s-bash")))

elif scenario == "fs-tools":
    with harness() as h:
        s = h.start_session("s-fs")
        attempt("write", lambda: summary(s.run("[write] Write notes.txt.")))
        attempt("read", lambda: summary(s.run("[read] Read notes.txt.")))
        attempt("unknown-tool", lambda: summary(s.run("[badtool] Call a tool that is not there.")))

elif scenario == "parallel":
    with harness() as h:
        res = {}
        def one(sid):
            res[sid] = summary(h.run("Say hello from " + sid + ".", session_id=sid))
        ts = [threading.Thread(target=one, args=(sid,)) for sid in ("s-par-a", "s-par-b")]
        [t.start() for t in ts]
        [t.join(120) for t in ts]
        note("both", ok=len(res) == 2, result=res)

elif scenario == "wait":
    with harness() as h:
        h.start()
        mid = attempt("prompt", lambda: h.client.session_prompt("s-wait", [{"type": "text", "text": "[slow] Say hello slowly."}]))
        attempt("wait-running", lambda: raw(h, "session/wait", {"sessionId": "s-wait"}))
        attempt("wait-idle", lambda: raw(h, "session/wait", {"sessionId": "s-wait"}))
        attempt("wait-unknown-session", lambda: raw(h, "session/wait", {"sessionId": "s-never-seen"}))
        attempt("wait-no-sessionId", lambda: raw(h, "session/wait", {}))
        attempt("wait-after-error", lambda: (h.client.session_prompt("s-wait", [{"type": "text", "text": "[err400] fail please"}]),
                                             raw(h, "session/wait", {"sessionId": "s-wait"}))[1])

elif scenario == "working-directory":
    with harness() as h:
        h.start()
        base = os.path.join(work, scenario)
        os.makedirs(base + "/sub/deeper", exist_ok=True)
        s = h.start_session("s-wd")
        attempt("get-new-session", lambda: s.get_working_directory())
        attempt("set-relative", lambda: s.set_working_directory("sub"))
        attempt("set-absolute", lambda: s.set_working_directory(base + "/sub/deeper"))
        attempt("set-missing", lambda: s.set_working_directory(base + "/no/such/dir"))
        open(base + "/plain-file.txt", "w").write("not a directory\n")
        attempt("set-file", lambda: s.set_working_directory(base + "/plain-file.txt"))
        attempt("get", lambda: s.get_working_directory())
        attempt("run-after-set", lambda: summary(s.run("[wd] Where am I?")))
        attempt("set-no-path", lambda: raw(h, "session/working-directory/set", {"sessionId": "s-wd"}, _WorkingDirectoryResponse))
        attempt("get-empty-sessionId", lambda: raw(h, "session/working-directory/get", {"sessionId": ""}, _WorkingDirectoryResponse))

elif scenario == "resume":
    with harness() as h:
        attempt("run-first", lambda: summary(h.run("Say hello.", session_id="s-resume")))
    with harness() as h:
        attempt("resume", lambda: (h.resume_session("s-resume"), "resumed")[1])
        attempt("run-after-resume", lambda: summary(h.start_session("s-resume").run("Say hello again.")))
        attempt("resume-open-session", lambda: raw(h, "session/resume", {"sessionId": "s-resume"}))
        attempt("resume-missing", lambda: raw(h, "session/resume", {"sessionId": "s-not-persisted"}))
        attempt("resume-empty-id", lambda: raw(h, "session/resume", {"sessionId": ""}))

elif scenario == "resume-tools":
    # the resumed runtime runs with a config patch that disables the todo tool: the first request
    # after resume compares its tools with the persisted header and appends a developer/message
    with harness() as h:
        attempt("run-first", lambda: summary(h.run("Say hello.", session_id="s-rtools")))
    patch = os.path.join(work, scenario + "-no-todo.yml")
    with open(patch, "w") as f:
        f.write("- id: tool-todo\n  disabled: true\n")
    with harness(patches=(patch,)) as h:
        attempt("resume", lambda: (h.resume_session("s-rtools"), "resumed")[1])
        attempt("run-after-resume", lambda: summary(h.start_session("s-rtools").run("Say hello again.")))
    time.sleep(3)
    with harness() as h:  # the tool comes back: a tool-addition with headerSeq
        attempt("resume-again", lambda: (h.resume_session("s-rtools"), "resumed")[1])
        attempt("run-with-todo-again", lambda: summary(h.start_session("s-rtools").run("Say hello a third time.")))

elif scenario == "reasoning-effort":
    with harness(reasoning_effort="max", max_tokens=4096) as h:
        attempt("run-max", lambda: summary(h.run("[think] Say hello after thinking.", session_id="s-effort")))
        attempt("run-maxtok", lambda: summary(h.run("[maxtok] Say a long thing.", session_id="s-effort")))
    h = harness(reasoning_effort="bogus-effort")
    attempt("initialize-bogus", lambda: (h.start(), "initialized")[1])
    h.close()
    h = harness(reasoning_effort="")
    attempt("initialize-empty", lambda: (h.start(), "initialized")[1])
    h.close()

elif scenario == "model-errors":
    with harness() as h:
        attempt("retry-500", lambda: summary(h.run("[err500x2] Say hello after two failures.", session_id="s-err")))
        attempt("fail-400", lambda: summary(h.run("[err400] Fail with a bad request.", session_id="s-err")))

elif scenario == "subagent":
    with harness() as h:
        r = attempt("run", lambda: summary(h.run("[sub] Delegate the question to a child.", session_id="s-sub")))
        attempt("wait", lambda: raw(h, "session/wait", {"sessionId": "s-sub"}))

elif scenario == "image":
    with harness() as h:
        img = base64.b64encode(png_2x2()).decode()
        attempt("run", lambda: summary(h.run([{"type": "image", "data": img, "mimeType": "image/png"},
                                              {"type": "text", "text": "What colour is this image?"}], session_id="s-image")))
        attempt("bad-mime", lambda: summary(h.run([{"type": "image", "data": img, "mimeType": "image/tiff"}], session_id="s-image")))
        attempt("bad-data", lambda: summary(h.run([{"type": "image", "data": "not base64!", "mimeType": "image/png"}], session_id="s-image")))

elif scenario == "errors":
    # before initialize
    h = harness()
    h.client.start()
    attempt("prompt-before-initialize", lambda: raw(h, "session/prompt", {"sessionId": "s-e", "contentBlocks": [{"type": "text", "text": "hi"}]}))
    attempt("wait-before-initialize", lambda: raw(h, "session/wait", {"sessionId": "s-e"}))
    attempt("initialize-missing-cwd", lambda: raw(h, "initialize", {"provider": "deepseek-official", "model": "m"}))
    attempt("initialize-bad-provider", lambda: raw(h, "initialize", {"cwd": work, "provider": "no-such-provider", "model": "m"}))
    attempt("initialize-maxTokens-0", lambda: raw(h, "initialize", {"cwd": work, "provider": "deepseek-official", "model": "deepseek-v4-flash", "maxTokens": 0}))
    attempt("initialize", lambda: raw(h, "initialize", {"cwd": work, "provider": "deepseek-official", "model": "deepseek-v4-flash"}))
    attempt("unknown-method", lambda: raw(h, "session/cancel", {"sessionId": "s-e"}))
    attempt("prompt-no-sessionId", lambda: raw(h, "session/prompt", {"contentBlocks": [{"type": "text", "text": "hi"}]}))
    attempt("prompt-no-contentBlocks", lambda: raw(h, "session/prompt", {"sessionId": "s-e2"}))
    attempt("prompt-blocks-not-array", lambda: raw(h, "session/prompt", {"sessionId": "s-e3", "contentBlocks": "hi"}))
    # a second prompt while the first runs
    attempt("prompt-slow", lambda: h.client.session_prompt("s-e", [{"type": "text", "text": "[slow] take your time"}]))
    attempt("prompt-while-running", lambda: h.client.session_prompt("s-e", [{"type": "text", "text": "second prompt"}]))
    attempt("wait", lambda: raw(h, "session/wait", {"sessionId": "s-e"}))
    attempt("initialize-again", lambda: raw(h, "initialize", {"cwd": work, "provider": "deepseek-official", "model": "deepseek-v4-flash"}))
    attempt("shutdown", lambda: raw(h, "shutdown", None))
    h.client._proc.wait(timeout=30)  # the runtime exits after answering; close() then has nothing to send
    h.close()

else:
    raise SystemExit("unknown scenario " + scenario)

with open(os.path.join(out, scenario + ".observed.json"), "w") as f:
    json.dump(observed, f, indent=1)
print(json.dumps(observed)[:3000])
