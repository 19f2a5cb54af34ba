# syntax=docker/dockerfile:1
# The gateway as a small non-root image (the default, last stage), and the standalone platform
# sandbox as an image of its own (`--target sandbox`). The gateway's image holds no sandbox.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY common/package.json ./common/
COPY sandbox/package.json ./sandbox/
COPY examples/web/package.json ./examples/web/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY common/tsconfig.json common/tsconfig.build.json ./common/
COPY common/src ./common/src
COPY sandbox/tsconfig.json sandbox/tsconfig.build.json ./sandbox/
COPY sandbox/src ./sandbox/src
RUN npm run build

# The standalone sandbox, for trying gateways locally (compose.yaml); never for production.
FROM node:20-bookworm-slim AS sandbox
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
COPY common/package.json ./common/
COPY sandbox/package.json ./sandbox/
# At the root the sandbox is a devDependency, so that production installs leave it out. Here it is
# the product: the manifest names it alone, and npm keeps the lockfile's versions.
RUN npm pkg delete dependencies devDependencies \
 && npm pkg set "dependencies[@open-finance-gateway/sandbox]=file:sandbox" \
 && npm install --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/common/dist ./common/dist
COPY --from=build /app/sandbox/dist ./sandbox/dist
WORKDIR /app/sandbox
USER node
EXPOSE 4010 4011 4012
CMD ["node", "dist/main.js"]

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4000
WORKDIR /app
# A plain production install: the gateway's dependencies and the common package it shares with the
# sandbox. The sandbox (a devDependency) and the example app's build tools are left out.
COPY package.json package-lock.json ./
COPY common/package.json ./common/
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/common/dist ./common/dist
COPY --from=build /app/dist ./dist
# The image's unprivileged user: nothing runs as root.
USER node
EXPOSE 4000
# Ready, not only alive: fails while draining or while Redis is unreachable.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# main.js drains on SIGTERM (SHUTDOWN_DELAY_MS, SHUTDOWN_GRACE_MS); keep the orchestrator's stop timeout longer.
STOPSIGNAL SIGTERM
CMD ["node", "dist/main.js"]
