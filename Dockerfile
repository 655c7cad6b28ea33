# syntax=docker/dockerfile:1
# Build stage: compile TypeScript and build better-sqlite3's native module.
FROM node:24-bookworm-slim AS build
WORKDIR /app
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts/builds.js ./scripts/
RUN npm run build && npm prune --omit=dev

# Runtime stage: production dependencies, compiled code and migrations only, as a non-root user.
FROM node:24-bookworm-slim
# NODE_OPTIONS: V8's young generation held to 4 MB semi-spaces; MALLOC_MMAP_THRESHOLD_: glibc
# returns every freed block of 128 KiB or more at once (src/heap.ts says why for both; package.json's
# `start` and bench/launch.ts pass the same settings).
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-semi-space-size=4 \
    MALLOC_MMAP_THRESHOLD_=131072 \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATABASE_PATH=/data/swe-scoring.db
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY migrations ./migrations
# The database and key files are the server user's alone (docs/SECURITY.md, "Files and processes").
RUN mkdir -p /data && chown node:node /data && chmod 0700 /data
USER node
# The database, its WAL and the generated admin token (when SCORING_ADMIN_TOKEN is unset) live here.
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# node is PID 1 here and handles SIGTERM itself (graceful shutdown in src/server.ts).
CMD ["node", "dist/server.js"]
