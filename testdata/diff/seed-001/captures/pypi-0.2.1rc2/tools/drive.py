"""Plain-pipe capture of the PyPI bundled runtime: writes requests, records every line both ways."""
import json, os, subprocess, sys, threading, time, queue
rt = sys.argv[1]; out = sys.argv[2]; port = sys.argv[3]
os.makedirs(out, exist_ok=True)
work = os.path.join(out, "..", "work"); work = os.path.abspath(work); os.makedirs(work, exist_ok=True)
env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": work + "/home", "DSH_HOME": work + "/dsh-home",
       "DEEPSEEK_API_KEY": "sk-test", "DEEPSEEK_BASE_URL": "http://127.0.0.1:" + port}
os.makedirs(env["HOME"], exist_ok=True)
p = subprocess.Popen([rt, "--profile", "sdk"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(out + "/stderr.txt", "w"), cwd=work, env=env)
c2s = open(out + "/client-to-server.jsonl", "wb"); s2c = open(out + "/server-to-client.jsonl", "wb")
q = queue.Queue()
def reader():
    for line in p.stdout:
        s2c.write(line); s2c.flush()
        try: q.put(json.loads(line))
        except Exception: q.put({"_raw": line.decode()})
    q.put(None)
threading.Thread(target=reader, daemon=True).start()
def send(obj):
    b = (json.dumps(obj, separators=(",", ":")) + "\n").encode()
    c2s.write(b); c2s.flush(); p.stdin.write(b); p.stdin.flush()
def wait_for(pred, timeout=60):
    end = time.time() + timeout
    while time.time() < end:
        try: m = q.get(timeout=end - time.time())
        except queue.Empty: break
        if m is None: raise SystemExit("stdout closed")
        if pred(m): return m
    raise SystemExit("timeout")
send({"jsonrpc":"2.0","id":"1","method":"initialize","params":{"cwd":work,"provider":"deepseek-official","model":"deepseek-v4-flash"}})
print(wait_for(lambda m: m.get("id") == "1"), file=sys.stderr)
send({"jsonrpc":"2.0","id":"2","method":"session/prompt","params":{"sessionId":"s-1","contentBlocks":[{"type":"text","text":"Say hello."}]}})
wait_for(lambda m: m.get("method") == "session.status" and m["params"].get("status") == "idle")
send({"jsonrpc":"2.0","id":"3","method":"session/wait","params":{"sessionId":"s-1"}})
print(wait_for(lambda m: m.get("id") == "3"), file=sys.stderr)
send({"jsonrpc":"2.0","id":"4","method":"session/working-directory/get","params":{"sessionId":"s-1"}})
print(wait_for(lambda m: m.get("id") == "4"), file=sys.stderr)
send({"jsonrpc":"2.0","id":"5","method":"no/such-method","params":{}})
print(wait_for(lambda m: m.get("id") == "5"), file=sys.stderr)
send({"jsonrpc":"2.0","id":"6","method":"shutdown","params":{}})
print(wait_for(lambda m: m.get("id") == "6"), file=sys.stderr)
p.stdin.close()
print("exit", p.wait(timeout=30), file=sys.stderr)
