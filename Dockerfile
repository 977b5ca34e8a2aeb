# Loom's server image: one image for gateway, embedder and the `loom` CLI. The container's
# command picks the service:
#   node dist/apps/gateway/src/main.js     (the default)
#   node dist/apps/embedder/src/main.js
#   node dist/apps/titler/src/main.js
#   node dist/apps/erasure/src/main.js
#   node dist/apps/compactor/src/main.js
#   node dist/apps/cli/src/main.js migrate
#
#   docker build -t ghcr.io/loom/loom:latest .
#
# A server image: it needs LOOM_CLICKHOUSE_URL. The embedded ClickHouse engine is left out
# (below), so `loom up` in embedded mode and `loom dev clickhouse` do not work in it.
#
# Not tied to amd64: nothing in this image loads the engine, and chdb 3.4.0's missing
# linux-arm64 engine package (never published; see tools/lock-unpublished-optionals.js) is an
# optional dependency. An arm64 or multi-arch build (docker buildx build --platform
# linux/amd64,linux/arm64 …) should therefore work, but has not been tried yet; that is why
# docker-compose.yml still pins linux/amd64.
#
# With no .dockerignore, the COPY lines below name what they take, so node_modules/, dist/
# and .loom/ from the working copy never reach the image.

# ---- build: every dependency, TypeScript compiled to dist/ ----------------------------------
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.base.json tsconfig.build.json ./
COPY apps ./apps
COPY libs ./libs
COPY bench ./bench
# tsc + tsc-alias (rewrites @loom/* to relative paths) + copies libs/clickhouse/migrations
RUN npm run build

# ---- runtime: production dependencies and dist/ only, as a non-root user -------------------
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    LOOM_HOST=0.0.0.0 \
    LOOM_PORT=7777
WORKDIR /app
COPY package.json package-lock.json ./
# chdb: the embedded ClickHouse engine. Its native library (@chdb/lib-<platform>, about 550 MB)
# is loaded only by embedded storage (LOOM_CLICKHOUSE_URL unset: libs/clickhouse requires it
# lazily) and by `loom dev clickhouse` (apps/cli imports that command on use). The gateway, the
# embedder, `loom migrate` and `loom token create` against a ClickHouse server never load it,
# so it is removed here, in the same layer as the install so that it never reaches the image.
# Those two uses then fail with "chdb: no native binding for linux-…". To keep them, drop the
# `rm -rf node_modules/@chdb`.
RUN npm ci --omit=dev --no-audit --no-fund && rm -rf node_modules/@chdb && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
# The node image's `node` user, by number so Kubernetes can verify runAsNonRoot.
USER 1000:1000
# 7777: the gateway's HTTP API; 9464: an embedder's /metrics and /healthz.
EXPOSE 7777 9464
CMD ["node", "dist/apps/gateway/src/main.js"]
