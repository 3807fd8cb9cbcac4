# mintpipe: one image for every role (worker, scheduler, dashboard, one-shot commands).
# Build: docker build -t mintpipe .      Run: docker run --rm mintpipe --help

# ---- build: compile TypeScript to dist/ (needs the dev dependencies) ----
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: "prepare" (the build) needs the sources, copied below; npm run build runs it then.
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY config ./config
COPY jobs ./jobs
COPY src ./src
RUN npm run build

# ---- runtime: production dependencies and the compiled code only ----
FROM node:20-bookworm-slim
# MINTPIPE_USE_DIST: bin/mintpipe.js runs the compiled dist/ without looking for newer sources.
# LOG_FORMAT: JSON lines for the log collector, also under `docker run -t`.
# MINTPIPE_DATA_DIR: only used by the embedded engine and the private Redis (CLICKHOUSE_URL / REDIS_URL unset).
ENV NODE_ENV=production \
    MINTPIPE_USE_DIST=1 \
    LOG_FORMAT=json \
    MINTPIPE_DATA_DIR=/data \
    MINTPIPE_DASHBOARD_PORT=3000
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: "prepare" would compile again, without TypeScript (a dev dependency); the build
# stage's dist/ is copied instead. No runtime dependency needs its install script (chdb's is empty,
# msgpackr-extract's native code comes prebuilt in an optional package).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY bin ./bin
COPY --from=build /app/dist ./dist
# tsc copies no static files: the dashboard page goes next to the compiled server.
COPY src/ops/page ./dist/src/ops/page
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
ENTRYPOINT ["node", "bin/mintpipe.js"]
CMD ["--help"]
