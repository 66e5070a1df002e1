# bench/lib.sh: what the benchmarks that start their own servers share.
# Source it after setting PGBIN:
#   bench_workdir NAME        $WORK, a new directory under /tmp; on exit the
#                             servers under it stop and it is removed
#   start_node NODE PORT LISTEN OPTIONS
#                             initdb $WORK/NODE and start it on PORT,
#                             listening on LISTEN ('' for sockets only),
#                             with the server options OPTIONS (-c ...)
#   psql_on PORT ARGS...      psql to that server, stopping on the first error
#   as_pg CMD...              CMD as postgres when run as root (servers refuse root)

as_pg() {
	if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

bench_cleanup() {
	local node
	for node in "$WORK"/*/; do
		[ -f "$node/postmaster.pid" ] &&
			as_pg "$PGBIN/pg_ctl" -D "$node" -m immediate stop >/dev/null 2>&1 || true
	done
	rm -rf "$WORK"
}

bench_workdir() {
	WORK=$(mktemp -d "/tmp/$1.XXXXXX")
	[ "$(id -u)" = 0 ] && chown postgres "$WORK"
	trap bench_cleanup EXIT
}

start_node() {
	local node=$1 port=$2 listen=$3 options=$4
	as_pg "$PGBIN/initdb" -D "$WORK/$node" -A trust -U postgres >/dev/null
	as_pg "$PGBIN/pg_ctl" -D "$WORK/$node" -l "$WORK/$node.log" -w \
		-o "-p $port -k $WORK -c listen_addresses='$listen' $options" start >/dev/null
}

psql_on() {
	local port=$1; shift
	as_pg "$PGBIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$WORK" -p "$port" -U postgres -d postgres "$@"
}
