# Loom's server image: one image for gateway, embedder and the `loom` CLI. The container's
# command picks the service:
#   node dist/apps/gateway/src/main.js     (the default)
#   node dist/apps/embedder/src/main.js
#   node dist/apps/cli/src/main.js migrate
#
#   docker build --platform linux/amd64 -t ghcr.io/loom/loom:latest .
#
# linux/amd64 only, for now: chdb 3.4.0's linux-arm64 engine package was never published (see
# tools/lock-unpublished-optionals.js), and the CLI loads the engine when it starts (below), so
# `loom migrate` would fail in an arm64 image. The gateway and embedder alone would run there.
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
# is used only by the embedded mode (`loom up`, LOOM_CLICKHOUSE_URL unset) and by
# `loom dev clickhouse`; the gateway and embedder against a ClickHouse server never load it
# (libs/clickhouse requires it lazily). It could be pruned from this server image with
#   RUN rm -rf node_modules/@chdb
# but not yet: apps/cli/src/main.ts imports the dev-clickhouse command statically, which loads
# the engine when any `loom` command starts, so `loom migrate` (the migrate Job) would fail.
# Make that import lazy first, then add the line above after `npm ci`.
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
# The node image's `node` user, by number so Kubernetes can verify runAsNonRoot.
USER 1000:1000
EXPOSE 7777
CMD ["node", "dist/apps/gateway/src/main.js"]
