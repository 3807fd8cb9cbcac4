# mintpipe: one image for every role (worker, scheduler, dashboard, one-shot commands).
# Build: docker build -t mintpipe .      Run: docker run --rm mintpipe --help

# ---- build: bundle the CLI from the TypeScript sources into dist/cli (needs the dev dependencies) ----
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: "prepare" (the build) needs the sources, copied below; npm run build runs it then.
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json ./
COPY bin ./bin
COPY config ./config
COPY jobs ./jobs
COPY src ./src
RUN npm run build

# ---- runtime: production dependencies and the bundle only ----
FROM node:20-bookworm-slim
# MINTPIPE_USE_DIST: bin/mintpipe.js runs the bundle in dist/ without looking for newer sources.
# LOG_FORMAT: JSON lines for the log collector, also under `docker run -t`.
# MINTPIPE_DATA_DIR: only used by the embedded engine and the private Redis (CLICKHOUSE_URL / REDIS_URL unset).
ENV NODE_ENV=production \
    MINTPIPE_USE_DIST=1 \
    LOG_FORMAT=json \
    MINTPIPE_DATA_DIR=/data \
    MINTPIPE_DASHBOARD_PORT=3000
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: "prepare" would bundle again, without esbuild (a dev dependency); the build
# stage's dist/ is copied instead. No runtime dependency needs its install script (chdb's is empty,
# msgpackr-extract's native code comes prebuilt in an optional package).
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY bin ./bin
COPY --from=build /app/dist ./dist
# The bundle holds code only: the dashboard page goes next to it.
COPY src/ops/page ./dist/cli/page
# Built-in triage recipes, found next to the bundle (src/triage/load-recipes.ts).
COPY recipes ./dist/recipes
# dist/cli/cache: compiled code the bin keeps per command (bin/compiled.js), written by the user it runs as.
RUN mkdir -p /data dist/cli/cache && chown node:node /data dist/cli/cache
USER node
EXPOSE 3000
ENTRYPOINT ["node", "bin/mintpipe.js"]
CMD ["--help"]
