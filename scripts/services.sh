# Sourced by scripts/test: starts a throwaway PostgreSQL server and a Redis server on loopback,
# their data in a temporary folder, for the tests of the PostgreSQL store and of several nodes
# serving one site; installs Debian's packages first if they are missing. Exports
# TENGEN_TEST_POSTGRES (an admin URL: each test makes a database of its own) and
# TENGEN_TEST_REDIS, and stops both servers when the calling shell exits. PostgreSQL runs without
# fsync for the tests (SERVICES_PG_FSYNC=on keeps it, for benchmarks).

services_free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

services_install() {
    local missing=()
    ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
    command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
    if [ ${#missing[@]} -gt 0 ]; then
        echo "installing ${missing[*]} (Debian packages)"
        local sudo=()
        [ "$(id -u)" -eq 0 ] || sudo=(sudo)
        "${sudo[@]}" apt-get update -qq
        DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
}

# Runs a command as the user the servers run as: PostgreSQL will not run as root.
services_as() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

services_start_postgres() {
    local bin
    bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
    SERVICES_DIR=$(mktemp -d /tmp/tengen-services.XXXXXX)
    chmod 755 "$SERVICES_DIR"
    [ "$(id -u)" -eq 0 ] && chown postgres "$SERVICES_DIR"
    local port
    port=$(services_free_port)
    services_as "$bin/initdb" -D "$SERVICES_DIR/pg" -U postgres --auth=trust -E UTF8 >/dev/null
    services_as "$bin/pg_ctl" -D "$SERVICES_DIR/pg" -l "$SERVICES_DIR/pg.log" -w \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $SERVICES_DIR -c fsync=${SERVICES_PG_FSYNC:-off} -c max_connections=300" \
        start >/dev/null
    SERVICES_PG_CTL="$bin/pg_ctl"
    export TENGEN_TEST_POSTGRES="postgres://postgres@127.0.0.1:$port/postgres"
    echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$port"
}

services_start_redis() {
    local port
    port=$(services_free_port)
    redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no \
        --dir "$SERVICES_DIR" --daemonize yes --pidfile "$SERVICES_DIR/redis.pid" \
        --logfile "$SERVICES_DIR/redis.log" >/dev/null
    for _ in $(seq 50); do
        redis-cli -p "$port" ping >/dev/null 2>&1 && break
        sleep 0.1
    done
    export TENGEN_TEST_REDIS="redis://127.0.0.1:$port"
    echo "Redis $(redis-server --version | awk '{print $3}' | cut -d= -f2) on 127.0.0.1:$port"
}

services_stop() {
    if [ -f "${SERVICES_DIR:-}/redis.pid" ]; then
        kill "$(cat "$SERVICES_DIR/redis.pid")" 2>/dev/null || true
    fi
    if [ -n "${SERVICES_DIR:-}" ]; then
        services_as "$SERVICES_PG_CTL" -D "$SERVICES_DIR/pg" -m immediate stop >/dev/null 2>&1 || true
        rm -rf "$SERVICES_DIR"
    fi
}

services_install
services_start_postgres
services_start_redis
trap services_stop EXIT
