"""Drive the published Python SDK (PyPI deepseek-harness-sdk 0.2.1rc2) through its public API.

Each scenario starts one or more DeepSeekHarness instances on the runtime of
deepseek-harness-runtime-bin (directly, or behind `dshgen tap`), talks to the
scripted model of fake_anthropic.py, and writes what the SDK let it observe
(final text, finish reason, the event types and notifications it saw, the
results and errors of each call) to OUT/<mode>/<scenario>/outcome.json.

    scenarios.py --port PORT --out DIR --runtime RT [--modes direct,tap]
                 [--dshgen BIN] [--schema FILE] [--only a,b] [--jobs N] [--timeout S]
                 [--native-cache DIR]
    scenarios.py --list

Every (scenario, mode) runs in its own process (its own process group,
killed after --timeout seconds, default 90) and its own directories:
OUT/<mode>/<scenario>/{work,home,dsh-home} (the runtime's workspace, HOME and
Harness home) and one folder per harness instance,
OUT/<mode>/<scenario>/<instance>/, holding client-to-server.jsonl and
server-to-client.jsonl (the bytes the SDK wrote and read, recorded by
capture_wrap.py) and, in mode tap, tap.log and tap.report (`dshgen tap
--format jsonl --capture ... --report ...`). Each SDK call has a 30 s
timeout. A summary line per scenario goes to stderr; OUT/summary.json lists
them all. Exit 0 when every scenario ran to its end (errors the scenario
provokes on purpose are part of its outcome, not failures).
"""

from __future__ import annotations

import argparse
import base64
import fcntl
import json
import os
import shlex
import signal
import struct
import subprocess
import sys
import threading
import time
import traceback
import urllib.request
import zlib
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
CALL_TIMEOUT = 30.0


# ---------------------------------------------------------------- observing


class Labels:
    """Stable names for session ids: ids the scenario chose stay, runtime-minted child ids become child-N."""

    def __init__(self, known=()):
        self.names = {k: k for k in known}
        self.children = 0

    def __call__(self, sid):
        if not isinstance(sid, str):
            return repr(sid)
        if sid not in self.names:
            self.children += 1
            self.names[sid] = f"child-{self.children}"
        return self.names[sid]


def note(n, labels):
    """One notification as a short string: method, session label and the part that matters."""
    p = n.payload
    if n.method == "session.event":
        return f"event {labels(p.get('sessionId'))} {p.get('event', {}).get('type')}"
    if n.method == "session.status":
        return f"status {labels(p.get('sessionId'))} {p.get('status')}"
    if n.method == "subagent.started":
        return f"subagent.started {labels(p.get('parentSessionId'))} -> {labels(p.get('childSessionId'))}"
    if n.method == "subagent.finished":
        return f"subagent.finished {labels(p.get('parentSessionId'))} -> {labels(p.get('childSessionId'))} {p.get('status')} {p.get('stopReason')}"
    return n.method


def per_session(notes):
    """Notifications grouped by session label, in order (the interleaving of sessions is timing)."""
    out = {}
    for s in notes:
        parts = s.split(" ")
        key = parts[1] if len(parts) > 1 else "-"
        out.setdefault(key, []).append(s)
    return out


def turn_ends(events):
    return [e.get("data", {}).get("reason") for e in events if e.get("type") == "turn/end"]


def last_content_types(events):
    for e in reversed(events):
        if e.get("type") == "assistant/message":
            return [b.get("type") for b in e.get("data", {}).get("message", {}).get("content", [])]
    return None


def run_result(r, labels, only=None):
    """What RunResult exposes: the final text, the finish reason, root events and the notifications (of the
    sessions labelled `only`, when given)."""
    notes = per_session([note(n, labels) for n in r.notifications])
    return {
        "session": labels(r.session_id),
        "final_response": r.final_response,
        "finish_reason": r.finish_reason,
        "events": [e.get("type") for e in r.events],
        "turn_end_reasons": turn_ends(r.events),
        "last_assistant_content": last_content_types(r.events),
        "notifications": notes if only is None else {k: v for k, v in notes.items() if k in only},
    }


def error_of(e):
    """A raised exception as the SDK shapes it: class, JSON-RPC code, first line of the message."""
    return {"raised": type(e).__name__, "code": getattr(e, "code", None), "message": str(e).split("\n", 1)[0]}


def drain(sub):
    """Every notification already delivered to a NotificationSubscription, without waiting."""
    got = []
    sub.drain(got.append)
    return got


# ---------------------------------------------------------------- the harness


class Ctx:
    def __init__(self, args, scenario, mode):
        from deepseek_harness import DeepSeekHarness, DeepSeekHarnessConfig  # noqa: F401 (import check)

        self.args, self.scenario, self.mode = args, scenario, mode
        self.root = os.path.join(args.out, mode, scenario)
        self.work = os.path.join(self.root, "work")
        for d in ("work", "home", "dsh-home"):
            os.makedirs(os.path.join(self.root, d), exist_ok=True)
        self.steps = []
        self.instances = []

    def launcher(self, instance):
        """A dsh_bin for the SDK: the runtime (behind `dshgen tap` in mode tap) under capture_wrap.py."""
        d = os.path.join(self.root, instance)
        os.makedirs(d, exist_ok=True)
        cmd = [sys.executable, os.path.join(HERE, "capture_wrap.py"), d, "--"]
        if self.mode == "tap":
            cmd += [
                self.args.dshgen,
                "tap",
                "--format",
                "jsonl",
                "--capture",
                os.path.join(d, "tap.log"),
                "--report",
                os.path.join(d, "tap.report"),
            ]
            if self.args.schema:
                cmd += ["--schema", self.args.schema]
            cmd += ["--"]
        cmd += [self.args.runtime]
        path = os.path.join(d, "launch.sh")
        with open(path, "w") as f:
            f.write("#!/bin/sh\nexec " + " ".join(shlex.quote(c) for c in cmd) + ' "$@"\n')
        os.chmod(path, 0o755)
        self.instances.append(instance)
        return path

    def env(self, extra=None):
        """The runtime's environment on top of the driver's (see clean_env).

        PKG_NATIVE_CACHE_PATH: the runtime (packaged with pkg) copies the package folders of its native modules,
        81 MB, to $PKG_NATIVE_CACHE_PATH/pkg/<sha256> (default $HOME/.cache) when it loads them, and reuses a copy
        whose files hash the same. With a fresh HOME per scenario every runtime would write its own 81 MB, so the
        copy is shared (--native-cache); a user's HOME keeps it the same way."""
        env = {"HOME": os.path.join(self.root, "home"), "DSH_TELEMETRY_DISABLED": "1"}
        if self.args.native_cache:
            env["PKG_NATIVE_CACHE_PATH"] = self.args.native_cache
        return {**env, **(extra or {})}

    def client_config(self, instance="rt"):
        """A HarnessConfig for the low-level client (base URL and key go in the environment)."""
        from deepseek_harness import HarnessConfig

        return HarnessConfig(
            dsh_bin=self.launcher(instance),
            dsh_home=os.path.join(self.root, "dsh-home"),
            cwd=self.work,
            env={
                **self.env(),
                "DEEPSEEK_BASE_URL": f"http://127.0.0.1:{self.args.port}",
                "DEEPSEEK_API_KEY": "sk-fake",
            },
            initialize_timeout_seconds=CALL_TIMEOUT,
            request_timeout_seconds=CALL_TIMEOUT,
            shutdown_timeout_seconds=5.0,
        )

    def harness(self, instance="rt", env=None, **options):
        from deepseek_harness import DeepSeekHarness, DeepSeekHarnessConfig

        cfg = DeepSeekHarnessConfig(
            cwd=self.work,
            dsh_bin=self.launcher(instance),
            dsh_home=os.path.join(self.root, "dsh-home"),
            base_url=f"http://127.0.0.1:{self.args.port}",
            api_key="sk-fake",
            env=self.env(env),
            initialize_timeout_seconds=CALL_TIMEOUT,
            request_timeout_seconds=CALL_TIMEOUT,
            shutdown_timeout_seconds=5.0,
            **options,
        )
        return DeepSeekHarness(cfg)

    def gate(self):
        """This run's gate token for fake_anthropic.py (put `gate:TOKEN` in a marker message)."""
        return f"{self.mode}-{self.scenario}"

    def open_gate(self, name):
        """Opens the fake model's gate TOKEN/NAME: a reply it holds until the driver has seen what comes first."""
        url = f"http://127.0.0.1:{self.args.port}/dsh/gate/{self.gate()}/{name}"
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        opener.open(urllib.request.Request(url, data=b"", method="POST"), timeout=CALL_TIMEOUT).close()

    def step(self, call, **observed):
        self.steps.append({"call": call, **observed})

    def attempt(self, call, fn, **extra):
        """Run fn; record its result (via the returned dict) or the error it raised."""
        try:
            res = fn()
        except Exception as e:  # the SDK's errors are observations here
            self.step(call, **extra, **error_of(e))
            return None
        self.step(call, **extra, result=res)
        return res


# ---------------------------------------------------------------- scenarios

SCENARIOS = {}


def scenario(fn):
    SCENARIOS[fn.__name__.replace("_", "-")] = fn
    return fn


@scenario
def text_turn(c):
    """DeepSeekHarness.run with a plain string and an on_notification callback; the model streams thinking, then text."""
    labels = Labels(["session-text"])
    seen = []
    with c.harness() as h:
        r = h.run("[[dsh:text]] Say hello.", session_id="session-text", on_notification=seen.append)
        c.step(
            "run",
            **run_result(r, labels),
            callback_saw_every_notification=[n.method for n in seen] == [n.method for n in r.notifications]
            and len(seen) == len(r.notifications),
        )


@scenario
def bash_tool(c):
    """The model calls bash (writes a file, prints it and the directory name); the tool result (stdout) goes back to
    the model, which quotes it in its final text; the file is checked on disk.

    DSH_PERMISSION_MODE=danger-full-access (the profile's own override, passed through DeepSeekHarnessConfig.env):
    under the default workspace-write the runtime refuses to run bash unless bubblewrap or Landlock is usable,
    which depends on the host, not on the protocol."""
    labels = Labels(["session-bash"])
    with c.harness(env={"DSH_PERMISSION_MODE": "danger-full-access"}) as h:
        r = h.run("[[dsh:bash]] Write a greeting with bash.", session_id="session-bash")
        c.step("run", **run_result(r, labels))
    c.step("file", path="work/bash-out.txt", content=read(os.path.join(c.work, "bash-out.txt")))


@scenario
def fs_tools(c):
    """The model calls write, read, edit, glob and read on notes.txt, then write outside the workspace, which the
    default workspace-write policy denies; every result (and the error) goes back to the model and into its final
    text; the files are checked on disk."""
    labels = Labels(["session-fs"])
    with c.harness() as h:
        r = h.run("[[dsh:fs]] Make and change notes.txt.", session_id="session-fs")
        c.step("run", **run_result(r, labels))
    c.step("file", path="work/notes.txt", content=read(os.path.join(c.work, "notes.txt")))
    c.step("file", path="outside.txt", content=read(os.path.join(c.root, "outside.txt")))


@scenario
def parallel_sessions(c):
    """Two Session.run calls on one harness from two threads; the model answers each once both have asked."""
    labels = Labels(["session-a", "session-b"])
    with c.harness() as h:
        out, spans = {}, {}

        def go(sid, marker):
            t0 = time.monotonic()
            out[sid] = h.start_session(sid).run(f"[[dsh:{marker}]] Work in parallel.")
            spans[sid] = (t0, time.monotonic())

        ts = [threading.Thread(target=go, args=a) for a in (("session-a", "parallel-a"), ("session-b", "parallel-b"))]
        for t in ts:
            t.start()
        for t in ts:
            t.join(CALL_TIMEOUT * 2)
        for sid in ("session-a", "session-b"):
            c.step("run", **run_result(out[sid], labels)) if sid in out else c.step(
                "run", session=sid, raised="did not finish"
            )
        (a0, a1), (b0, b1) = spans.get("session-a", (0, 0)), spans.get("session-b", (0, 0))
        c.step("overlap", runs_overlapped=a0 < b1 and b0 < a1)


@scenario
def session_wait(c):
    """The low-level HarnessClient: initialize (serverInfo), session_prompt (returns the message id at once),
    session/wait (answers once the turn has settled), session/wait on a session that does not exist, a method the
    runtime does not have."""
    from deepseek_harness import HarnessClient
    from pydantic import BaseModel

    class Empty(BaseModel):
        pass

    labels = Labels(["session-wait"])
    client = HarnessClient(c.client_config())
    try:
        client.start()
        init = client.initialize(cwd=c.work, provider="deepseek-official", model="deepseek-v4-flash")
        c.step("initialize", server_info=init.serverInfo.model_dump() if init.serverInfo else None)
        with client.subscribe_session_notifications("session-wait") as sub:
            prompt = f"[[dsh:wait]] gate:{c.gate()} Take a moment."
            mid = client.session_prompt("session-wait", [{"type": "text", "text": prompt}])
            before = [note(n, labels) for n in drain(sub)]
            c.open_gate("prompt-returned")  # the model answers the turn only now
            c.step(
                "session_prompt",
                message_id_is_str=isinstance(mid, str) and len(mid) > 0,
                turn_ended_before_it_returned=any(s.endswith(" turn/end") for s in before),
            )
            waited = client.request(
                "session/wait", {"sessionId": "session-wait"}, response_model=Empty, timeout_seconds=CALL_TIMEOUT
            )
            seen = before + [note(n, labels) for n in drain(sub)]
        c.step(
            "session/wait",
            result=waited.model_dump(),
            notifications=per_session(seen),
            idle_before_answer=seen[-1:] == ["status session-wait idle"],
        )
        c.attempt(
            "session/wait unknown",
            lambda: client.request(
                "session/wait", {"sessionId": "session-nobody"}, response_model=Empty, timeout_seconds=CALL_TIMEOUT
            ).model_dump(),
        )
        c.attempt(
            "unknown method",
            lambda: client.request(
                "session/frobnicate", {"sessionId": "session-wait"}, response_model=Empty, timeout_seconds=CALL_TIMEOUT
            ).model_dump(),
        )
    finally:
        client.close()


@scenario
def working_directory(c):
    """Session.get_working_directory / set_working_directory (relative, then a missing directory), then a turn."""
    labels = Labels(["session-cwd"])
    os.makedirs(os.path.join(c.work, "sub"), exist_ok=True)
    with c.harness() as h:
        s = h.start_session("session-cwd")
        c.attempt("get_working_directory", s.get_working_directory)
        c.attempt("set_working_directory sub", lambda: s.set_working_directory("sub"))
        c.attempt("get_working_directory", s.get_working_directory)
        c.attempt("set_working_directory missing", lambda: s.set_working_directory("no-such-dir"))
        r = s.run("[[dsh:cwd]] Where am I?")
        c.step("run", **run_result(r, labels))


@scenario
def resume(c):
    """A turn, close; a new runtime on the same Harness home resumes the session and sees its history.

    Resuming it again while open, and resuming an id that was never saved, raise."""
    labels = Labels(["session-resume"])
    with c.harness("first") as h:
        r = h.run("[[dsh:resume-first]] Remember the word pelican.", session_id="session-resume")
        c.step("run", **run_result(r, labels))
    with c.harness("second") as h:
        s = c.attempt("resume_session", lambda: h.resume_session("session-resume").id)
        if s:
            r = h.start_session("session-resume").run("[[dsh:resume-second]] Which word?")
            c.step("run", **run_result(r, labels))
        c.attempt("resume_session again", lambda: h.resume_session("session-resume").id)
        c.attempt("resume_session never saved", lambda: h.resume_session("session-never-saved").id)


@scenario
def reasoning_effort(c):
    """initialize options: reasoning_effort max with max_tokens 64, then off, reach the model request (thinking,
    output_config.effort, max_tokens); a reply cut at max_tokens gives finish reason max-tokens; an effort the
    route does not have (extreme) and max_tokens=0 make initialize fail (DeepSeekHarness raises)."""
    labels = Labels(["session-effort-max", "session-cut", "session-effort-off"])
    with c.harness("max", reasoning_effort="max", max_tokens=64) as h:
        r = h.run("[[dsh:effort]] What did you get?", session_id="session-effort-max")
        c.step("run", options={"reasoning_effort": "max", "max_tokens": 64}, **run_result(r, labels))
        r = h.run("[[dsh:maxtokens]] Write a long story.", session_id="session-cut")
        c.step("run", options={"reasoning_effort": "max", "max_tokens": 64}, **run_result(r, labels))
    with c.harness("off", reasoning_effort="off") as h:
        r = h.run("[[dsh:effort]] What did you get?", session_id="session-effort-off")
        c.step("run", options={"reasoning_effort": "off"}, **run_result(r, labels))
    for instance, opts in (("extreme", {"reasoning_effort": "extreme"}), ("zero", {"max_tokens": 0})):

        def start(instance=instance, opts=opts):
            with c.harness(instance, **opts):
                return "started"

        c.attempt("start", start, options=opts)


@scenario
def model_retries(c):
    """The model fails three times, each of a kind the runtime retries: an in-band SSE overloaded_error (no
    retry-after: the runtime's own 500 ms backoff), 429 rate_limit_error and 529 overloaded_error (retry-after
    0.05 s), then answers: three llm/retry events and the fourth attempt's text."""
    labels = Labels(["session-retry"])
    with c.harness() as h:
        r = h.run("[[dsh:retry]] Answer, eventually.", session_id="session-retry")
        c.step("run", **run_result(r, labels))


@scenario
def model_errors(c):
    """Model failures that end the turn, one session each on one runtime: 400 invalid_request_error and 401
    authentication_error (not retried), 500 api_error six times (5 retries, then given up): finish reason error,
    the error in turn/end."""
    sessions = (("session-fatal", "fatal"), ("session-auth", "auth"), ("session-exhaust", "exhaust"))
    labels = Labels([sid for sid, _ in sessions])
    with c.harness() as h:
        for sid, marker in sessions:
            r = h.run(f"[[dsh:{marker}]] This will fail.", session_id=sid)
            c.step("run", **run_result(r, labels))


@scenario
def subagent(c):
    """The model starts a subagent; the child reports with send_message; session/wait waits for the whole tree."""
    from pydantic import BaseModel

    class Empty(BaseModel):
        pass

    labels = Labels(["session-parent"])
    with c.harness() as h:
        with h.client.subscribe_session_notifications("session-parent") as tree:
            r = h.start_session("session-parent").run(f"[[dsh:subagent]] gate:{c.gate()} Delegate the counting.")
            # The parent runs one turn per message: its prompt, the child's message, the child's end. The fake
            # model lets the child send its message once the first turn has ended, and end once the second has
            # (otherwise either could be spliced into the turn before: timing).
            seen = []
            c.open_gate("parent-idle-1")
            while sum(1 for n in seen if note(n, labels) == "status session-parent idle") < 2:
                seen.append(tree.next())
            c.open_gate("parent-idle-2")
            # How far the child got when the parent went idle is timing: its part of RunResult.notifications is
            # checked as a prefix of what the tree subscription saw by the end of session/wait.
            child_in_run = [
                note(n, labels) for n in r.notifications if n.payload.get("sessionId") not in (None, "session-parent")
            ]
            c.step("run", **run_result(r, labels, only=["session-parent"]))
            waited = h.client.request(
                "session/wait", {"sessionId": "session-parent"}, response_model=Empty, timeout_seconds=CALL_TIMEOUT
            )
            seen += drain(tree)
        # The parent runs three turns while the child runs one; how the two sessions' events interleave is
        # timing. So the tree's notifications are compared as a sorted list per session, and the order that is
        # fixed is checked on its own: the parent's turns and their texts.
        tree_notes = [note(n, labels) for n in seen]
        child_all = [
            x for x in tree_notes if x.split(" ")[1] not in ("session-parent",) and not x.startswith("subagent.")
        ]
        turns, current = [], None
        for n in seen:
            ev = (
                n.payload.get("event", {})
                if n.method == "session.event" and n.payload.get("sessionId") == "session-parent"
                else {}
            )
            if ev.get("type") == "turn/start":
                current = {"turn": ev.get("data", {}).get("turn"), "texts": []}
                turns.append(current)
            elif ev.get("type") == "assistant/message" and current is not None:
                current["texts"].append(
                    "".join(b.get("text", "") for b in ev["data"]["message"]["content"] if b.get("type") == "text")
                )
            elif ev.get("type") == "turn/end" and current is not None:
                current["end"] = ev.get("data", {}).get("reason")
        finished = [n.payload for n in seen if n.method == "subagent.finished"]
        c.step(
            "session/wait",
            result=waited.model_dump(),
            notifications_sorted={k: sorted(v) for k, v in per_session(tree_notes).items()},
            run_saw_a_prefix_of_the_child=child_all[: len(child_in_run)] == child_in_run,
            parent_turns=turns,
            finished_last_message=[[b.get("text") for b in f.get("lastAssistantMessage", [])] for f in finished],
        )


def tiny_png(w=3, h=2):
    """A w x h RGB PNG (deterministic bytes)."""
    rows = b"".join(
        b"\x00" + b"".join(bytes([(x * 80) % 256, (y * 120) % 256, 200]) for x in range(w)) for y in range(h)
    )

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows, 9))
        + chunk(b"IEND", b"")
    )


@scenario
def inline_image(c):
    """run() with content blocks: text and an inline base64 PNG ({"type":"image","data","mimeType"})."""
    labels = Labels(["session-image"])
    png = tiny_png()
    with c.harness(model="deepseek-flash") as h:
        r = h.run(
            [
                {"type": "text", "text": "[[dsh:image]] What is in the picture?"},
                {"type": "image", "data": base64.b64encode(png).decode(), "mimeType": "image/png"},
            ],
            session_id="session-image",
        )
        c.step("run", png_bytes=len(png), **run_result(r, labels))


def read(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError as e:
        return f"<{type(e).__name__}>"


# ---------------------------------------------------------------- running


def run_one(args, name, mode):
    c = Ctx(args, name, mode)
    t0 = time.monotonic()
    outcome = {"scenario": name, "mode": mode, "root": c.root, "doc": " ".join((SCENARIOS[name].__doc__ or "").split())}
    try:
        SCENARIOS[name](c)
        outcome["completed"] = True
    except Exception as e:
        outcome["completed"] = False
        outcome["failure"] = error_of(e)
        outcome["traceback"] = traceback.format_exc()
    outcome["steps"] = c.steps
    outcome["instances"] = c.instances
    outcome["elapsed_s"] = round(time.monotonic() - t0, 2)
    with open(os.path.join(c.root, "outcome.json"), "w") as f:
        json.dump(outcome, f, indent=1)
    return 0 if outcome["completed"] else 1


def clean_env():
    """The environment the SDK (and so the runtime) starts from: nothing of the caller's beyond PATH and TMPDIR."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}
    if os.environ.get("TMPDIR"):
        env["TMPDIR"] = os.environ["TMPDIR"]
    return env


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--port", type=int)
    ap.add_argument("--out")
    ap.add_argument("--runtime")
    ap.add_argument("--modes", default="direct,tap")
    ap.add_argument("--dshgen")
    ap.add_argument("--schema")
    ap.add_argument("--only")
    ap.add_argument("--jobs", type=int, default=max(4, 3 * (os.cpu_count() or 1)))
    ap.add_argument("--timeout", type=float, default=90)
    ap.add_argument("--native-cache", help="PKG_NATIVE_CACHE_PATH for every runtime (see Ctx.env)")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--one", nargs=2, metavar=("SCENARIO", "MODE"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.list:
        for k, f in SCENARIOS.items():
            print(f"{k}: {' '.join((f.__doc__ or '').split())}")
        return 0
    if not (args.port and args.out and args.runtime):
        ap.error("--port, --out and --runtime are required")
    args.out = os.path.abspath(args.out)
    modes = [m for m in args.modes.split(",") if m]
    if "tap" in modes and not args.dshgen:
        ap.error("mode tap needs --dshgen")
    if args.one:
        return run_one(args, *args.one)
    names = list(SCENARIOS) if not args.only else args.only.split(",")
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        ap.error(f"unknown scenario(s) {unknown}; --list shows them")

    # The slowest first, so that the pool ends together.
    order = sorted(((n, m) for n in names for m in modes), key=lambda nm: -SLOW.get(nm[0], 1))
    summary = {}

    def child(nm):
        name, mode = nm
        cmd = [
            sys.executable,
            os.path.abspath(__file__),
            "--one",
            name,
            mode,
            "--modes",
            mode,
            "--port",
            str(args.port),
            "--out",
            args.out,
            "--runtime",
            args.runtime,
        ]
        if args.dshgen:
            cmd += ["--dshgen", args.dshgen]
        if args.schema:
            cmd += ["--schema", args.schema]
        if args.native_cache:
            cmd += ["--native-cache", args.native_cache]
        t0 = time.monotonic()
        os.makedirs(os.path.join(args.out, mode, name), exist_ok=True)
        log = open(os.path.join(args.out, mode, name, "driver.log"), "wb")
        p = subprocess.Popen(cmd, env=clean_env(), stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            code = p.wait(timeout=args.timeout)
            status = "ok" if code == 0 else f"exit {code}"
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            status = f"timeout after {args.timeout:g} s"
        finally:
            log.close()
        dt = round(time.monotonic() - t0, 2)
        summary.setdefault(mode, {})[name] = {"status": status, "elapsed_s": dt}
        print(f"{mode:6} {name:20} {status} ({dt} s)", file=sys.stderr, flush=True)
        return status == "ok"

    t0 = time.monotonic()
    ok = True
    warm = os.path.join(args.native_cache, ".complete") if args.native_cache else None
    lock = None
    if warm and not os.path.exists(warm):
        os.makedirs(args.native_cache, exist_ok=True)
        lock = open(os.path.join(args.native_cache, ".lock"), "w")
        fcntl.flock(lock, fcntl.LOCK_EX)  # another run warming the same cache: wait for it
    if warm and not os.path.exists(warm):
        # On an empty native-module cache the runtimes that load each module first run alone, one after the other:
        # runtimes that start together would write the same files at once, and one could load a file another is
        # still writing. Between them, WARM_UP's scenarios load every native module these scenarios use.
        first = [nm for nm in order if nm[0] in WARM_UP and nm[1] == modes[0]] or order[:1]
        for nm in first:
            order.remove(nm)
            ok = child(nm) and ok
        if ok and {nm[0] for nm in first} == set(WARM_UP):
            open(warm, "w").close()
    if lock:
        lock.close()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        ok = all(list(pool.map(child, order))) and ok
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(
            {"elapsed_s": round(time.monotonic() - t0, 2), "jobs": args.jobs, "scenarios": summary},
            f,
            indent=1,
            sort_keys=True,
        )
    return 0 if ok else 1


# Rough relative cost (runtime starts and model waits), for the order only.
# The runtime's native modules (loaded from copies under PKG_NATIVE_CACHE_PATH): the @deepseek-ai package tree and
# @koromix/koffi (any tool call; bash-tool), @img/sharp (image input; inline-image).
WARM_UP = ("bash-tool", "inline-image")

SLOW = {"reasoning-effort": 4, "resume": 2, "subagent": 1.5, "parallel-sessions": 1.5, "model-errors": 1.5}

if __name__ == "__main__":
    sys.exit(main())
