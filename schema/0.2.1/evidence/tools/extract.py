"""Unpack the JavaScript file system embedded in the PyPI runtime executable.

    python extract.py RUNTIME_EXECUTABLE OUT_DIR

The runtime (deepseek-harness-runtime-bin 0.2.1rc2, deepseek-harness-sdk-runtime-linux-x64) is a Node
single-executable application packed by pkg: the ELF note NODE_SEA_BLOB holds the bootstrap script
and two assets, __pkg_archive__ (the files, stored uncompressed, back to back) and __pkg_manifest__
(JSON: directories, stats and offsets = path -> [offset into the archive, length]). This writes
OUT_DIR/snapshot/<path> for every file and prints the byte offset in the executable of each asset.
Nothing is executed.
"""
import json, mmap, os, struct, sys

exe, out = sys.argv[1], sys.argv[2]
with open(exe, "rb") as f:
    m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    note = m.find(b"NODE_SEA_BLOB\x00")          # the name also occurs in Node's own code: find the note
    while note >= 0 and struct.unpack_from("<I", m, note + 16)[0] != 0x0143DA20:
        note = m.find(b"NODE_SEA_BLOB\x00", note + 1)
    if note < 0:
        raise SystemExit("no NODE_SEA_BLOB note with the SEA magic: not a Node single-executable")
    p = note + 16                                   # note name, padded to 4; then magic and flags
    p += 9                                          # magic, flags, one reserved byte (Node 22+)

    def view():
        global p
        n = struct.unpack_from("<Q", m, p)[0]
        start = p + 8
        p = start + n
        return start, n

    _, n = view()                                   # code path
    main_at, main_len = view()                      # bootstrap script
    count = struct.unpack_from("<Q", m, p)[0]
    p += 8
    assets = {}
    for _ in range(count):
        s, n = view()
        name = m[s:s + n].decode()
        assets[name] = view()
    print(f"bootstrap script at {main_at} ({main_len} bytes)")
    for name, (s, n) in assets.items():
        print(f"asset {name} at {s} ({n} bytes)")
    ms, mn = assets["__pkg_manifest__"]
    raw = m[ms:ms + mn]
    manifest, _ = json.JSONDecoder().raw_decode(raw.decode("utf-8", "replace"))
    arch = assets["__pkg_archive__"][0]
    written = 0
    for path, (off, n) in manifest["offsets"].items():
        dest = os.path.join(out, "snapshot" + path)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "wb") as w:
            w.write(m[arch + off:arch + off + n])
        written += 1
    print(f"entrypoint {manifest['entrypoint']}; wrote {written} files under {out}/snapshot (archive at {arch})")
