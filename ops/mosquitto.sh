#!/usr/bin/env bash
# The project's own Mosquitto for device MQTT (issue 40, docs/devices.md): a broker on 127.0.0.1
# with the dynamic security plugin, so the service keeps its clients in step with the device
# credentials. Idempotent: does nothing when the broker already answers. The system broker on
# 1883 is left alone.
#
#   ops/mosquitto.sh          make it (or start it) and print its URL
#   ops/mosquitto.sh stop     stop it (the data directory stays)
#
# MQTT_PORT (default 1884), MQTT_DIR (default /tmp/eps-mosquitto-<port>), MQTT_ADMIN_USERNAME and
# MQTT_ADMIN_PASSWORD (the dynamic security administrator the service signs in as; defaults for
# development and tests only).
set -euo pipefail

PORT=${MQTT_PORT:-1884}
DIR=${MQTT_DIR:-/tmp/eps-mosquitto-$PORT}
ADMIN=${MQTT_ADMIN_USERNAME:-eps-admin}
PASSWORD=${MQTT_ADMIN_PASSWORD:-eps-dev-admin-password}
PLUGIN=$(dpkg -L mosquitto 2>/dev/null | grep -m1 'mosquitto_dynamic_security.so$' || true)
up() { (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; }

if [ "${1:-}" = stop ]; then
  if [ -f "$DIR/mosquitto.pid" ]; then kill "$(cat "$DIR/mosquitto.pid")" 2>/dev/null || true; fi
  exit 0
fi
command -v mosquitto >/dev/null || { echo "mosquitto is not installed (apt-get install mosquitto mosquitto-clients)" >&2; exit 1; }
[ -n "$PLUGIN" ] || { echo "mosquitto_dynamic_security.so not found (dpkg -L mosquitto)" >&2; exit 1; }
if up; then echo "mqtt://127.0.0.1:$PORT"; exit 0; fi

mkdir -p "$DIR"
if [ ! -f "$DIR/dynamic-security.json" ]; then
  mosquitto_ctrl dynsec init "$DIR/dynamic-security.json" "$ADMIN" "$PASSWORD" >/dev/null
fi
cat > "$DIR/mosquitto.conf" <<CONF
listener $PORT 127.0.0.1
allow_anonymous false
per_listener_settings false
persistence true
persistence_location $DIR/
pid_file $DIR/mosquitto.pid
log_dest file $DIR/mosquitto.log
max_packet_size 262144
# The consumer's session queues every device's messages while it is away (a restart, a kill):
# Mosquitto's default of 1000 queued per client would drop the rest (decision 0377).
max_queued_messages 1000000
plugin $PLUGIN
plugin_opt_config_file $DIR/dynamic-security.json
CONF
# Started as root, Mosquitto drops to its own user, which must own its directory.
if [ "$(id -u)" = 0 ] && id mosquitto >/dev/null 2>&1; then chown -R mosquitto "$DIR"; fi
mosquitto -d -c "$DIR/mosquitto.conf"
for _ in $(seq 30); do
  if up; then echo "mqtt://127.0.0.1:$PORT"; exit 0; fi
  sleep 0.2
done
echo "mosquitto did not start: see $DIR/mosquitto.log" >&2
exit 1
