# The web service of docker-compose.yml: the same `make serve` as on a developer's machine.
FROM python:3.13-slim
RUN apt-get update && apt-get install -y --no-install-recommends make \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY . .
RUN make install
ENV PORT=8000
EXPOSE 8000
CMD ["make", "serve"]
