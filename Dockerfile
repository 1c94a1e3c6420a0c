# syntax=docker/dockerfile:1
# edgesync as a container: `edgesync watch` on /config, state in /state, endpoint on :9300.
#
#   docker build -t edgesync .
#   docker run -d --name edgesync -p 127.0.0.1:9300:9300 \
#     -e EDGESYNC_BASE_URL=https://api.example.com/client/v4 \
#     --env-file /etc/edgesync/token.env \
#     -v "$PWD/config:/config" -v edgesync-state:/state edgesync
#
# token.env holds EDGESYNC_API_TOKEN=...; mount /config read-only (:ro) unless an AiRun
# writes its output under it. Secrets of created tokens land in /state/secrets (0600).
# To follow a git remote instead of /config (EDGESYNC_GIT_TOKEN in the env file):
#   docker run … -v edgesync-state:/state edgesync watch --git https://git.example/org/config.git \
#     --ref main --state /state/state.db --listen 0.0.0.0:9300
# On 0.0.0.0 the endpoint serves only /healthz and /readyz (the healthcheck below) unless given a
# UI token: add `--ui-token-file /run/secrets/ui-token` (a mounted file, 16 characters or more) for
# the status page, /status and /metrics (Prometheus then sends it as a bearer token).
#
# The build and runtime stages share one base image, so any native binary built in the first
# runs against the same Node ABI and glibc in the second. On Node 24 the state uses better-sqlite3
# 13 (Node-API, prebuilt); the 12 line, compiled by `npm ci`, is what a Node 20 image would use.

ARG NODE_IMAGE=node:24-bookworm-slim

# ---- build: dev dependencies, the native toolchain, tsc ----
FROM ${NODE_IMAGE} AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
# npm 11, as in development: it runs dependency install scripts only for packages listed in
# package.json `allowScripts` (better-sqlite3 is), so `npm ci` compiles the 12 line.
RUN npm install -g npm@11 && npm cache clean --force
WORKDIR /app
COPY package.json package-lock.json ./
# `npm ci` also runs the package's `prepare` (tsc), which needs the sources first.
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY schemas ./schemas
COPY bin ./bin
COPY examples ./examples
RUN npm ci && npm prune --omit=dev && npm cache clean --force

# ---- runtime: production dependencies and the compiled output only ----
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
# `watch --git` runs the system git (and ssh for an ssh:// or git@ remote with --git-ssh-key);
# ca-certificates lets git verify an https remote. The clone lives under /state/git.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git openssh-client ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build --chown=root:root /app/package.json ./package.json
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --from=build --chown=root:root /app/schemas ./schemas
COPY --from=build --chown=root:root /app/bin ./bin
# `edgesync init` writes a starting root from the examples' documents and CI recipes.
COPY --from=build --chown=root:root /app/examples ./examples
# The image's own unprivileged user; it owns only the state volume (config is read-only to it).
RUN mkdir -p /config /state && chown node:node /state
USER node
VOLUME ["/config", "/state"]
EXPOSE 9300
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9300/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Node handles SIGTERM itself (docker stop): calls in flight finish within --shutdown-timeout,
# so keep `docker stop -t` above it.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "/app/bin/edgesync"]
CMD ["watch", "--config", "/config", "--state", "/state/state.db", "--listen", "0.0.0.0:9300"]
