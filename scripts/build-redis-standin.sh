#!/usr/bin/env bash
# Builds a local stand-in for the official Redis image where no image registry can be reached: Debian's
# redis-server (installed with apt-get when missing), the shared libraries it links and a `redis` user,
# imported as an image. docker-compose.yml uses it with REDIS_IMAGE=local/redis:standin; anywhere a
# registry is reachable, the default (redis:7-bookworm) is pulled instead.
#
# Idempotent: does nothing when the image exists and carries this recipe's label (scripts/standin-image.sh:
# this script and the redis-server version); an image that only has the tag is rebuilt. STANDIN_REBUILD=1
# rebuilds in any case.
# Usage: scripts/build-redis-standin.sh [image-tag]   (default: local/redis:standin)
set -euo pipefail
. "$(dirname "$0")/standin-image.sh"

image="${1:-${REDIS_IMAGE:-local/redis:standin}}"

if [[ ! -x /usr/bin/redis-server ]]; then
  echo "installing redis-server"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends redis-server >/dev/null
fi
recipe="$(standin_recipe "$0" "$(/usr/bin/redis-server --version)")"

if [[ "${STANDIN_REBUILD:-0}" != 1 ]] && standin_current "$image" "$recipe"; then
  echo "stand-in Redis image $image already present (recipe $recipe)"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"
mkdir -p "$rootfs"/{usr/bin,usr/lib/x86_64-linux-gnu,usr/lib64,etc,data,tmp,proc,sys,dev,run}
ln -s usr/bin "$rootfs/bin"
ln -s usr/lib "$rootfs/lib"
ln -s usr/lib64 "$rootfs/lib64"
chmod 1777 "$rootfs/tmp"

install -m 0755 "$(readlink -f /usr/bin/redis-server)" "$rootfs/usr/bin/redis-server"
ldd /usr/bin/redis-server | grep -oE '/[^ ]+' | while read -r lib; do
  dest="$rootfs/usr/${lib#/}"
  [[ "$lib" == /usr/* ]] && dest="$rootfs$lib"
  mkdir -p "$(dirname "$dest")"
  [[ -e "$dest" ]] || cp -L "$lib" "$dest"
done
printf 'root:x:0:0:root:/root:/bin/false\nredis:x:999:999::/data:/bin/false\n' >"$rootfs/etc/passwd"
printf 'root:x:0:\nredis:x:999:\n' >"$rootfs/etc/group"
chown 999:999 "$rootfs/data"

tar -C "$rootfs" --numeric-owner -c . | docker import \
  -c 'ENV PATH=/usr/bin' \
  -c 'WORKDIR /data' \
  -c 'USER 999:999' \
  -c 'EXPOSE 6379' \
  -c 'CMD ["redis-server"]' \
  -c "LABEL $STANDIN_LABEL=$recipe" \
  -m "stand-in for redis:7-bookworm ($(/usr/bin/redis-server --version | grep -oE 'v=[0-9.]+'))" - "$image" >/dev/null
docker run --rm --network none "$image" redis-server --version
