#!/usr/bin/env bash
# A PostgreSQL hot standby of the local primary, for the read-replica tests and the cluster bench
# (docs/scaling.md). Idempotent: does nothing when the standby already answers in recovery.
#
#   ops/replica.sh            make it (or start it) and print its URL base
#   ops/replica.sh stop       stop it (the data directory and the slot stay, so it resumes)
#   ops/replica.sh remove     stop it, drop its slot and its data directory (the next run makes it anew)
#
# A stopped standby's slot keeps the xmin it last reported (hot_standby_feedback), so while it is
# down the primary's vacuum cannot remove rows that died after that point: `stop` says so; use
# `remove` when the standby will not be back soon.
# What it changes on the primary, once: a `host replication` line in pg_hba.conf (a reload, no
# restart), a physical replication slot (so the standby never misses WAL while it is down) and a
# cap on what that slot may keep (max_slot_wal_keep_size, a reload), so a standby left stopped cannot
# fill the disk. wal_level must already be `replica` or higher (Debian's default): changing it
# needs a restart of the shared server, which this script refuses to do on its own.
set -euo pipefail

PRIMARY_PORT=${PRIMARY_PORT:-5432}
REPLICA_PORT=${REPLICA_PORT:-5433}
VERSION=${PG_VERSION:-$(ls /etc/postgresql | sort -n | tail -1)}
BIN=/usr/lib/postgresql/$VERSION/bin
DIR=${REPLICA_DIR:-/var/lib/postgresql/$VERSION/replica-$REPLICA_PORT}
SLOT=${REPLICA_SLOT:-eps_replica_$REPLICA_PORT}
HBA=$(psql -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -Atc 'show hba_file')
as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
psql_p() { psql -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -v ON_ERROR_STOP=1 -Atc "$1"; }
standby_up() { [ "$(psql -h 127.0.0.1 -p "$REPLICA_PORT" -U postgres -Atc 'select pg_is_in_recovery()' 2>/dev/null)" = t ]; }

if [ "${1:-}" = stop ] || [ "${1:-}" = remove ]; then
  as_pg "$BIN/pg_ctl" -D "$DIR" -m fast stop || true
  if [ "$1" = remove ]; then
    psql_p "select pg_drop_replication_slot('$SLOT') from pg_replication_slots where slot_name = '$SLOT' and not active" >/dev/null
    rm -rf "$DIR"
    echo "replica: removed (slot $SLOT dropped, $DIR deleted)"
  elif [ -n "$(psql_p "select 1 from pg_replication_slots where slot_name = '$SLOT' and xmin is not null")" ]; then
    echo "replica: stopped; its slot $SLOT holds back the primary's vacuum until it is started again (or: ops/replica.sh remove)"
  fi
  exit 0
fi

if standby_up; then echo "replica: up on $REPLICA_PORT"; exit 0; fi

level=$(psql_p 'show wal_level')
if [ "$level" = minimal ]; then
  echo "replica: the primary runs wal_level=minimal; set wal_level=replica and restart it first" >&2
  exit 1
fi

# Replication connections from loopback (the `all` database keyword does not cover them).
if ! grep -Eq '^\s*host\s+replication\s+all\s+127\.0\.0\.1/32' "$HBA"; then
  echo "host replication all 127.0.0.1/32 trust" >>"$HBA"
  psql_p 'select pg_reload_conf()' >/dev/null
  echo "replica: replication connections allowed in $HBA (reloaded)"
fi
if [ "$(psql_p 'show max_slot_wal_keep_size')" = "-1" ]; then
  psql_p "alter system set max_slot_wal_keep_size = '2GB'" >/dev/null
  psql_p 'select pg_reload_conf()' >/dev/null
fi

if [ ! -f "$DIR/standby.signal" ]; then
  rm -rf "$DIR"
  install -d -m 700 "$DIR"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$DIR"
  psql_p "select pg_drop_replication_slot('$SLOT') from pg_replication_slots where slot_name = '$SLOT' and not active" >/dev/null
  slot_exists=$(psql_p "select count(*) from pg_replication_slots where slot_name = '$SLOT'")
  create=(-C); [ "$slot_exists" = 1 ] && create=()
  echo "replica: pg_basebackup into $DIR"
  as_pg "$BIN/pg_basebackup" -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -D "$DIR" -R -X stream -c fast "${create[@]}" -S "$SLOT"
  # Debian keeps the configuration in /etc, outside the data directory: the standby gets its own.
  primary_conns=$(psql_p 'show max_connections')
  as_pg tee "$DIR/postgresql.conf" >/dev/null <<EOF
port = $REPLICA_PORT
listen_addresses = '127.0.0.1'
unix_socket_directories = '/var/run/postgresql'
max_connections = $primary_conns
shared_buffers = 64MB
hot_standby = on
hot_standby_feedback = on
max_standby_streaming_delay = 5s
timezone = 'Etc/UTC'
log_timezone = 'Etc/UTC'
datestyle = 'iso, mdy'
lc_messages = 'C.UTF-8'
EOF
  as_pg tee "$DIR/pg_hba.conf" >/dev/null <<EOF
local all all trust
host all all 127.0.0.1/32 trust
EOF
  as_pg tee "$DIR/pg_ident.conf" >/dev/null </dev/null
fi

as_pg "$BIN/pg_ctl" -D "$DIR" -l "$DIR/standby.log" -w -t 60 start >/dev/null
for _ in $(seq 60); do
  if standby_up; then echo "replica: up on $REPLICA_PORT"; exit 0; fi
  sleep 1
done
echo "replica: did not come up; see $DIR/standby.log" >&2
exit 1
