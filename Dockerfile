# paysandbox container image.
#
#   docker build -t paysandbox .
#   docker build -t paysandbox:v0.1.0 \
#     --build-arg VERSION=v0.1.0 \
#     --build-arg COMMIT="$(git rev-parse --short HEAD)" \
#     --build-arg BUILD_DATE="$(date -u +%Y-%m-%dT%H:%M:%SZ)" .
#
# GO_IMAGE may be any image with Go on PATH and a POSIX shell with mkdir,
# chmod and chown (scripts/docker-smoke builds one from the host's toolchain).
# GOPROXY, GOSUMDB, GOPRIVATE and GOFLAGS build args, when given, are passed
# to the go command. The RUN --mount cache mounts need BuildKit (the default
# builder since Docker 23), buildah or podman.

ARG GO_IMAGE=golang:1.26-alpine

# The builder runs on the build machine's platform and cross-compiles for
# the image's (BuildKit and buildah set BUILDPLATFORM, TARGETOS and
# TARGETARCH), so a multi-arch build (buildx --platform
# linux/amd64,linux/arm64) runs no compiler under emulation.
FROM --platform=$BUILDPLATFORM ${GO_IMAGE} AS builder
ARG TARGETOS
ARG TARGETARCH
ARG GOPROXY
ARG GOSUMDB
ARG GOPRIVATE
ARG GOFLAGS
ENV CGO_ENABLED=0 \
    GOMODCACHE=/go/pkg/mod \
    GOCACHE=/root/.cache/go-build
WORKDIR /src

# The runtime stage has no shell: prepare its files here. /out/rootfs is
# copied as a whole so /tmp keeps its mode; /data is owned by the runtime user.
RUN mkdir -p /out/rootfs/etc /out/rootfs/tmp /out/data \
 && printf 'root:x:0:0:root:/root:/sbin/nologin\npaysandbox:x:65532:65532:paysandbox:/data:/sbin/nologin\n' > /out/rootfs/etc/passwd \
 && printf 'root:x:0:\npaysandbox:x:65532:\n' > /out/rootfs/etc/group \
 && chmod 1777 /out/rootfs/tmp \
 && chown 65532:65532 /out/data

# Modules first, so this step is reused until go.mod or go.sum change.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod \
    go mod download

COPY . .

# Version stamping; declared here so a new value only invalidates the build step.
ARG VERSION=dev
ARG COMMIT=unknown
ARG BUILD_DATE=unknown
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    GOOS=${TARGETOS} GOARCH=${TARGETARCH} go build -trimpath \
      -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT} -X main.date=${BUILD_DATE}" \
      -o /out/paysandbox ./cmd/paysandbox

FROM scratch
ARG VERSION=dev
ARG COMMIT=unknown
ARG BUILD_DATE=unknown
LABEL org.opencontainers.image.title="paysandbox" \
      org.opencontainers.image.source="https://github.com/paysandbox/paysandbox" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${COMMIT}" \
      org.opencontainers.image.created="${BUILD_DATE}"

COPY --from=builder /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=builder /out/rootfs/ /
COPY --from=builder --chown=65532:65532 /out/data /data
COPY --from=builder /out/paysandbox /usr/local/bin/paysandbox

# A container listens on every interface of its own network namespace, or a
# published port could not reach it (serve's default is loopback). An
# environment variable rather than a flag, so a command that overrides CMD
# keeps it; --addr or PAYSANDBOX_ADDR still win.
ENV PATH=/usr/local/bin \
    PAYSANDBOX_ADDR=0.0.0.0:8080
USER 65532:65532
WORKDIR /data
VOLUME /data
EXPOSE 8080

# `paysandbox healthcheck` GETs http://127.0.0.1:8080/healthz and exits 0 on 200.
HEALTHCHECK --interval=30s --timeout=5s --start-period=5s --retries=3 \
  CMD ["/usr/local/bin/paysandbox", "healthcheck"]

ENTRYPOINT ["/usr/local/bin/paysandbox"]
CMD ["serve", "--db", "/data/paysandbox.db"]
