# syntax=docker/dockerfile:1
# The gateway (and, with another command, the standalone sandbox) as a small non-root image.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4000
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
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
