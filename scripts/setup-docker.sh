#!/usr/bin/env bash
# Gets a Docker engine ready for the container tests on a fresh Debian machine (CI or a developer's):
#   1. installs Debian's docker.io engine and docker-compose (v1) when they are missing (needs root),
#   2. starts dockerd in the background when no engine answers, and waits for it,
#   3. builds the local stand-in for the Node base image (no image registry is reachable here).
# Every step is skipped when its result is already there, so running it twice is cheap.
set -euo pipefail
cd "$(dirname "$0")/.."

log_dir="${DOCKER_SETUP_LOG_DIR:-/tmp}"

if ! command -v dockerd >/dev/null || ! command -v docker-compose >/dev/null; then
  echo "installing docker.io and docker-compose"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >"$log_dir/apt-get-update.log" 2>&1
  apt-get install -y -qq --no-install-recommends docker.io docker-compose >"$log_dir/apt-get-install.log" 2>&1 \
    || { tail -20 "$log_dir/apt-get-install.log"; exit 1; }
fi

if ! docker info >/dev/null 2>&1; then
  echo "starting dockerd (log: $log_dir/dockerd.log)"
  nohup dockerd >"$log_dir/dockerd.log" 2>&1 &
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && break
    sleep 1
  done
  docker info >/dev/null 2>&1 || { echo "dockerd did not answer within 60 s"; tail -20 "$log_dir/dockerd.log"; exit 1; }
fi
echo "docker engine $(docker version --format '{{.Server.Version}}') is up"

scripts/build-node-standin.sh "${NODE_IMAGE:-local/node:standin}"
scripts/build-redis-standin.sh "${REDIS_IMAGE:-local/redis:standin}"
