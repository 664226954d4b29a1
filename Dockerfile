# Last Gasp: a small image that runs the bot; the SQLite database lives on the /data volume.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DATABASE_URL=sqlite+aiosqlite:////data/lastgasp.db \
    HEALTH_PORT=8080

# tini: a PID 1 that passes SIGTERM on to the bot (which then stops gracefully) and reaps
# zombies. curl: the health check, without starting Python every 30 s.
RUN apt-get update \
    && apt-get install -y --no-install-recommends tini curl \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin lastgasp \
    && mkdir -p /data \
    && chown lastgasp /data

WORKDIR /app

# The dependencies alone, read from pyproject.toml: this layer is built again only when they
# change, not when the source does.
COPY pyproject.toml ./
RUN python -c 'import subprocess, sys, tomllib; \
deps = tomllib.load(open("pyproject.toml", "rb"))["project"]["dependencies"]; \
subprocess.check_call([sys.executable, "-m", "pip", "install", *deps])'

# The source. `python -m bot` runs it from /app (./bot), where bot/db/migrate.py finds
# ./migrations: no install step.
COPY rules ./rules
COPY migrations ./migrations
COPY bot ./bot

USER lastgasp
VOLUME ["/data"]
# 8080: /health and /metrics (HEALTH_PORT). 8081: the campaign page, served when WEB_PORT=8081
# and WEB_SECRET are set (README, "The campaign page"); put it behind a TLS reverse proxy.
EXPOSE 8080 8081

# `docker stop` sends SIGTERM (tini passes it on) and kills after 10 s: the bot answers the
# interactions in flight (8 s at most), closes the gateway and the database, and exits 0.
STOPSIGNAL SIGTERM

# The bot's own GET /health: 200 while the database answers and every shard of this process
# is connected to Discord now. The start period covers migrating and logging in.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD curl -fsS -o /dev/null "http://127.0.0.1:${HEALTH_PORT}/health" || exit 1

ENTRYPOINT ["tini", "--"]
CMD ["python", "-m", "bot", "run"]
