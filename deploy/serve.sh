#!/usr/bin/env bash
# Serve Attention Lab to a class: N app servers behind nginx, with sticky sessions.
#
#   bash deploy/serve.sh --replicas 2 --port 8080            # then open http://<this machine>:8080
#   bash deploy/serve.sh --replicas 4 --port 80 --host 0.0.0.0
#
# Options:
#   --replicas N            app servers (`streamlit run app.py`), one per core (default 2)
#   --port P                where nginx listens (default 8080)
#   --host ADDR             address nginx listens on (default 0.0.0.0: the classroom network)
#   --first-replica-port Q  replicas on Q, Q+1, ... (default: free loopback ports)
#   --log-dir DIR           where the logs go and stay (default: a new folder per run under
#                           ${XDG_STATE_HOME:-~/.local/state}/attention-lab/, printed at start)
#
# Logs: replica-N.log (each replica's output: one line per event, see deploy/README.md, Logs),
# access.log and error.log (nginx). They stay after the script stops; nothing deletes them.
# Load: each replica answers /metrics (Prometheus text) on its loopback port, printed at start.
#
# Why several servers: Streamlit runs every session's script in threads of one Python process,
# so one server uses about one core however many students it has (benchmarks/README.md,
# "Serving a class": the measured students per core). Each replica holds its own sessions in
# memory (their widgets, their download files under /media/..., their uploads), so nginx must
# send every request of one browser to the same replica: it hashes a cookie it sets on the first
# visit (`attention_lab_replica`, a random id), with `hash ... consistent` so that stopping one
# replica moves only that replica's visitors. Websockets (/_stcore/stream) are passed through
# (HTTP/1.1 Upgrade) and kept open for an hour of idle time.
#
# Class mode (README, "Running a class"): a teacher and the students may sit on different
# replicas, so with more than one replica the classes live in Redis. Unless REDIS_URL is set
# (a Redis of your own), this script starts Debian's redis-server on a free loopback port
# (no snapshots: a class lives for a lecture) and passes REDIS_URL to every replica; without
# redis-server each replica keeps its own classes, and says so here.
#
# All replicas get the same server.cookieSecret ($STREAMLIT_SERVER_COOKIE_SECRET, generated
# here if unset): Streamlit signs its session and login cookies with it, so any replica accepts
# what another one signed.
#
# Runs in the foreground; Ctrl-C or SIGTERM stops nginx and every replica. If one replica exits,
# the others keep serving: nginx sends that replica's visitors to the others (a browser that was
# connected to it reconnects and starts a new session there; the URL keeps its settings).
# nginx runs from a temporary directory (configuration, pid, logs, temp files), never /etc.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-python}"
NGINX="${NGINX:-$(command -v nginx || echo /usr/sbin/nginx)}"
REDIS_SERVER="${REDIS_SERVER:-$(command -v redis-server || echo /usr/bin/redis-server)}"
HEALTH_TIMEOUT_S=90
COOKIE=attention_lab_replica

replicas=2
port=8080
host=0.0.0.0
first_replica_port=""
log_dir=""

usage() { sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
die() { echo "serve.sh: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
  case "$1" in
    --replicas) replicas="${2:?--replicas needs a number}"; shift 2 ;;
    --port) port="${2:?--port needs a number}"; shift 2 ;;
    --host) host="${2:?--host needs an address}"; shift 2 ;;
    --first-replica-port) first_replica_port="${2:?--first-replica-port needs a number}"; shift 2 ;;
    --log-dir) log_dir="${2:?--log-dir needs a folder}"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option: $1" ;;
  esac
done
[[ "$replicas" =~ ^[1-9][0-9]*$ ]] || die "--replicas must be a positive integer, not '$replicas'"
[[ "$port" =~ ^[0-9]+$ ]] && [ "$port" -ge 1 ] && [ "$port" -le 65535 ] \
  || die "--port must be a port number (1-65535), not '$port'"

if [ ! -x "$NGINX" ]; then
  cat >&2 <<EOF
serve.sh: nginx is not installed (looked for \$NGINX, \`nginx\` on PATH and /usr/sbin/nginx).
Install Debian's package:    sudo apt-get install -y nginx
(Its own service can stay stopped: \`sudo systemctl disable --now nginx\`; this script runs
its own nginx with its own configuration in a temporary directory.)
EOF
  exit 3
fi
"$PYTHON" -c "import streamlit" 2>/dev/null \
  || die "$PYTHON cannot import streamlit: pip install -r requirements.txt (or set PYTHON=...)"

workdir="$(mktemp -d -t attention-lab-serve.XXXXXX)"  # nginx's configuration and temp files
chmod 755 "$workdir"  # nginx's workers (user nobody when started as root) read and write in it
log_dir="${log_dir:-${XDG_STATE_HOME:-$HOME/.local/state}/attention-lab/serve-$(date +%Y%m%d-%H%M%S)-$$}"
mkdir -p "$log_dir" || die "cannot create the log folder $log_dir (--log-dir DIR for another)"
log_dir="$(cd "$log_dir" && pwd)"
chmod 755 "$log_dir"  # nginx's workers append to access.log
echo "logs: $log_dir (kept after the script stops)"

# Distinct free loopback ports, asked from the system all at once (so none is handed out twice):
# one per replica and one for redis-server, none of them a given replica port.
given_ports=()
if [ -n "$first_replica_port" ]; then
  for ((i = 0; i < replicas; i++)); do given_ports+=("$((first_replica_port + i))"); done
fi
read -r -a free_ports <<<"$("$PYTHON" - "$((replicas + 1))" "${given_ports[@]}" <<'EOF'
import socket, sys
wanted, given = int(sys.argv[1]), {int(port) for port in sys.argv[2:]}
sockets, ports = [], []
while len(ports) < wanted:  # every socket stays bound until the end: no port comes twice
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    sockets.append(s)
    if s.getsockname()[1] not in given:
        ports.append(s.getsockname()[1])
print(" ".join(map(str, ports)))
EOF
)"
if [ -n "$first_replica_port" ]; then
  replica_ports=("${given_ports[@]}")
else
  replica_ports=("${free_ports[@]:0:$replicas}")
fi
redis_port="${free_ports[$replicas]}"

export STREAMLIT_SERVER_COOKIE_SECRET="${STREAMLIT_SERVER_COOKIE_SECRET:-$("$PYTHON" -c 'import secrets; print(secrets.token_hex(32))')}"
# glibc gives freed memory back after large pages (measured in benchmarks/README.md).
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}" MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-131072}"

replica_pids=()
nginx_pid=""
redis_pid=""
stopping=0

stop_all() {
  stopping=1
  trap - INT TERM
  [ -n "$nginx_pid" ] && kill -TERM "$nginx_pid" 2>/dev/null || true
  for pid in "${replica_pids[@]}" $redis_pid; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${replica_pids[@]}" $nginx_pid $redis_pid; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$workdir"
  echo "logs kept in $log_dir"
}
on_signal() { echo "stopping nginx and the replicas"; stop_all; exit 0; }
trap on_signal INT TERM
trap 'if [ "$stopping" = 0 ]; then stop_all; fi' EXIT

redis_answers() {  # redis_answers PORT: a PING gets +PONG (bash's /dev/tcp, no client needed)
  local reply=""
  { exec 4<>"/dev/tcp/127.0.0.1/$1"; } 2>/dev/null || return 1
  printf 'PING\r\n' >&4
  IFS= read -r -t 2 reply <&4 || true
  exec 4<&-
  [[ "$reply" == "+PONG"* ]]
}
if [ -n "${REDIS_URL:-}" ]; then
  echo "classes: in the Redis of REDIS_URL (set by you)"
elif [ "$replicas" -gt 1 ] && [ -x "$REDIS_SERVER" ]; then
  "$REDIS_SERVER" --port "$redis_port" --bind 127.0.0.1 --save "" --appendonly no \
    --dir "$workdir" --logfile "$log_dir/redis.log" &
  redis_pid=$!
  deadline=$((SECONDS + 30))
  until redis_answers "$redis_port"; do
    kill -0 "$redis_pid" 2>/dev/null || die "redis-server exited (log: $log_dir/redis.log)"
    [ "$SECONDS" -lt "$deadline" ] || die "redis-server did not answer on port $redis_port"
    sleep 0.1
  done
  export REDIS_URL="redis://127.0.0.1:$redis_port/0"
  echo "classes: redis-server on 127.0.0.1:$redis_port (pid $redis_pid), shared by the replicas"
elif [ "$replicas" -gt 1 ]; then
  echo "classes: redis-server is not installed (sudo apt-get install -y redis-server), so each" \
    "replica keeps its own classes: a student on another replica than the teacher's cannot" \
    "follow. Install it, or set REDIS_URL." >&2
fi

for ((i = 0; i < replicas; i++)); do
  replica_port="${replica_ports[$i]}"
  (
    cd "$REPO_ROOT"
    exec "$PYTHON" -m streamlit run app.py \
      --server.address 127.0.0.1 --server.port "$replica_port" \
      --server.headless true --server.fileWatcherType none --browser.gatherUsageStats false
  ) >"$log_dir/replica-$((i + 1)).log" 2>&1 &
  replica_pids+=("$!")
  echo "replica $((i + 1)): http://127.0.0.1:$replica_port (pid $!, log $log_dir/replica-$((i + 1)).log)"
done

healthy() {  # healthy PORT: the replica answers /_stcore/health with "ok"
  # Bash's own /dev/tcp and `read`: no new process per poll (a poll comes every 0.3 s for as
  # long as a replica takes to start, and the machine is busy starting the replicas).
  local reply=""
  { exec 3<>"/dev/tcp/127.0.0.1/$1"; } 2>/dev/null || return 1
  printf 'GET /_stcore/health HTTP/1.0\r\nHost: 127.0.0.1:%s\r\n\r\n' "$1" >&3
  IFS= read -r -t 2 -d '' reply <&3 || true  # until the reply ends (or 2 s)
  exec 3<&-
  [[ "$reply" == "HTTP/1."?" 200 "* && "${reply%$'\n'}" == *$'\r\n\r\nok' ]]
}
for ((i = 0; i < replicas; i++)); do
  deadline=$((SECONDS + HEALTH_TIMEOUT_S))
  until healthy "${replica_ports[$i]}"; do
    if ! kill -0 "${replica_pids[$i]}" 2>/dev/null; then
      cat "$log_dir/replica-$((i + 1)).log" >&2
      die "replica $((i + 1)) exited before it was healthy (log above)"
    fi
    [ "$SECONDS" -lt "$deadline" ] || die "replica $((i + 1)) not healthy after ${HEALTH_TIMEOUT_S} s"
    sleep 0.3
  done
done
# One first run per replica (it imports the pages), so that no student waits for it: one Python
# opens the app on every replica at once.
replica_urls=()
for replica_port in "${replica_ports[@]}"; do replica_urls+=("http://127.0.0.1:$replica_port"); done
(cd "$REPO_ROOT" && "$PYTHON" benchmarks/streamlit_protocol.py "${replica_urls[@]}") \
  || die "a replica did not run the app (above: which; logs: $log_dir/replica-*.log)"

upstream_servers=""
for replica_port in "${replica_ports[@]}"; do
  upstream_servers+="        server 127.0.0.1:$replica_port max_fails=1 fail_timeout=10s;"$'\n'
done

cat >"$workdir/nginx.conf" <<EOF
# Written by deploy/serve.sh for this run only.
worker_processes 1;  # nginx only passes bytes along; the replicas do the work
pid $workdir/nginx.pid;
error_log $log_dir/error.log warn;
daemon off;

events {
    worker_connections 4096;  # two per student (browser side, replica side), plus assets
}

http {
    access_log $log_dir/access.log;
    client_body_temp_path $workdir/client_body;
    proxy_temp_path $workdir/proxy;
    fastcgi_temp_path $workdir/fastcgi;
    uwsgi_temp_path $workdir/uwsgi;
    scgi_temp_path $workdir/scgi;

    # Websockets: pass the browser's Upgrade on to the replica.
    map \$http_upgrade \$connection_upgrade {
        default upgrade;
        ""      close;
    }
    # Sticky sessions: a browser's first request gets a random id as a cookie; every request
    # is routed by that id, so one browser always reaches the same replica.
    map \$cookie_$COOKIE \$sticky_key {
        ""      \$request_id;
        default \$cookie_$COOKIE;
    }
    map \$cookie_$COOKIE \$sticky_set_cookie {
        ""      "$COOKIE=\$request_id; Path=/; HttpOnly; SameSite=Lax";
        default "";
    }

    upstream attention_lab {
        hash \$sticky_key consistent;  # a stopped replica moves only its own visitors
$upstream_servers    }

    server {
        listen $host:$port;
        client_max_body_size 2m;  # uploads: server.maxUploadSize is 1 MB, plus multipart framing

        location = /metrics {  # each replica's own, on its loopback port (printed at start)
            return 404;
        }

        location / {
            proxy_pass http://attention_lab;
            proxy_http_version 1.1;
            proxy_set_header Upgrade \$http_upgrade;
            proxy_set_header Connection \$connection_upgrade;
            proxy_set_header Host \$http_host;  # with the port: Streamlit checks Origin == Host
            proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto \$scheme;
            proxy_connect_timeout 2s;      # a stopped replica is skipped quickly
            proxy_next_upstream error timeout;
            proxy_read_timeout 1h;         # a websocket may be quiet while a student reads
            proxy_send_timeout 1h;
            add_header Set-Cookie \$sticky_set_cookie always;
            add_header X-Attention-Lab-Replica \$upstream_addr always;  # which replica answered
        }
    }
}
EOF

"$NGINX" -t -q -p "$workdir" -c "$workdir/nginx.conf" -e "$log_dir/error.log" \
  || die "nginx rejected the configuration $workdir/nginx.conf (see above)"
"$NGINX" -p "$workdir" -c "$workdir/nginx.conf" -e "$log_dir/error.log" &
nginx_pid=$!
echo "nginx: pid $nginx_pid, configuration $workdir/nginx.conf"
for ((i = 0; i < replicas; i++)); do
  echo "metrics of replica $((i + 1)): http://127.0.0.1:${replica_ports[$i]}/metrics"
done
echo "Attention Lab: http://$host:$port/ ($replicas replicas, sticky sessions). Ctrl-C stops all."

# Stay in the foreground until nginx exits or a signal arrives; report replicas that exit.
live_replicas=("${replica_pids[@]}")
while true; do
  exited=""
  status=0
  wait -n -p exited "$nginx_pid" "${live_replicas[@]}" || status=$?
  [ -n "$exited" ] || continue  # interrupted by a signal: the trap handles it
  if [ "$exited" = "$nginx_pid" ]; then
    nginx_pid=""
    tail -n 20 "$log_dir/error.log" >&2 || true
    echo "serve.sh: nginx exited with code $status; stopping the replicas" >&2
    exit 1
  fi
  still=()
  for pid in "${live_replicas[@]}"; do [ "$pid" = "$exited" ] || still+=("$pid"); done
  live_replicas=("${still[@]}")
  for ((i = 0; i < replicas; i++)); do
    if [ "${replica_pids[$i]}" = "$exited" ]; then
      echo "replica $((i + 1)) (port ${replica_ports[$i]}) exited with code $status;" \
        "nginx sends its visitors to the other ${#live_replicas[@]}" >&2
    fi
  done
  if [ "${#live_replicas[@]}" -eq 0 ]; then
    echo "serve.sh: every replica has exited; stopping nginx" >&2
    exit 1
  fi
done
