# viva: one image for `viva agent` and `viva web`.
# Build: docker build -t viva .

FROM golang:1.26-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends \
      pkg-config libopus-dev libopusfile-dev libsoxr-dev \
      libpocketsphinx-dev libsphinxbase-dev flite1-dev nodejs npm \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY web/frontend/package.json web/frontend/package-lock.json web/frontend/
RUN cd web/frontend && npm ci --no-audit --no-fund
COPY . .
RUN cd web/frontend && npm run build
RUN CGO_ENABLED=1 go build -trimpath -ldflags "-s -w" -o /out/viva ./cmd/viva

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends \
      ca-certificates libopus0 libopusfile0 libsoxr0 \
      libpocketsphinx3 libsphinxbase3 pocketsphinx-en-us libflite1 \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home /data viva \
    && mkdir -p /data/interviews && chown -R viva /data
COPY --from=build /out/viva /usr/local/bin/viva
USER viva
ENV VIVA_DATA_DIR=/data/interviews
VOLUME /data
ENTRYPOINT ["viva"]
CMD ["agent"]
