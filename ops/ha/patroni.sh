#!/usr/bin/env bash
# PostgreSQL with automatic failover: two members managed by Patroni over the etcd of etcd.sh
# (start that first), synchronous_mode on (a commit is acknowledged once it is on both servers while
# both are up), and HAProxy in front checking Patroni's REST API: PG_ENTRY goes to the leader only,
# PG_ENTRY_READ to a replica. Loopback only, trust authentication: a test layout, not a production one
# (docs/scaling.md says what changes there).
#   ops/ha/patroni.sh start [1|2]   both members and the entry, or one member (back after a kill)
#   ops/ha/patroni.sh stop [1|2]
#   ops/ha/patroni.sh leader        prints the leader's member number
set -euo pipefail
. "$(dirname "$0")/env.sh"
members=(1 2)
[ -n "${2:-}" ] && members=("$2")

config() {
  local m=$1 i=$(($1 - 1))
  cat <<YAML
scope: eps-ha
name: pg$m
restapi:
  listen: 127.0.0.1:${PATRONI_REST[$i]}
  connect_address: 127.0.0.1:${PATRONI_REST[$i]}
etcd3:
  hosts: $ETCD_HOSTS
bootstrap:
  dcs:
    # A leader that stops renewing its lock for 10 s is replaced; loop_wait + 2 * retry_timeout <= ttl.
    ttl: 10
    loop_wait: 2
    retry_timeout: 4
    maximum_lag_on_failover: 1048576
    synchronous_mode: true
    postgresql:
      use_pg_rewind: true
      use_slots: true
      parameters:
        wal_level: replica
        hot_standby: "on"
        wal_log_hints: "on"
        max_wal_senders: 10
        max_replication_slots: 10
        max_connections: 200
        wal_keep_size: 256MB
  initdb:
    - encoding: UTF8
    - data-checksums
  pg_hba:
    - host all all 127.0.0.1/32 trust
    - host replication all 127.0.0.1/32 trust
postgresql:
  listen: 127.0.0.1:${PG_PORT[$i]}
  connect_address: 127.0.0.1:${PG_PORT[$i]}
  data_dir: $HA_DIR/pg$m
  bin_dir: $PG_BIN
  pgpass: $HA_DIR/pgpass$m
  remove_data_directory_on_rewind_failure: true
  remove_data_directory_on_diverged_timelines: true
  authentication:
    superuser:
      username: postgres
    replication:
      username: postgres
    rewind:
      username: postgres
  parameters:
    unix_socket_directories: $HA_DIR/run
tags:
  nofailover: false
  noloadbalance: false
YAML
}

haproxy_config() {
  cat <<CFG
global
  maxconn 400
  pidfile $RUN/haproxy-pg.pid
defaults
  mode tcp
  timeout connect 2s
  timeout client 30m
  timeout server 30m
  timeout check 2s
  default-server inter 1s fall 2 rise 2 on-marked-down shutdown-sessions
listen pg_leader
  bind 127.0.0.1:$PG_ENTRY
  option httpchk GET /primary
  http-check expect status 200
  server pg1 127.0.0.1:${PG_PORT[0]} check port ${PATRONI_REST[0]}
  server pg2 127.0.0.1:${PG_PORT[1]} check port ${PATRONI_REST[1]}
listen pg_replica
  bind 127.0.0.1:$PG_ENTRY_READ
  option httpchk GET /replica
  http-check expect status 200
  server pg1 127.0.0.1:${PG_PORT[0]} check port ${PATRONI_REST[0]}
  server pg2 127.0.0.1:${PG_PORT[1]} check port ${PATRONI_REST[1]}
CFG
}

leader() {
  for i in 0 1; do
    if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:${PATRONI_REST[$i]}/primary")" = 200 ]; then echo $((i + 1)); return 0; fi
  done
  return 1
}

case "${1:-start}" in
start)
  chown postgres "$HA_DIR" "$RUN" "$LOGS" 2>/dev/null || true
  if ! as_postgres test -w "$HA_DIR"; then
    echo "patroni: the postgres user cannot write $HA_DIR (a parent directory closed to it?)" >&2
    exit 1
  fi
  for m in "${members[@]}"; do
    running "patroni$m" && continue
    config "$m" >"$HA_DIR/patroni$m.yml"
    touch "$LOGS/patroni$m.log"
    chown postgres "$HA_DIR/patroni$m.yml" "$LOGS/patroni$m.log" 2>/dev/null || true
    as_postgres bash -c "nohup patroni '$HA_DIR/patroni$m.yml' >>'$LOGS/patroni$m.log' 2>&1 & echo \$! >'$RUN/patroni$m.pid'"
  done
  if [ ${#members[@]} -eq 2 ] && ! running haproxy-pg; then
    haproxy_config >"$HA_DIR/haproxy-pg.cfg"
    haproxy -D -f "$HA_DIR/haproxy-pg.cfg"
  fi
  # The cluster is up once a leader answers through the entry.
  for _ in $(seq 1 600); do
    if psql -h 127.0.0.1 -p "$PG_ENTRY" -U postgres -Atc 'select not pg_is_in_recovery()' 2>/dev/null | grep -q t; then break; fi
    sleep 0.1
  done
  psql -h 127.0.0.1 -p "$PG_ENTRY" -U postgres -Atc 'select 1' >/dev/null
  echo "postgres: leader pg$(leader), entry postgres://postgres@127.0.0.1:$PG_ENTRY, reads postgres://postgres@127.0.0.1:$PG_ENTRY_READ"
  ;;
stop)
  for m in "${members[@]}"; do
    stop_pid "patroni$m"
    # A postgres left by a Patroni that was killed.
    [ -s "$HA_DIR/pg$m/postmaster.pid" ] && as_postgres "$PG_BIN/pg_ctl" -D "$HA_DIR/pg$m" -m immediate stop >/dev/null 2>&1 || true
  done
  [ ${#members[@]} -eq 2 ] && stop_pid haproxy-pg
  ;;
leader) leader ;;
*) echo "usage: $0 start|stop [1|2] | leader" >&2; exit 2 ;;
esac
