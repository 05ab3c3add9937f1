#!/usr/bin/env bash
# The whole highly available layout (docs/scaling.md): installs what is missing, then starts etcd,
# Patroni + HAProxy, the NATS cluster and Redis with Sentinel, and prints the service's settings.
#   ops/ha/up.sh      (ops/ha/down.sh stops everything; HA_DIR keeps the data until removed)
set -euo pipefail
here=$(dirname "$0")
bash "$here/install.sh"
bash "$here/etcd.sh" start
bash "$here/patroni.sh" start
bash "$here/nats.sh" start
bash "$here/redis.sh" start
. "$here/env.sh"
cat <<ENV
DATABASE_URL=postgres://postgres@127.0.0.1:$PG_ENTRY/postgres
DATABASE_READ_URL=postgres://postgres@127.0.0.1:$PG_ENTRY_READ/postgres
NATS_URL=$NATS_URLS
NATS_STREAM_REPLICAS=3
REDIS_SENTINELS=$SENTINELS
REDIS_SENTINEL_NAME=$SENTINEL_NAME
ENV
