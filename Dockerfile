# catalogd: one process (the HTTP service with its scheduled importer), non-root, data in /data.
#   docker build -t catalogd .
#   docker run -p 8080:8080 -v catalog:/data catalogd

FROM swift:6.3-bookworm AS build
WORKDIR /build
# Dependencies first, in their own layer, so a source change does not fetch them again.
COPY Package.swift ./
RUN swift package resolve
# Sources/CatalogAPI/openapi.yaml, compiled in, is a symbolic link to this file: both must be copied.
COPY openapi.yaml ./
COPY Sources ./Sources
# The manifest names the test targets, so their folders must exist (they are not built).
COPY Tests ./Tests
# Static Swift runtime: the run stage needs only Debian's libraries. DWARF is stripped but the symbol
# table kept: 99 MB instead of 132 MB (76 MB fully stripped), and a crash still prints a stack with
# function names through the static backtracer.
RUN swift build -c release --static-swift-stdlib --product catalogd \
    && install -D "$(swift build -c release --show-bin-path)/catalogd" /staging/usr/local/bin/catalogd \
    && strip --strip-debug /staging/usr/local/bin/catalogd \
    && install -D /usr/libexec/swift/linux/swift-backtrace-static /staging/usr/local/libexec/swift-backtrace-static

FROM debian:bookworm-slim
# libcurl4: FoundationNetworking (the upstream client) links it; tzdata and ca-certificates for HTTPS feeds.
# Versions are not pinned (DL3008): Debian's security archive replaces them, and a pin would stop the build
# from getting those fixes.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libsqlite3-0 libcurl4 ca-certificates tzdata \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --user-group --home-dir /data --no-create-home --shell /usr/sbin/nologin catalogd \
    && mkdir -p /data \
    && chown 10001:10001 /data
COPY --from=build /staging/ /
ENV CATALOG_HOST=0.0.0.0 \
    CATALOG_PORT=8080 \
    CATALOG_DATABASE=/data/catalog.sqlite \
    SWIFT_BACKTRACE=enable=yes,sanitize=yes,threads=all,images=mentioned,interactive=no,swift-backtrace=/usr/local/libexec/swift-backtrace-static
USER 10001:10001
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 CMD ["catalogd", "healthcheck"]
ENTRYPOINT ["catalogd"]
CMD ["serve"]
