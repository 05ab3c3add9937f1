#!/usr/bin/env bash
# NATS JetStream as a three-node cluster on loopback; the service's stream is kept at three replicas
# (NATS_STREAM_REPLICAS=3), so losing one node loses no message.
#   ops/ha/nats.sh start [1|2|3]    all nodes, or one (back after a kill: it catches up from the others)
#   ops/ha/nats.sh stop [1|2|3]
set -euo pipefail
. "$(dirname "$0")/env.sh"
routes=
for i in 0 1 2; do routes+="nats-route://127.0.0.1:${NATS_ROUTE[$i]}, "; done
routes=${routes%, }
nodes=(1 2 3)
[ -n "${2:-}" ] && nodes=("$2")
case "${1:-start}" in
start)
  for n in "${nodes[@]}"; do
    i=$((n - 1))
    running "nats$n" && continue
    mkdir -p "$HA_DIR/nats$n"
    cat >"$HA_DIR/nats$n.conf" <<CONF
server_name: n$n
listen: 127.0.0.1:${NATS_CLIENT[$i]}
http: 127.0.0.1:${NATS_MONITOR[$i]}
pid_file: "$RUN/nats$n.pid"
jetstream {
  store_dir: "$HA_DIR/nats$n"
  max_memory_store: 64MB
  max_file_store: 2GB
}
cluster {
  name: eps-ha
  listen: 127.0.0.1:${NATS_ROUTE[$i]}
  routes: [$routes]
}
CONF
    nohup nats-server -c "$HA_DIR/nats$n.conf" >>"$LOGS/nats$n.log" 2>&1 &
    echo $! >"$RUN/nats$n.pid"
  done
  for n in "${nodes[@]}"; do wait_port "${NATS_CLIENT[$((n - 1))]}" 60; done
  # JetStream is ready once the cluster has a meta leader.
  for _ in $(seq 1 300); do
    curl -s "http://127.0.0.1:${NATS_MONITOR[$((nodes[0] - 1))]}/jsz" | grep -q '"leader"' && break
    sleep 0.1
  done
  echo "nats: $NATS_URLS"
  ;;
stop) for n in "${nodes[@]}"; do stop_pid "nats$n"; done ;;
*) echo "usage: $0 start|stop [1|2|3]" >&2; exit 2 ;;
esac
