#!/usr/bin/env bash
# Three etcd members (Patroni's distributed configuration store) on loopback.
#   ops/ha/etcd.sh start [1|2|3]    all members, or one (again after a kill: it rejoins with its data)
#   ops/ha/etcd.sh stop [1|2|3]
set -euo pipefail
. "$(dirname "$0")/env.sh"
cluster=
for i in 0 1 2; do cluster+="e$((i + 1))=http://127.0.0.1:${ETCD_PEER[$i]},"; done
cluster=${cluster%,}
members=(1 2 3)
[ -n "${2:-}" ] && members=("$2")
case "${1:-start}" in
start)
  for m in "${members[@]}"; do
    i=$((m - 1))
    running "etcd$m" && continue
    # Timings for a small, busy machine: a heartbeat every 200 ms, an election after 2 s without one.
    nohup etcd --name "e$m" --data-dir "$HA_DIR/etcd$m" \
      --listen-client-urls "http://127.0.0.1:${ETCD_CLIENT[$i]}" --advertise-client-urls "http://127.0.0.1:${ETCD_CLIENT[$i]}" \
      --listen-peer-urls "http://127.0.0.1:${ETCD_PEER[$i]}" --initial-advertise-peer-urls "http://127.0.0.1:${ETCD_PEER[$i]}" \
      --initial-cluster "$cluster" --initial-cluster-state new --initial-cluster-token eps-ha \
      --heartbeat-interval 200 --election-timeout 2000 --enable-v2=false \
      >>"$LOGS/etcd$m.log" 2>&1 &
    echo $! >"$RUN/etcd$m.pid"
  done
  for m in "${members[@]}"; do wait_port "${ETCD_CLIENT[$((m - 1))]}"; done
  echo "etcd: $ETCD_HOSTS"
  ;;
stop) for m in "${members[@]}"; do stop_pid "etcd$m"; done ;;
*) echo "usage: $0 start|stop [1|2|3]" >&2; exit 2 ;;
esac
