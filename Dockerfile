# catalog-search service image.
#   docker build -t catalog-search .
#   docker run --rm --init -p 8080:8080 -e AUTH_JWT_SECRET=... --read-only --tmpfs /tmp catalog-search
# The base image is a build argument so air-gapped builds can point it at a mirror or a local stand-in.
ARG NODE_IMAGE=node:24-bookworm-slim

# ---- deps: every dependency, installed once from the lockfile (manifests only, so the layer is reused
# until they change) ----
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ENV npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
COPY package.json package-lock.json ./
COPY packages/core/package.json packages/core/
COPY packages/client/package.json packages/client/
RUN npm ci --ignore-scripts

# ---- build: compile the TypeScript of the service and its workspaces ----
FROM deps AS build
COPY tsconfig.json tsconfig.base.json ./
COPY packages packages
COPY src src
RUN npm run build

# ---- prod-deps: production dependencies only (no second download), without files Node never loads ----
FROM deps AS prod-deps
COPY scripts/prune-node-modules.mjs /tmp/
RUN npm prune --omit=dev --ignore-scripts && node /tmp/prune-node-modules.mjs node_modules

# ---- app: what the runtime runs, owned by root (the process, uid 1000, can read the code but not change it) ----
FROM ${NODE_IMAGE} AS app
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080
WORKDIR /app
# The project's licence (Apache-2.0) and notice, which names the dictionary's own licence below.
COPY LICENSE NOTICE ./
# The sample tool list, for /playground's "Use the sample list" (PLAYGROUND=on).
COPY examples/search-request.json examples/
COPY --from=prod-deps /app/node_modules node_modules
COPY --from=build /app/package.json ./
COPY --from=build /app/dist dist
COPY --from=build /app/packages/core/package.json packages/core/
COPY --from=build /app/packages/core/dist packages/core/dist
# JMdict/EDICT's and CC-CEDICT's licences (CC BY-SA) ship with the dictionaries derived from them.
COPY --from=build /app/packages/core/src/languages/ja/ja-en-dictionary.LICENSE.md packages/core/dist/languages/ja/
COPY --from=build /app/packages/core/src/languages/zh/zh-en-dictionary.LICENSE.md packages/core/dist/languages/zh/
COPY --from=build /app/packages/client/package.json packages/client/
COPY --from=build /app/packages/client/dist packages/client/dist

# ---- compile-cache: V8's compile cache (Node 22.1+; older versions ignore it), filled by loading the app as
# uid 1000 (Node keys the cache by uid). Built here and copied into the runtime once: filling it in the runtime
# and then handing it to root stored every file twice (2 x 7.2 MB layers) ----
FROM app AS compile-cache
RUN node -e "require('fs').mkdirSync('/cache'); require('fs').chownSync('/cache', 1000, 1000)"
USER 1000:1000
RUN NODE_COMPILE_CACHE=/cache node --input-type=module -e "await import('./dist/src/app.js')" && \
    node -e "const fs = require('fs'), path = require('path'); (function walk(dir) { fs.chmodSync(dir, 0o755); for (const e of fs.readdirSync(dir, { withFileTypes: true })) { const file = path.join(dir, e.name); if (e.isDirectory()) walk(file); else fs.chmodSync(file, 0o644); } })('/cache')"

# ---- runtime ----
FROM app AS runtime
# Owned by root (COPY's default), readable by all: the process reads the cache but cannot alter it.
COPY --from=compile-cache /cache .node-compile-cache
ENV NODE_COMPILE_CACHE=/app/.node-compile-cache
# Numeric, so Kubernetes' runAsNonRoot can verify it (the official image's `node` user is uid 1000).
USER 1000:1000
EXPOSE 8080
# node, not curl (the slim image has none); the ref'd timer bounds a probe that hangs.
HEALTHCHECK --interval=10s --timeout=5s --start-period=15s --retries=3 \
  CMD ["node", "-e", "setTimeout(() => process.exit(1), 4000); fetch(`http://127.0.0.1:${process.env.PORT || 8080}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# No npm, no shell: node gets SIGTERM directly and the server drains and exits 0. Run it under an init
# (`docker run --init`, compose's `init: true`, the Deployment's shareProcessNamespace): as PID 1, node
# cannot die of its own abort(), and a heap overflow would leave it hanging instead of exiting 134.
CMD ["node", "dist/src/server.js"]
