# shellcheck shell=bash
# scripts/cluster.sh: throwaway PostgreSQL clusters, for scripts/lib.sh
# (scripts/test, scripts/demo) and for the server benchmarks (bench/server/).
# Source it from bash; run as root (servers then run as the postgres OS
# user, since PostgreSQL refuses root) or as the user the servers run as.
#
#   cluster_workdir [DIR]  make WORK_DIR: DIR (emptied first) or a new
#                          /tmp/bloomfilter-bench.XXXXXX, owned by postgres;
#                          at exit the clusters stop and it is removed
#                          (CLUSTER_KEEP=1: both are left for inspection)
#   start_cluster NAME [PORT [SETTING...]]
#                          initdb + start a cluster of $PGBIN in
#                          $WORK_DIR/NAME; PORT empty or absent: a free one;
#                          each SETTING (name=value) goes into postgresql.conf
#   cluster_port NAME / cluster_host NAME   where to connect to it
#   psql_on NAME [psql args...]   psql as postgres into cluster NAME,
#                          stopping at the first error
#   stop_clusters          stop every cluster started (immediate mode)
#   as_postgres CMD...     CMD as the postgres OS user, from $WORK_DIR
#   default_pgbin          $PGBIN, else the bindir of $PG_CONFIG, else of
#                          the pg_config in PATH
#
# A cluster listens on 127.0.0.1 (the setting listen_addresses= keeps it to
# its socket) and on a socket in its own directory, trusts every local
# connection, and runs without fsync: its data is thrown away.  scripts/lib.sh makes its own WORK_DIR and stops the clusters
# in its own exit handler.

die() { printf 'error: %s\n' "$*" >&2; exit 1; }

CLUSTERS=()

default_pgbin() {
    if [ -n "${PGBIN:-}" ]; then
        echo "$PGBIN"
    else
        "${PG_CONFIG:-pg_config}" --bindir
    fi
}

# PostgreSQL refuses to run as root.  The descriptors listed in LOCK_FDS
# (scripts/lib.sh's install locks) are closed for the child so that no
# server it starts can keep a lock alive.  It runs from $WORK_DIR: the
# caller's directory may be one postgres cannot enter (PostgreSQL's programs
# complain about it).
as_postgres() {
    (
        local fd
        for fd in ${LOCK_FDS[@]+"${LOCK_FDS[@]}"}; do eval "exec $fd>&-"; done
        cd "$WORK_DIR" || exit
        if [ "$(id -u)" = 0 ]; then
            exec runuser -u postgres -- "$@"
        else
            exec "$@"
        fi
    )
}

# shellcheck disable=SC2120  # DIR is optional
cluster_workdir() {
    if [ -n "${1:-}" ]; then
        WORK_DIR=$1
        rm -rf "$WORK_DIR"
        mkdir -p "$WORK_DIR"
    else
        WORK_DIR=$(mktemp -d /tmp/bloomfilter-bench.XXXXXX)
    fi
    [ "$(id -u)" != 0 ] || chown postgres: "$WORK_DIR"
    trap cluster_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

cluster_cleanup() {
    local status=$? name
    if [ "${CLUSTER_KEEP:-}" = 1 ]; then
        for name in ${CLUSTERS[@]+"${CLUSTERS[@]}"}; do
            echo "kept: cluster $name, data $WORK_DIR/$name/data, psql -h $(cluster_host "$name") -p $(cluster_port "$name") -U postgres" >&2
        done
    else
        stop_clusters
        rm -rf "$WORK_DIR"
    fi
    exit "$status"
}

stop_clusters() {
    local name
    for name in ${CLUSTERS[@]+"${CLUSTERS[@]}"}; do
        as_postgres "$(cat "$WORK_DIR/$name/bindir")/pg_ctl" -D "$WORK_DIR/$name/data" \
            -m immediate -w stop >/dev/null 2>&1 || true
    done
}

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

# The lines start_cluster appends to postgresql.conf: the defaults, then
# each name=value argument, quoted (the last line of a name wins).
cluster_settings() {
    local dir=$1 setting value
    shift
    # Throwaway data: durability is not worth the time.
    cat <<EOF
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir'
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
    for setting in "$@"; do
        value=${setting#*=}
        printf "%s = '%s'\n" "${setting%%=*}" "${value//\'/\'\'}"
    done
}

start_cluster() {
    local name=$1 port=${2:-} dir="$WORK_DIR/$1" try _
    shift $(($# < 2 ? $# : 2))   # the settings remain
    as_postgres mkdir -p "$dir"
    echo "${PGBIN:?PGBIN is not set}" >"$dir/bindir"
    if ! as_postgres "$PGBIN/initdb" -D "$dir/data" -E UTF8 --locale=C.UTF-8 \
            -A trust -U postgres >"$dir/initdb.log" 2>&1; then
        cat "$dir/initdb.log" >&2
        die "initdb failed for cluster $name"
    fi
    cluster_settings "$dir" "$@" | as_postgres tee -a "$dir/data/postgresql.conf" >/dev/null
    CLUSTERS+=("$name")
    # A port given is taken or fails; a free one may be grabbed by another
    # process between the check and the bind, so that is tried again.
    for _ in 1 2 3 4 5; do
        try=${port:-$(free_port)}
        if as_postgres "$PGBIN/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
                -o "-p $try" start >/dev/null 2>&1; then
            echo "$try" >"$dir/port"
            return 0
        fi
        [ -z "$port" ] || break
        grep -q 'could not bind\|could not create any TCP/IP sockets' "$dir/server.log" || break
    done
    cat "$dir/server.log" >&2
    die "cluster $name did not start"
}

psql_on() {
    local name=$1
    shift
    as_postgres "$(cat "$WORK_DIR/$name/bindir")/psql" -X -q -v ON_ERROR_STOP=1 \
        -h "$(cluster_host "$name")" -p "$(cluster_port "$name")" -U postgres "$@"
}
