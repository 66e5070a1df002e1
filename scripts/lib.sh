# shellcheck shell=bash
# scripts/lib.sh: helpers shared by scripts/test and scripts/demo.
# Source it; it expects to run as root on Debian 12 and needs no stdin.
#
#   ensure_packages     install the build and test dependencies that are missing
#   build_and_install   make, take the install lock, make install
#   start_cluster NAME  initdb + start a throwaway cluster (as postgres) on a free port
#   cluster_port NAME / cluster_host NAME   where to connect to it
#   as_postgres CMD...  run a command as the postgres OS user
#
# Everything temporary lives under $WORK_DIR, removed (clusters stopped
# first) when the calling script exits.

PGBIN=/usr/lib/postgresql/15/bin
PG_CONFIG=$PGBIN/pg_config
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# `make install` writes into the one PostgreSQL installation of the machine,
# so concurrent runs from different checkouts would test each other's
# builds.  Each run holds this lock from `make install` to its last test.
INSTALL_LOCK=/tmp/bloomfilter-install.lock
LOCK_FD=9

# Debian 12 ships postgres_fdw inside postgresql-15 (postgresql-contrib is
# only a metapackage pulling in the same thing), so it is not listed.
REQUIRED_PACKAGES=(build-essential postgresql-15 postgresql-server-dev-15
                   libipc-run-perl postgresql-15-hll libclang-rt-14-dev
                   python3-psycopg2)   # test/clients/check_*.py

log() { printf '==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------------------
# Packages

package_installed() {
    [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

ensure_packages() {
    [ "$(id -u)" -eq 0 ] || die "run as root (packages are installed with apt-get)"
    local missing=() p
    for p in "${REQUIRED_PACKAGES[@]}"; do
        package_installed "$p" || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        log "installing ${missing[*]}"
        local aptlog
        aptlog=$(mktemp /tmp/bloomfilter-apt.XXXXXX.log)
        # Quiet unless it fails; no stdin, no prompts, wait for a dpkg lock
        # held by a concurrent run instead of failing at once.
        if ! {
            DEBIAN_FRONTEND=noninteractive apt-get update -q &&
            DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
                --no-install-recommends -o DPkg::Lock::Timeout=600 "${missing[@]}"
        } </dev/null >"$aptlog" 2>&1; then
            cat "$aptlog" >&2
            die "package installation failed (log: $aptlog)"
        fi
        rm -f "$aptlog"
    fi
    [ -x "$PG_CONFIG" ] || die "$PG_CONFIG missing after package installation"
    [ -f "$($PG_CONFIG --sharedir)/extension/postgres_fdw.control" ] ||
        die "postgres_fdw is not installed"
    # The postgres user exists only once postgresql-common is installed.
    chown postgres: "$WORK_DIR"
}

# ---------------------------------------------------------------------------
# Build

# Held until the calling script exits (the descriptor closes with it).
take_install_lock() {
    eval "exec $LOCK_FD>>\"\$INSTALL_LOCK\""
    if ! flock -n "$LOCK_FD"; then
        log "waiting for another run to release $INSTALL_LOCK"
        flock "$LOCK_FD"
    fi
}

build_and_install() {
    local buildlog="$WORK_DIR/build.log"
    log "building in $REPO_ROOT"
    if ! make -C "$REPO_ROOT" -j"$(nproc)" PG_CONFIG="$PG_CONFIG" >"$buildlog" 2>&1; then
        cat "$buildlog" >&2
        die "build failed"
    fi
    take_install_lock
    log "installing into $($PG_CONFIG --pkglibdir)"
    if ! make -C "$REPO_ROOT" PG_CONFIG="$PG_CONFIG" install >>"$buildlog" 2>&1; then
        cat "$buildlog" >&2
        die "make install failed"
    fi
}

# ---------------------------------------------------------------------------
# Running as postgres; throwaway clusters

# PostgreSQL refuses to run as root.  The install lock descriptor is closed
# for the child so that no server it starts can keep the lock alive.
as_postgres() {
    runuser -u postgres -- "$@" {LOCK_FD}>&-
}

# Handed to the postgres user by ensure_packages.
WORK_DIR=$(mktemp -d /tmp/bloomfilter.XXXXXX)
CLUSTERS=()

cleanup() {
    local status=$? name
    for name in "${CLUSTERS[@]}"; do
        as_postgres "$PGBIN/pg_ctl" -D "$WORK_DIR/$name/data" -m immediate -w stop \
            >/dev/null 2>&1 || true
    done
    rm -rf "$WORK_DIR"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

cluster_port() { cat "$WORK_DIR/$1/port"; }
cluster_host() { echo "$WORK_DIR/$1"; }   # the unix socket directory

# A port nobody listens on, outside the kernel's ephemeral range.
free_port() {
    local port
    while :; do
        port=$((20000 + RANDOM % 10000))
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || { echo "$port"; return; }
    done
}

# start_cluster NAME: a fresh cluster listening on 127.0.0.1 and on a socket
# in its own directory, trust authentication, stopped and removed at exit.
start_cluster() {
    local name=$1 dir="$WORK_DIR/$1" port _
    as_postgres mkdir -p "$dir"
    if ! as_postgres "$PGBIN/initdb" -D "$dir/data" -E UTF8 --locale=C.UTF-8 \
            -A trust -U postgres >"$dir/initdb.log" 2>&1; then
        cat "$dir/initdb.log" >&2
        die "initdb failed for cluster $name"
    fi
    # Throwaway data: durability is not worth the time.
    as_postgres tee -a "$dir/data/postgresql.conf" >/dev/null <<EOF
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir'
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
    CLUSTERS+=("$name")
    # Another process may grab the port between the check and the bind.
    for _ in 1 2 3 4 5; do
        port=$(free_port)
        if as_postgres "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
                -o "-p $port" start >/dev/null 2>&1; then
            echo "$port" >"$dir/port"
            return 0
        fi
        grep -q 'could not bind\|could not create any TCP/IP sockets' "$dir/server.log" || break
    done
    cat "$dir/server.log" >&2
    die "cluster $name did not start"
}

# psql_on NAME [psql args...]: psql as postgres into cluster NAME.
psql_on() {
    local name=$1; shift
    as_postgres "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 \
        -h "$(cluster_host "$name")" -p "$(cluster_port "$name")" "$@"
}
