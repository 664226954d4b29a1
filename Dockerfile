# Last Gasp: a small image that runs the bot; the SQLite database lives on the /data volume.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DATABASE_URL=sqlite+aiosqlite:////data/lastgasp.db

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

CMD ["python", "-m", "bot", "run"]
