"""Record the SDK's side of a stdio JSON-RPC session: the bytes the client wrote and read.

Usage: capture_wrap.py DIR -- CMD [ARGS...]

Runs CMD with a pipe on each of stdin and stdout (stderr is inherited) and
copies bytes both ways, each chunk written to DIR/client-to-server.jsonl or
DIR/server-to-client.jsonl before it is forwarded, so the files hold exactly
what the client sent and received. EOF on stdin closes CMD's stdin; EOF on
CMD's stdout closes stdout. SIGTERM, SIGINT and SIGHUP are forwarded to CMD.
Exits when CMD has exited and its stdout is drained, with CMD's status (a
signal death is re-raised on this process), even while the client still
holds stdin open.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading


def pump(src: int, dst: int | None, log, close_dst) -> None:
    try:
        while True:
            try:
                data = os.read(src, 65536)
            except OSError:
                data = b""
            if not data:
                break
            log.write(data)
            log.flush()
            if dst is not None:
                try:
                    write_all(dst, data)
                except OSError:  # the peer is gone: keep recording, stop forwarding
                    dst = None
    finally:
        close_dst()


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def main() -> int:
    args = sys.argv[1:]
    if len(args) < 3 or args[1] != "--":
        print("usage: capture_wrap.py DIR -- CMD [ARGS...]", file=sys.stderr)
        return 2
    out, cmd = args[0], args[2:]
    os.makedirs(out, exist_ok=True)
    c2s = open(os.path.join(out, "client-to-server.jsonl"), "wb")
    s2c = open(os.path.join(out, "server-to-client.jsonl"), "wb")
    try:
        child = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    except OSError as e:
        print(f"capture_wrap.py: {cmd[0]}: {e}", file=sys.stderr)
        return 127
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda s, _f: child.send_signal(s))
    child_in, child_out = child.stdin.fileno(), child.stdout.fileno()

    def close_child_in():
        try:
            child.stdin.close()
        except OSError:
            pass

    def close_stdout():
        try:
            os.close(1)
        except OSError:
            pass

    up = threading.Thread(target=pump, args=(0, child_in, c2s, close_child_in), daemon=True)
    down = threading.Thread(target=pump, args=(child_out, 1, s2c, close_stdout), daemon=True)
    up.start()
    down.start()
    down.join()
    code = child.wait()
    c2s.flush()
    s2c.flush()
    if code < 0:
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    return code


if __name__ == "__main__":
    sys.exit(main())
