#!/bin/sh
# Docker Compose, whichever is installed: v2 (`docker compose`, the plugin) when it answers, else v1
# (`docker-compose`, e.g. Debian's package). The arguments are passed on unchanged:
#   scripts/compose.sh up -d        scripts/compose.sh ps        scripts/compose.sh down
set -e
if docker compose version >/dev/null 2>&1; then
  exec docker compose "$@"
fi
if command -v docker-compose >/dev/null 2>&1; then
  exec docker-compose "$@"
fi
echo "compose.sh: neither 'docker compose' (v2) nor 'docker-compose' (v1) is installed" >&2
exit 127
