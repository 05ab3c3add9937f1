#!/usr/bin/env bash
# Builds the container image from the release and checks what of it can be checked on a machine
# that cannot run containers (issue 42; docs/running.md says what was run):
#   1. a Debian base made with mmdebstrap (minbase + bash) and `podman import`;
#   2. `podman build --isolation=chroot --format docker` of ops/release/Containerfile on it;
#   3. the image's own settings (user, volume, healthcheck, entrypoint) read back with podman inspect;
#   4. the image's filesystem exported and run with chroot as its user (uid 10001), its environment
#      and working directory as the image sets them: the HEALTHCHECK command must pass, a sign-in,
#      an ingestion and a read-back must work, SIGTERM must stop it.
# Needs root, podman and mmdebstrap (apt-get install podman mmdebstrap uidmap) and a release in
# dist/release (npm run release). Usage: bash ops/release/image-check.sh [suite, default bookworm]
set -euo pipefail
cd "$(dirname "$0")/../.."
SUITE=${1:-bookworm}
VERSION=$(node -p 'require("./package.json").version')
REL=energy-platform-${VERSION}-linux-x64
WORK=$(mktemp -d /tmp/eps-image.XXXXXX)
PORT=${IMAGE_CHECK_PORT:-18080}
# Nothing of the host is bind-mounted into the image's tree (its /dev gets its own device nodes), and
# the tree is removed only once its /proc is unmounted: removing a tree with a live mount inside it
# would delete through the mount.
cleanup() {
  pkill -KILL -f "$WORK/rootfs/opt/energy-platform/energy-platform" 2>/dev/null || true
  for i in $(seq 1 20); do pgrep -f "$WORK/rootfs/opt/energy-platform/energy-platform" >/dev/null || break; sleep 0.25; done
  if mountpoint -q "$WORK/rootfs/proc"; then umount "$WORK/rootfs/proc" || umount -l "$WORK/rootfs/proc" || true; fi
  if grep -qF "$WORK/" /proc/mounts; then
    echo "left $WORK in place: something is still mounted under it" >&2
  else
    rm -rf --one-file-system "$WORK"
  fi
}
trap cleanup EXIT
[ -d "dist/release/$REL" ] || { echo "no dist/release/$REL: run npm run release first" >&2; exit 1; }
for c in podman mmdebstrap; do command -v $c >/dev/null || { echo "needs $c (apt-get install podman mmdebstrap uidmap)" >&2; exit 1; }; done

t=$(date +%s)
echo "== base: mmdebstrap --variant=minbase --include=bash $SUITE"
mmdebstrap --quiet --variant=minbase --include=bash "$SUITE" "$WORK/base.tar"
podman import --quiet "$WORK/base.tar" "localhost/eps-base:$SUITE" >/dev/null
echo "== image: podman build --isolation=chroot"
podman build --quiet --isolation=chroot --format docker --build-arg "BASE=localhost/eps-base:$SUITE" --build-arg "RELEASE=$REL" \
  -f ops/release/Containerfile -t "localhost/energy-platform:$VERSION" dist/release >/dev/null
echo "   built in $(( $(date +%s) - t )) s; $(podman images --format '{{.Repository}}:{{.Tag}} {{.Size}}' "localhost/energy-platform:$VERSION")"

echo "== the image's settings"
cfg=$(podman inspect --type image "localhost/energy-platform:$VERSION")
for want in '"User": "energy-platform"' '"/var/lib/energy-platform/data": {}' '"/opt/energy-platform/energy-platform"' 'api/telemetry/readyz'; do
  grep -qF "$want" <<<"$cfg" || { echo "FAIL: image config lacks $want" >&2; exit 1; }
done
echo "   user energy-platform, volume /var/lib/energy-platform/data, entrypoint, healthcheck: OK"

echo "== its filesystem, run with chroot as uid 10001"
R=$WORK/rootfs; mkdir -p "$R"
cid=$(podman create "localhost/energy-platform:$VERSION"); podman export "$cid" | tar -x -C "$R"; podman rm "$cid" >/dev/null
mount -t proc proc "$R/proc"
mkdir -p "$R/dev"
for n in "null 1 3" "zero 1 5" "random 1 8" "urandom 1 9"; do set -- $n; rm -f "$R/dev/$1"; mknod -m 666 "$R/dev/$1" c "$2" "$3"; done
ln -sfn /proc/self/fd "$R/dev/fd"
GID=$(awk -F: '$1=="energy-platform"{print $4}' "$R/etc/passwd")
t=$(date +%s%N)
(cd / && env -i PATH=/usr/local/bin:/usr/bin:/bin DATA_DIR=/var/lib/energy-platform/data HOST=127.0.0.1 PORT=$PORT HOME=/var/lib/energy-platform \
  /usr/sbin/chroot --userspec="10001:$GID" "$R" /bin/bash -c 'cd /var/lib/energy-platform && exec /opt/energy-platform/energy-platform serve' \
  >"$WORK/serve.log" 2>&1 &)
health() { /usr/sbin/chroot --userspec="10001:$GID" "$R" bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT && printf 'GET /api/telemetry/readyz HTTP/1.0\r\nHost: localhost\r\n\r\n' >&3 && head -n1 <&3 | grep -q ' 200 '" 2>/dev/null; }
for i in $(seq 1 240); do health && break; sleep 0.5; done
health || { echo "FAIL: the HEALTHCHECK command never passed"; tail -20 "$WORK/serve.log"; exit 1; }
echo "   HEALTHCHECK command passes after $(( ($(date +%s%N) - t) / 1000000 )) ms"
B=http://127.0.0.1:$PORT
TOKEN=$(curl -sf "$B/api/auth/login" -H 'content-type: application/json' -d '{"email":"admin@demo-energy.example","password":"demo-admin-password"}' | node -p 'JSON.parse(require("fs").readFileSync(0)).access_token')
NOW=$(date -u +%s)
RECS=$(node -e "const n=$NOW*1000;console.log(JSON.stringify([0,1,2].map(i=>({asset_id:'image-meter-1',ts:new Date(n-(3-i)*60000).toISOString(),power_kw:1.5+i}))))")
curl -sf "$B/api/telemetry/ingest" -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' -d "$RECS" | grep -q '"stored":3' || { echo "FAIL: ingest"; exit 1; }
curl -sf "$B/api/telemetry/assets/smart-meter/image-meter-1/history?range=live&metric=import" -H "authorization: Bearer $TOKEN" | grep -q '"count":3' || { echo "FAIL: read-back"; exit 1; }
owner=$(stat -c %u "$R/var/lib/energy-platform/data/PG_VERSION")
[ "$owner" = 10001 ] || { echo "FAIL: data owned by $owner"; exit 1; }
echo "   sign-in, 3 records ingested and read back, data directory owned by uid 10001: OK"
pkill -TERM -f "$R/opt/energy-platform/energy-platform" || true
for i in $(seq 1 80); do pgrep -f "$R/opt/energy-platform/energy-platform" >/dev/null || break; sleep 0.5; done
! pgrep -f "$R/opt/energy-platform/energy-platform" >/dev/null || { echo "FAIL: still running 40 s after SIGTERM"; exit 1; }
echo "   stopped on SIGTERM"
echo "image check: OK (not run: the container runtime itself; see docs/running.md)"
