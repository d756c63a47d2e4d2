# issue-leases as a container image (see docs/operators/deploy.md):
#
#   docker build -t issue-leases .
#   docker run -d --name issue-leases -p 3000:3000 -v issue-leases-data:/data \
#     -e APP_ID=... -e PRIVATE_KEY="$(cat private-key.pem)" -e WEBHOOK_SECRET=... issue-leases
#
# The base is a build argument so that the image can be built where Docker Hub
# is out of reach (CI builds it on a Debian image made locally with the
# machine's own Node: .ci/node-base-image). Node 24, the LTS, by default (Node 20
# reached its end of life on 2026-04-30); any Debian-based image with Node
# 20.18.1 or later and npm in /usr/local will do.
ARG NODE_IMAGE=node:24-bookworm-slim

# ---------------------------------------------------------------------------
# The build: TypeScript into dist/. No install scripts: compiling needs no
# native addon, and the runtime's better-sqlite3 is built in `deps` below.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/client/package.json packages/client/
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY packages/client packages/client
COPY src src
COPY scripts scripts
COPY bench bench
COPY test/support test/support
RUN npm run build

# ---------------------------------------------------------------------------
# The production dependencies, on the same base as the runtime: better-sqlite3
# is a native addon, and is built here for this base's Node and C library (a
# prebuilt binary when GitHub is reachable, else compiled with the tools below).
# --ignore-scripts runs no other package's install script, nor the project's own.
FROM ${NODE_IMAGE} AS deps
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# The client is a workspace (packages/client): node_modules links it, the runtime copies its build.
COPY packages/client/package.json packages/client/
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm rebuild better-sqlite3 \
 && rm -rf node_modules/better-sqlite3/build/Release/obj* node_modules/better-sqlite3/deps node_modules/better-sqlite3/src \
 && npm cache clean --force

# ---------------------------------------------------------------------------
# The runtime: the compiled app and its production dependencies, owned by
# root and read-only to the app's user (uid and gid 10001); the ledger on /data.
# `issue-leases` (the operator CLI) is on the PATH: `docker exec <container> issue-leases list`.
FROM ${NODE_IMAGE}
RUN groupadd --system --gid 10001 issue-leases \
 && useradd --system --uid 10001 --gid issue-leases --create-home --home-dir /home/issue-leases --shell /usr/sbin/nologin issue-leases \
 && mkdir /data \
 && chown issue-leases:issue-leases /data \
 && chmod 700 /data \
 && ln -s /app/bin/issue-leases.mjs /usr/local/bin/issue-leases
WORKDIR /app
COPY package.json package-lock.json app.yml ./
COPY bin bin
COPY scripts/build-if-needed.mjs scripts/
COPY --from=deps /app/node_modules node_modules
COPY --from=build /app/dist/src dist/src
COPY --from=build /app/packages/client/package.json packages/client/
COPY --from=build /app/packages/client/dist packages/client/dist

ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATABASE_URL=/data/leases.db \
    NPM_CONFIG_UPDATE_NOTIFIER=false
# npm runs a script through this shell: bash execs the script's last command, so
# the SIGTERM npm passes on reaches node; dash, the default sh, would die of it.
ENV NPM_CONFIG_SCRIPT_SHELL=/bin/bash
VOLUME /data
EXPOSE 3000
USER 10001:10001
# /health answers 200, or 503 when the database does not: Node's own fetch, no curl in the image.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 3000}/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# npm start's launcher checks the environment and finishes the work in flight on SIGTERM (within 10 s).
STOPSIGNAL SIGTERM
CMD ["npm", "start"]
