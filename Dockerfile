# syntax=docker/dockerfile:1
# Arbor in a container: docker build -t arbor . (the README's "Run in a container" has the run line).

# the web console's static files, built with Node.js (npm ci from its lockfile) where the jar build picks them up
FROM node:22-bookworm-slim AS console
WORKDIR /src/console
COPY console/package.json console/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY console/ ./
RUN npm run build

FROM eclipse-temurin:25-jdk AS build
WORKDIR /src
COPY mvnw pom.xml ./
COPY .mvn/ .mvn/
COPY src/main/ src/main/
# the manual the server serves at /docs, and the console styles its pages share
COPY README.md ./
COPY docs/ docs/
COPY console/src/styles.css console/src/styles.css
COPY --from=console /src/target/classes/console/ target/classes/console/
# the tests run in CI, not here; the Maven cache mount keeps dependencies between builds
RUN --mount=type=cache,target=/root/.m2 ./mvnw -B -ntp -DskipTests -Dmaven.test.skip=true -Dconsole.skip=true package

FROM eclipse-temurin:25-jre
# curl only answers the health check; a fixed uid lets volumes and Kubernetes' runAsUser agree on the owner
RUN apt-get update \
    && apt-get install -y --no-install-recommends curl \
    && rm -rf /var/lib/apt/lists/* \
    && groupadd --system --gid 10001 arbor \
    && useradd --system --uid 10001 --gid 10001 --home-dir /data --no-create-home arbor \
    && mkdir /data \
    && chown 10001:10001 /data \
    && chmod 0700 /data
COPY --from=build /src/target/arbor.jar /opt/arbor/arbor.jar

# Listening beyond loopback: remote callers need a token (ARBOR_ADMIN_TOKEN, or one made with 'arbor token create').
ENV ARBOR_HOST=0.0.0.0 \
    ARBOR_PORT=8420 \
    ARBOR_DATA=/data
# The root file system may be read-only: the server writes only to the data folder and to the temporary folder,
# where native libraries are unpacked and loaded (a tmpfs there must allow exec).
VOLUME ["/data", "/tmp"]
USER 10001:10001
EXPOSE 8420
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD curl -fsS -o /dev/null "http://127.0.0.1:${ARBOR_PORT}/health" || exit 1
ENTRYPOINT ["java", "--enable-native-access=ALL-UNNAMED", "-XX:+ExitOnOutOfMemoryError", "-Djava.io.tmpdir=/tmp", \
    "-jar", "/opt/arbor/arbor.jar"]
CMD ["serve"]
