# Ports, directories and helpers of the highly available layout (issue 43), sourced by the scripts
# beside it. Everything listens on loopback on private ports (the machine's own PostgreSQL, Redis and
# NATS keep theirs) and keeps its data under HA_DIR. HA_PORT_BASE moves every port at once.
HA_DIR=${HA_DIR:-/tmp/eps-ha}
B=${HA_PORT_BASE:-25400}
PG_VERSION=${PG_VERSION:-$(ls /usr/lib/postgresql | sort -n | tail -1)}
PG_BIN=/usr/lib/postgresql/$PG_VERSION/bin

ETCD_CLIENT=($((B + 1)) $((B + 2)) $((B + 3)))
ETCD_PEER=($((B + 11)) $((B + 12)) $((B + 13)))
PG_ENTRY=$((B + 20))         # HAProxy: the current Patroni leader (writes)
PG_ENTRY_READ=$((B + 29))    # HAProxy: a streaming replica (reads that may lag)
PG_PORT=($((B + 21)) $((B + 22)))
PATRONI_REST=($((B + 31)) $((B + 32)))
NATS_CLIENT=($((B + 41)) $((B + 42)) $((B + 43)))
NATS_ROUTE=($((B + 51)) $((B + 52)) $((B + 53)))
NATS_MONITOR=($((B + 61)) $((B + 62)) $((B + 63)))
REDIS_PORT=($((B + 71)) $((B + 72)))
SENTINEL_PORT=($((B + 81)) $((B + 82)) $((B + 83)))
SENTINEL_NAME=${SENTINEL_NAME:-eps-cache}

ETCD_HOSTS=$(printf '127.0.0.1:%s,' "${ETCD_CLIENT[@]}"); ETCD_HOSTS=${ETCD_HOSTS%,}
NATS_URLS=$(printf 'nats://127.0.0.1:%s,' "${NATS_CLIENT[@]}"); NATS_URLS=${NATS_URLS%,}
SENTINELS=$(printf '127.0.0.1:%s,' "${SENTINEL_PORT[@]}"); SENTINELS=${SENTINELS%,}

RUN=$HA_DIR/run
LOGS=$HA_DIR/log
mkdir -p "$RUN" "$LOGS"

# The process whose pid is in $RUN/$1.pid, if it runs.
running() { local f=$RUN/$1.pid; [ -s "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null; }
# Stops the process of $RUN/$1.pid (TERM, then KILL after 10 s).
stop_pid() {
  local f=$RUN/$1.pid pid
  [ -s "$f" ] || return 0
  pid=$(cat "$f")
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$f"
}
# Waits up to $2 s (default 30) for a TCP port on loopback.
wait_port() {
  local port=$1 limit=${2:-30}
  for _ in $(seq 1 $((limit * 10))); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "ha: nothing answers on $port after ${limit}s" >&2
  return 1
}
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
