#!/usr/bin/env bash
# Measures the service image: its size, and the cold start from `docker run` to the first 200 on /healthz
# (read-only root, tmpfs /tmp, as in production), over several runs. Each run is paired with a floor measured
# the same way: a bare node HTTP server started from the same image, i.e. what Docker and Node alone cost.
# Usage: scripts/measure-image.sh [image] [runs]   (default: catalog-search:test, 5 runs)
#   MEASURE_DOCKER_ARGS='-e EMBEDDINGS=on' scripts/measure-image.sh ...   adds `docker run` arguments (word-split)
set -euo pipefail

image="${1:-catalog-search:test}"
runs="${2:-5}"
size_bytes="$(docker image inspect --format '{{.Size}}' "$image")"
echo "image $image: $((size_bytes / 1000 / 1000)) MB ($size_bytes bytes)"

secret="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
bare_server="require('http').createServer((req, res) => res.end('ok')).listen(8080, '0.0.0.0')"

# Prints the milliseconds from `docker run` to the first 200 on /healthz; extra arguments replace the command.
cold_start_ms() {
  local port=$((20000 + RANDOM % 20000)) start_ns ready="" id
  start_ns="$(date +%s%N)"
  id="$(docker run --detach --init --read-only --tmpfs /tmp --cap-drop ALL -e AUTH_JWT_SECRET="$secret" ${MEASURE_DOCKER_ARGS:-} \
    -p "127.0.0.1:$port:8080" "$image" "$@")"
  for _ in $(seq 1 3000); do
    if curl --silent --fail --max-time 1 "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; then
      ready="$(date +%s%N)"
      break
    fi
    sleep 0.01
  done
  docker rm --force "$id" >/dev/null
  [[ -n "$ready" ]] || { echo "no 200 on /healthz within the time limit" >&2; return 1; }
  echo $(((ready - start_ns) / 1000000))
}

median() { printf '%s\n' "$@" | sort -n | sed -n "$((($# + 1) / 2))p"; }

service=()
floor=()
for run in $(seq 1 "$runs"); do
  service+=("$(cold_start_ms)")
  floor+=("$(cold_start_ms node -e "$bare_server")")
  echo "run $run: service ${service[-1]} ms, bare node server ${floor[-1]} ms"
done
echo "cold start to a ready /healthz over $runs runs: median $(median "${service[@]}") ms" \
  "(bare node HTTP server in the same image: median $(median "${floor[@]}") ms)"
