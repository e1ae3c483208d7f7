#!/usr/bin/env bash
# Builds Marquee's container image without pulling any base image: a distroless-style root file
# system (the release binary, the shared libraries `ldd` names, CA certificates, a non-root user,
# /data) assembled from this Debian machine, committed with buildah.
#
#   scripts/image.sh                     build the release binary and the image localhost/marquee
#   scripts/image.sh --ffprobe           also ffprobe and its libraries (probe_media_file,
#                                        list_missing_subtitles' stream counts; about +250 MB)
#   scripts/image.sh --binary PATH       pack this binary instead of building one
#   scripts/image.sh --rootfs-only       only the root file system and its tarball (no buildah)
#   scripts/image.sh --run               then start it with podman and ask /readyz and tools/list
#
# The image: user 10001, volume /data (MARQUEE_DATA_DIR), MARQUEE_LISTEN=0.0.0.0:8765,
# MARQUEE_ALLOWED_HOSTS set by env (default: localhost and the loopback addresses; add the
# names clients use), a HEALTHCHECK running `marquee ready` (GET /readyz). Run it with
#   podman run -d -p 8765:8765 -v marquee-data:/data \
#     -e MARQUEE_ALLOWED_HOSTS='["localhost","127.0.0.1","marquee.lan"]' localhost/marquee
# The root file system is cached in $CARGO_TARGET_DIR/image (rebuilt when a Debian package it
# copies from changes); only the binary is copied again on each run.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
if [ -z "${CARGO_TARGET_DIR:-}" ]; then
  if [ -d "$ROOT/../shared-cache/target" ]; then CARGO_TARGET_DIR=$(cd "$ROOT/../shared-cache/target" && pwd)
  else CARGO_TARGET_DIR=$ROOT/target; fi
fi
export CARGO_TARGET_DIR

BINARY="" FFPROBE=0 ROOTFS_ONLY=0 RUN=0 TAG=localhost/marquee
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) BINARY=$2; shift 2 ;;
    --ffprobe) FFPROBE=1; shift ;;
    --rootfs-only) ROOTFS_ONLY=1; shift ;;
    --run) RUN=1; shift ;;
    --tag) TAG=$2; shift 2 ;;
    *) echo "image.sh: unknown option $1 (see the head of this script)" >&2; exit 2 ;;
  esac
done
log() { printf '== %s\n' "$*" >&2; }

if [ -z "$BINARY" ]; then
  log "building the release binary (cargo build --release -p marquee)"
  cargo build --release -p marquee --quiet
  BINARY=$CARGO_TARGET_DIR/release/marquee
fi
[ -x "$BINARY" ] || { echo "image.sh: $BINARY is not an executable" >&2; exit 1; }
VERSION=$("$BINARY" --version | awk '{print $2}')

WORK=$CARGO_TARGET_DIR/image
BASE=$WORK/base-$([ "$FFPROBE" = 1 ] && echo ffprobe || echo plain)
ROOTFS=$WORK/rootfs
mkdir -p "$WORK"

# --- the cached base: libraries, certificates, users ---------------------------------------
programs=("$BINARY")
[ "$FFPROBE" = 1 ] && programs+=(/usr/bin/ffprobe)
libs() { ldd "$@" | awk '/=> \//{print $3} /^[ \t]+\//{print $1}' | sort -u; }
stamp=$( { libs "${programs[@]}" | xargs -r dpkg -S 2>/dev/null | cut -d: -f1 | sort -u \
           | xargs -r dpkg-query -W; dpkg-query -W ca-certificates; \
           [ "$FFPROBE" = 1 ] && dpkg-query -W ffmpeg; sha256sum "$0" | cut -c1-16; } | sha256sum | cut -c1-16)
if [ "$(cat "$BASE/.stamp" 2>/dev/null)" != "$stamp" ]; then
  log "assembling the base root file system in $BASE"
  rm -rf "$BASE"; mkdir -p "$BASE"
  for lib in $(libs "${programs[@]}"); do
    real=$(readlink -f "$lib")
    install -D -m 0755 "$real" "$BASE$lib"
  done
  if [ "$FFPROBE" = 1 ]; then install -D -m 0755 /usr/bin/ffprobe "$BASE/usr/bin/ffprobe"; fi
  install -D -m 0644 /etc/ssl/certs/ca-certificates.crt "$BASE/etc/ssl/certs/ca-certificates.crt"
  mkdir -p "$BASE/etc" "$BASE/data" "$BASE/tmp" "$BASE/usr/local/bin"
  printf 'root:x:0:0:root:/root:/sbin/nologin\nmarquee:x:10001:10001:Marquee:/data:/sbin/nologin\n' > "$BASE/etc/passwd"
  printf 'root:x:0:\nmarquee:x:10001:\n' > "$BASE/etc/group"
  printf 'hosts: files dns\n' > "$BASE/etc/nsswitch.conf"
  chmod 1777 "$BASE/tmp"
  chown 10001:10001 "$BASE/data" 2>/dev/null || true
  chmod 0700 "$BASE/data"
  echo "$stamp" > "$BASE/.stamp"
fi

rm -rf "$ROOTFS"
cp -a "$BASE" "$ROOTFS"
rm -f "$ROOTFS/.stamp"
install -m 0755 "$BINARY" "$ROOTFS/usr/local/bin/marquee"

# --- the root file system works on its own --------------------------------------------------
loader=$(ls "$ROOTFS"/lib64/ld-linux-*.so.* 2>/dev/null | head -1)
run_in_rootfs() { # the program with only the root file system's libraries
  "$loader" --library-path "$ROOTFS/lib/x86_64-linux-gnu:$ROOTFS/usr/lib/x86_64-linux-gnu" "$ROOTFS$1" "${@:2}"
}
got=$(run_in_rootfs /usr/local/bin/marquee --version)
log "root file system: $got"
if [ "$FFPROBE" = 1 ]; then run_in_rootfs /usr/bin/ffprobe -version | head -1 >&2; fi
TARBALL=$WORK/marquee-rootfs-$VERSION.tar
tar --numeric-owner -C "$ROOTFS" -cf "$TARBALL" .
log "root file system: $(du -sh "$ROOTFS" | cut -f1) ($TARBALL)"
if [ "$ROOTFS_ONLY" = 1 ]; then echo "$TARBALL"; exit 0; fi

# --- the image ------------------------------------------------------------------------------
command -v buildah >/dev/null || { echo "image.sh: buildah is not installed (apt-get install buildah); the root file system is $TARBALL" >&2; exit 1; }
export BUILDAH_FORMAT=docker
ctr=$(buildah from scratch)
trap 'buildah rm "$ctr" >/dev/null 2>&1 || true' EXIT
buildah add --quiet "$ctr" "$TARBALL" / >/dev/null
# HEALTHCHECK is a Docker-format field (OCI images have none): committed as docker format.
buildah config \
  --user 10001:10001 \
  --workingdir /data \
  --env PATH=/usr/local/bin:/usr/bin:/bin \
  --env MARQUEE_LISTEN=0.0.0.0:8765 \
  --env MARQUEE_DATA_DIR=/data \
  --env 'MARQUEE_ALLOWED_HOSTS=["localhost","127.0.0.1","[::1]"]' \
  --env SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
  --port 8765 \
  --volume /data \
  --entrypoint '["/usr/local/bin/marquee"]' \
  --cmd serve \
  --healthcheck 'CMD /usr/local/bin/marquee ready' \
  --healthcheck-interval 30s --healthcheck-timeout 5s --healthcheck-start-period 20s \
  --label org.opencontainers.image.title=marquee \
  --label "org.opencontainers.image.version=$VERSION" \
  --label "org.opencontainers.image.revision=$(git -C "$ROOT" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)" \
  "$ctr"
old=$(buildah images --quiet "$TAG:$VERSION" 2>/dev/null | head -1 || true)
buildah commit --quiet --format docker --rm "$ctr" "$TAG:$VERSION" >/dev/null
trap - EXIT
buildah tag "$TAG:$VERSION" "$TAG:latest"
# The image this tag named before, now untagged, goes (runs would otherwise pile them up).
new=$(buildah images --quiet "$TAG:$VERSION" | head -1)
if [ -n "$old" ] && [ "$old" != "$new" ]; then buildah rmi "$old" >/dev/null 2>&1 || true; fi
log "image $TAG:$VERSION ($(buildah images --format '{{.Size}}' "$TAG:$VERSION" | head -1))"

if [ "$RUN" = 1 ]; then
  # Start the image with podman; where this machine refuses containers (crun needs a cgroup
  # layout it supports), start the same root file system under chroot as the image's user,
  # with the image's environment, instead, and say so.
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  name=marquee-image-check-$$
  logs=$WORK/run.log
  if podman run -d --name "$name" -p "127.0.0.1:$port:8765" "$TAG:$VERSION" >/dev/null 2>"$logs"; then
    trap 'podman rm -f -v "$name" >/dev/null 2>&1 || true' EXIT
    how="podman"
    output() { podman logs "$name" 2>&1; }
    ready() { podman healthcheck run "$name" >/dev/null 2>&1; }
  else
    podman rm -f -v "$name" >/dev/null 2>&1 || true
    log "podman cannot run containers here ($(grep -o 'crun: .*' "$logs" | head -1)); running the root file system under chroot instead"
    [ "$(id -u)" = 0 ] || { echo "image.sh: chroot needs root" >&2; exit 1; }
    how="chroot"
    CHROOT=$(command -v chroot)
    env -i MARQUEE_LISTEN="127.0.0.1:$port" MARQUEE_DATA_DIR=/data \
      'MARQUEE_ALLOWED_HOSTS=["localhost","127.0.0.1","[::1]"]' \
      "$CHROOT" --userspec=10001:10001 "$ROOTFS" /usr/local/bin/marquee serve >"$logs" 2>&1 &
    pid=$!
    trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$ROOTFS/data"/*' EXIT
    output() { cat "$logs"; }
    ready() { env -i MARQUEE_LISTEN="127.0.0.1:$port" "$CHROOT" --userspec=10001:10001 "$ROOTFS" /usr/local/bin/marquee ready >/dev/null 2>&1; }
  fi
  for _ in $(seq 1 150); do ready && break; sleep 0.2; done
  ready || { echo "image.sh: the image never answered /readyz" >&2; output >&2; exit 1; }
  log "$how: the health check (marquee ready) passes"
  key=$(output | grep -o 'mq_[A-Za-z0-9_-]*' | head -1)
  [ -n "$key" ] || { echo "image.sh: the image printed no owner key" >&2; output >&2; exit 1; }
  tools=$(curl -fsS "http://127.0.0.1:$port/mcp" -H "Authorization: Bearer $key" \
    -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    -H 'MCP-Protocol-Version: 2025-06-18' \
    -d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' | grep -o '"name":"[a-z_]*"' | wc -l)
  log "$how: the image lists $tools tools over MCP"
  [ "$tools" -gt 0 ]
  if [ "$how" = chroot ]; then
    # Bad input: a /data the image's user cannot write is refused with what to do, exit 1.
    kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
    rm -rf "${ROOTFS:?}/data"/*
    chown 0:0 "$ROOTFS/data"; chmod 0755 "$ROOTFS/data"
    set +e
    said=$(env -i MARQUEE_LISTEN=127.0.0.1:0 MARQUEE_DATA_DIR=/data \
      "$CHROOT" --userspec=10001:10001 "$ROOTFS" /usr/local/bin/marquee serve 2>&1)
    rc=$?
    set -e
    chown 10001:10001 "$ROOTFS/data"; chmod 0700 "$ROOTFS/data"
    if [ "$rc" != 1 ] || ! grep -q "the data folder /data is not writable" <<<"$said"; then
      echo "image.sh: a read-only /data was not refused as it should be (exit $rc): $said" >&2; exit 1
    fi
    log "$how: a /data the image's user cannot write is refused (exit 1)"
  fi
fi
echo "$TAG:$VERSION"
