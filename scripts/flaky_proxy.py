#!/usr/bin/env python3
"""A loopback HTTP proxy for client tests: the signal that drops at a trailhead.

    flaky_proxy.py UPSTREAM-PORT LOG-FILE [--cut-after N] [--rate BYTES-PER-SECOND] [--no-ranges]
                   [--blob-file PATH] [--hold-file PATH]

Listens on 127.0.0.1 (a free port, printed on the first line), forwards each request to the
upstream server with `Connection: close`, and writes every request line with its Range header
to LOG-FILE. With --cut-after, the first download of a blob (/v1/blobs/...) is cut after N bytes
of the response body. With --rate, responses are sent at that many bytes per second. Runs until
it is killed or its standard input ends (the test that started it holds the other end of a pipe,
so a test process that dies takes the proxy with it; a clock would end it in the middle of a slow
test, as it did in a CI run on 2026-11-27). With --no-ranges, Range and If-Range are dropped from requests for
blobs: the upstream answers 200 with the whole file, as some proxies and CDNs do. With --blob-file,
every GET of a blob is answered from PATH instead (a hostile or broken server), with the upstream's
ETag and honest ranges of PATH's bytes. With --hold-file, the body of a blob stops between two
chunks for as long as PATH exists (the link goes quiet with the connection open, as in a valley):
a browser test holds a download there for as long as its checks take however slow the machine, and
lets it go on by deleting PATH.
"""
import os, signal, socket, sys, threading, time, traceback

# A test runner may start us with signals blocked: let SIGTERM and SIGINT end us.
signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])

upstream = int(sys.argv[1])
log_path = sys.argv[2]
args = sys.argv[3:]
cut_after = int(args[args.index("--cut-after") + 1]) if "--cut-after" in args else None
rate = int(args[args.index("--rate") + 1]) if "--rate" in args else None
no_ranges = "--no-ranges" in args
blob_file = args[args.index("--blob-file") + 1] if "--blob-file" in args else None
hold_file = args[args.index("--hold-file") + 1] if "--hold-file" in args else None


def answer_from_file(client, headers, request_line):
    """A blob answered from blob_file: 206 for one `bytes=a-b` range, else 200 with all of it."""
    data = open(blob_file, "rb").read()
    name = request_line.split()[1].rsplit("/", 1)[-1]
    etag = '"' + name[:-4] + '"'
    rng = next((l.split(":", 1)[1].strip() for l in headers if l.lower().startswith("range:")), None)
    status, body, extra = "200 OK", data, ""
    if rng and rng.startswith("bytes=") and "," not in rng:
        a, _, b = rng[6:].partition("-")
        start = int(a) if a else max(0, len(data) - int(b))
        end = min(int(b), len(data) - 1) if a and b else len(data) - 1
        status, body = "206 Partial Content", data[start:end + 1]
        extra = f"Content-Range: bytes {start}-{end}/{len(data)}\r\n"
    head = (f"HTTP/1.1 {status}\r\nContent-Type: application/zip\r\nETag: {etag}\r\nAccept-Ranges: bytes\r\n"
            f"{extra}Content-Length: {len(body)}\r\nConnection: close\r\n\r\n")
    client.sendall(head.encode("latin-1") + body)
state = {"cut": False}
lock = threading.Lock()


def read_head(sock):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return None, b""
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    return head.decode("latin-1"), rest


def handle(client):
    try:
        head, rest = read_head(client)
        if head is None:
            return
        lines = head.split("\r\n")
        headers = [l for l in lines[1:] if not l.lower().startswith("connection:")]
        length = 0
        for l in headers:
            if l.lower().startswith("content-length:"):
                length = int(l.split(":", 1)[1])
        while len(rest) < length:
            rest += client.recv(65536)
        rng = next((l.split(":", 1)[1].strip() for l in headers if l.lower().startswith("range:")), "-")
        with lock:
            with open(log_path, "a") as log:
                log.write(f"{lines[0]} range={rng}\n")
        cut = None
        is_blob = " /v1/blobs/" in lines[0]
        if cut_after is not None and is_blob and lines[0].startswith("GET"):
            with lock:
                if not state["cut"]:
                    state["cut"] = True
                    cut = cut_after
        if blob_file and is_blob and lines[0].startswith("GET"):
            answer_from_file(client, headers, lines[0])
            return
        if no_ranges and is_blob:
            headers = [l for l in headers if not l.lower().startswith(("range:", "if-range:"))]
        up = socket.create_connection(("127.0.0.1", upstream))
        up.sendall(("\r\n".join([lines[0]] + headers + ["Connection: close"]) + "\r\n\r\n").encode("latin-1") + rest)
        sent_body = 0
        header_done = False
        buffered = b""
        while True:
            chunk = up.recv(16384)
            if not chunk:
                break
            if not header_done:
                buffered += chunk
                if b"\r\n\r\n" not in buffered:
                    continue
                h, body = buffered.split(b"\r\n\r\n", 1)
                client.sendall(h + b"\r\n\r\n")
                header_done = True
                chunk = body
            if cut is not None and sent_body + len(chunk) > cut:
                client.sendall(chunk[: cut - sent_body])
                break
            while is_blob and hold_file and os.path.exists(hold_file):
                time.sleep(0.05)
            client.sendall(chunk)
            sent_body += len(chunk)
            if rate:
                time.sleep(len(chunk) / rate)
        up.close()
    except OSError:
        pass
    except Exception:
        # Not a dropped connection: a bug here, which the test's log should show.
        traceback.print_exc(file=sys.stderr)
    finally:
        try:
            client.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        client.close()


server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", 0))
server.listen(16)
print(server.getsockname()[1], flush=True)


def end_with_stdin():
    """Ends the proxy when its standard input ends: the process that started it has gone."""
    while sys.stdin.buffer.read(4096):
        pass
    os._exit(0)


threading.Thread(target=end_with_stdin, daemon=True).start()
while True:
    try:
        c, _ = server.accept()
    except OSError as error:
        print(f"flaky_proxy.py: accept failed: {error}", file=sys.stderr, flush=True)
        time.sleep(0.1)
        continue
    threading.Thread(target=handle, args=(c,), daemon=True).start()
