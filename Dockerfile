# Stages: `build` compiles; `sandbox` runs the provider sandbox for trials (compose profile
# "trial"); `runtime`, the last stage and so what a plain `docker build .` gives, is the bot.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
# build.mjs, the Mini App's build, and the stand-ins it bundles in some packages' place (a
# polyfill, node-fetch, undici's HTTP/2 client, zod's other languages).
COPY tools/build.mjs tools/build-webapp.mjs tools/*.cjs tools/*.js ./tools/
COPY src ./src
COPY webapp ./webapp
RUN npm run build

# The provider sandbox: a development tool (dev dependencies, tsx), never part of the bot's
# image. It reads SANDBOX_HOST/SANDBOX_PORT (default 127.0.0.1:8090): listen on every interface
# so that other containers reach it at http://sandbox:8090.
FROM build AS sandbox
COPY tools ./tools
ENV SANDBOX_HOST=0.0.0.0 SANDBOX_PORT=8090
USER node
EXPOSE 8090
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.SANDBOX_PORT||8090)+'/_sandbox/profile',{signal:AbortSignal.timeout(2000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--import", "tsx", "tools/sandbox/main.ts"]

# The bot: production dependencies, the compiled code and the locale files only.
FROM node:24-bookworm-slim AS runtime
# DejaVu draws the digits of the finance report's chart.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini fonts-dejavu-core \
  && rm -rf /var/lib/apt/lists/*
# HTTP_PORT is set so that the HTTP server (/healthz, /readyz, /metrics) runs in polling mode
# too and the HEALTHCHECK below has something to ask; webhook mode uses the same port.
ENV NODE_ENV=production HTTP_PORT=8080
WORKDIR /app
# Without DATABASE_URL the ledger is embedded (one instance only): its files go to /data, where
# a volume belongs. Production runs PostgreSQL (docs/operations.md, "The ledger").
RUN mkdir -p /data && chown node:node /data
ENV DATA_DIR=/data
# The payment journal lives there too: never in the container's writable layer, which a
# recreated container loses.
VOLUME ["/data"]
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY locales ./locales
COPY bin ./bin
USER node
EXPOSE 8080
STOPSIGNAL SIGTERM
# No curl in slim images: node's own fetch asks /healthz (200 while the process is alive).
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.HTTP_PORT||8080)+'/healthz',{signal:AbortSignal.timeout(2000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# tini is PID 1: it hands SIGTERM to node and reaps zombies. bin/start sets the memory settings
# and becomes node (exec), which drains within SHUTDOWN_GRACE_SECONDS and exits 0.
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["bin/start"]
