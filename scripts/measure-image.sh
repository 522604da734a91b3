#!/usr/bin/env bash
# Measures the service image: its size, and the cold start from `docker run` to the first 200 on /healthz
# (read-only root, tmpfs /tmp, as in production), over several runs.
# Usage: scripts/measure-image.sh [image] [runs]   (default: catalog-search:test, 5 runs)
set -euo pipefail

image="${1:-catalog-search:test}"
runs="${2:-5}"
size_bytes="$(docker image inspect --format '{{.Size}}' "$image")"
echo "image $image: $((size_bytes / 1000 / 1000)) MB ($size_bytes bytes)"

secret="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
timings=()
for run in $(seq 1 "$runs"); do
  port=$((20000 + RANDOM % 20000))
  start_ns="$(date +%s%N)"
  id="$(docker run --detach --read-only --tmpfs /tmp --cap-drop ALL -e AUTH_JWT_SECRET="$secret" \
    -p "127.0.0.1:$port:8080" "$image")"
  ready=""
  for _ in $(seq 1 3000); do
    if curl --silent --fail --max-time 1 "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; then
      ready="$(date +%s%N)"
      break
    fi
    sleep 0.01
  done
  docker rm --force "$id" >/dev/null
  [[ -n "$ready" ]] || { echo "run $run: no 200 on /healthz within the time limit"; exit 1; }
  ms=$(((ready - start_ns) / 1000000))
  timings+=("$ms")
  echo "run $run: cold start to a ready /healthz in $ms ms"
done
sorted="$(printf '%s\n' "${timings[@]}" | sort -n | tr '\n' ' ')"
median="$(printf '%s\n' "${timings[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p")"
echo "cold start over $runs runs: median $median ms (all: $sorted)"
