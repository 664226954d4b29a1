# Last Gasp: a small image that runs the bot; the SQLite database lives on the /data volume.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DATABASE_URL=sqlite+aiosqlite:////data/lastgasp.db \
    HEALTH_PORT=8080

WORKDIR /app

# The package is installed for its dependencies; it runs from /app (python -m bot finds
# ./bot first), where bot/db/migrate.py finds ./migrations.
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY rules ./rules
COPY migrations ./migrations
RUN pip install . \
    && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin lastgasp \
    && mkdir -p /data \
    && chown lastgasp /data

USER lastgasp
VOLUME ["/data"]
EXPOSE 8080

# Healthy when the database answers and the bot's own GET /health (HEALTH_PORT) says it is
# connected to Discord and ready; the start period covers migrating and logging in.
HEALTHCHECK --interval=30s --timeout=20s --start-period=60s --retries=3 \
    CMD ["python", "-m", "bot", "health"]

CMD ["python", "-m", "bot", "run"]
