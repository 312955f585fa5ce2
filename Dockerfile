# catalogd: one process (the HTTP service with its scheduled importer), non-root, data in /data.
#   docker build -t catalogd .
#   docker run -p 8080:8080 -v catalog:/data catalogd
# The crash symbols, kept out of the image (see docs/operations.md, "A crash's backtrace"):
#   docker build --target symbols -t catalogd-symbols .

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
# Static Swift runtime: the run stage needs only a few of Debian's libraries. The binary and the backtracer are
# stripped of every symbol (strip --strip-all: the binary is 88 MB; its debug information, compressed, 47 MB),
# and the binary's debug information goes to a file named after its build id, which the `symbols` stage holds:
# mounted at /usr/lib/debug, the static backtracer prints each frame's function name from it; without it, a crash
# prints each frame's address and the image's build id and base, to symbolicate later with that file (addr2line).
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
RUN swift build -c release --static-swift-stdlib --product catalogd \
    && binary="$(swift build -c release --show-bin-path)/catalogd" \
    && build_id=$(readelf -n "$binary" | awk '/Build ID/ { print $3 }') \
    && install -d "/symbols/usr/lib/debug/.build-id/${build_id:0:2}" \
    && objcopy --only-keep-debug --compress-debug-sections=zlib "$binary" "/symbols/usr/lib/debug/.build-id/${build_id:0:2}/${build_id:2}.debug" \
    && install -D "$binary" /staging/usr/local/bin/catalogd \
    && strip --strip-all /staging/usr/local/bin/catalogd \
    && install -D /usr/libexec/swift/linux/swift-backtrace-static /staging/usr/local/libexec/swift-backtrace-static \
    && strip --strip-all /staging/usr/local/libexec/swift-backtrace-static

# What the binary needs at run time, gathered from Debian's current packages into /rootfs: the shared libraries
# it links (ldd), the CA certificates for HTTPS feeds, time zones, a user and group for uid 10001, /data and /tmp.
# A rebuild takes Debian's security fixes. Versions are not pinned (DL3008): a pin would stop the build from getting them.
FROM debian:bookworm-slim AS runtime
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends libsqlite3-0 libcurl4 ca-certificates tzdata \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /staging/ /rootfs/
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
RUN ldd /rootfs/usr/local/bin/catalogd | awk '$2 == "=>" { print $3 } $1 ~ /^\// { print $1 }' | sort -u \
        | while read -r library; do install -D "$library" "/rootfs$library"; done \
    && install -D /etc/ssl/certs/ca-certificates.crt /rootfs/etc/ssl/certs/ca-certificates.crt \
    && install -d /rootfs/usr/share \
    && cp -a /usr/share/zoneinfo /rootfs/usr/share/zoneinfo \
    && rm -rf /rootfs/usr/share/zoneinfo/right /rootfs/usr/share/zoneinfo/posix \
    && printf 'root:x:0:0::/root:/usr/sbin/nologin\ncatalogd:x:10001:10001::/data:/usr/sbin/nologin\n' >/rootfs/etc/passwd \
    && printf 'root:x:0:\ncatalogd:x:10001:\n' >/rootfs/etc/group \
    && printf 'hosts: files dns\n' >/rootfs/etc/nsswitch.conf \
    && install -d -o 10001 -g 10001 /rootfs/data \
    && install -d -m 1777 /rootfs/tmp

FROM scratch AS symbols
COPY --from=build /symbols/ /

FROM scratch
COPY --from=runtime /rootfs/ /
ENV PATH=/usr/local/bin:/usr/bin:/bin \
    CATALOG_HOST=0.0.0.0 \
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
