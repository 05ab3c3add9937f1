#!/usr/bin/env bash
# Redis with Sentinel: a primary, a replica and three sentinels on loopback. The service finds the
# primary through the sentinels (REDIS_SENTINELS, REDIS_SENTINEL_NAME) and follows a failover.
#   ops/ha/redis.sh start                every server
#   ops/ha/redis.sh start redis1|redis2|sentinel1|sentinel2|sentinel3   one (back after a kill)
#   ops/ha/redis.sh stop [name]
#   ops/ha/redis.sh primary              the primary's port, as the sentinels say
set -euo pipefail
. "$(dirname "$0")/env.sh"
all=(redis1 redis2 sentinel1 sentinel2 sentinel3)
names=("${all[@]}")
[ -n "${2:-}" ] && names=("$2")

primary() { redis-cli -p "${SENTINEL_PORT[0]}" sentinel get-master-addr-by-name "$SENTINEL_NAME" 2>/dev/null | sed -n 2p; }

start_one() {
  local name=$1 n=${1: -1} i conf
  i=$((n - 1))
  running "$name" && return 0
  conf=$HA_DIR/$name.conf
  case $name in
  redis*)
    # The config is written once: Sentinel rewrites a server's replicaof when it moves the primary,
    # so a server brought back rejoins as whatever the sentinels made it.
    if [ ! -e "$conf" ]; then
      mkdir -p "$HA_DIR/$name"
      {
        echo "port ${REDIS_PORT[$i]}"
        echo "bind 127.0.0.1"
        echo "dir $HA_DIR/$name"
        echo "appendonly yes"
        echo "save \"\""
        [ "$n" = 2 ] && echo "replicaof 127.0.0.1 ${REDIS_PORT[0]}"
      } >"$conf"
    fi
    redis-server "$conf" --daemonize yes --pidfile "$RUN/$name.pid" --logfile "$LOGS/$name.log"
    wait_port "${REDIS_PORT[$i]}"
    ;;
  sentinel*)
    if [ ! -e "$conf" ]; then
      cat >"$conf" <<CONF
port ${SENTINEL_PORT[$i]}
bind 127.0.0.1
dir $HA_DIR
sentinel monitor $SENTINEL_NAME 127.0.0.1 ${REDIS_PORT[0]} 2
sentinel down-after-milliseconds $SENTINEL_NAME 2000
sentinel failover-timeout $SENTINEL_NAME 10000
sentinel parallel-syncs $SENTINEL_NAME 1
CONF
    fi
    redis-sentinel "$conf" --daemonize yes --pidfile "$RUN/$name.pid" --logfile "$LOGS/$name.log"
    wait_port "${SENTINEL_PORT[$i]}"
    ;;
  esac
}

case "${1:-start}" in
start)
  for name in "${names[@]}"; do start_one "$name"; done
  echo "redis: sentinels $SENTINELS name $SENTINEL_NAME, primary on $(primary | tr -d '\n' || true)"
  ;;
stop) for name in "${names[@]}"; do stop_pid "$name"; done ;;
primary) primary ;;
*) echo "usage: $0 start|stop [name] | primary" >&2; exit 2 ;;
esac
