#!/bin/bash
# Runs the regression suite against an instrumented build of the extension.
#
#   test/sanitize/run.sh asan       ASan + UBSan build; libasan preloaded
#                                   into the postmaster (make sanitize-check)
#   test/sanitize/run.sh valgrind   -O0 build; the postmaster under valgrind
#                                   memcheck (make valgrind-check)
#
# SAN_REGRESS (a space-separated list of sql/ file names without .sql)
# restricts the run to those regression files; SAN_PORT picks the port;
# SAN_PRELOAD=1 starts the server with the library preloaded.
#
# The shared PostgreSQL installation is not touched: a private copy of it
# (PostgreSQL finds its share and lib directories relative to its binary) gets
# the instrumented bloomfilter.so, and a throwaway cluster runs on $SAN_PORT.
# Fails if the suite fails or if any sanitizer/memcheck error mentions the
# extension (memcheck errors elsewhere are PostgreSQL's own, counted only).
set -euo pipefail

mode=${1:?usage: run.sh asan|valgrind}
src=$(cd "$(dirname "$0")/../.." && pwd)
PG_CONFIG=${PG_CONFIG:-pg_config}
port=${SAN_PORT:-5551}
work=${SAN_DIR:-/tmp/bloomfilter-$mode-$port}
run_as=()
if [ "$(id -u)" = 0 ]; then run_as=(runuser -u postgres --); fi

pg_bindir=$($PG_CONFIG --bindir)
pg_sharedir=$($PG_CONFIG --sharedir)
pg_libdir=$($PG_CONFIG --pkglibdir)

stop_server() {
	if [ -f "$work/data/postmaster.pid" ]; then
		"${run_as[@]}" "$inst_bindir/pg_ctl" -D "$work/data" -m fast -w -t 600 stop >/dev/null 2>&1 || true
	fi
}
trap stop_server EXIT

rm -rf "$work"
mkdir -p "$work/logs" "$work/build"

# 1. A private, relocated copy of the installation (the postgres binary must
#    be a real file: it locates share/ and lib/ from its own path).
root="$work/inst"
for d in "$pg_bindir" "$pg_sharedir" "$pg_libdir"; do
	mkdir -p "$root$(dirname "$d")"
	cp -a "$d" "$root$d"
done
# headers are only read: a link is enough
inc=$($PG_CONFIG --pkgincludedir)
mkdir -p "$root$(dirname "$inc")"
ln -s "$inc" "$root$inc"
inst_bindir="$root$pg_bindir"
inst_pg_config="$inst_bindir/pg_config"
[ "$("$inst_pg_config" --pkglibdir)" = "$root$pg_libdir" ] || {
	echo "the installation is not relocatable; cannot run $mode" >&2; exit 1; }

# 2. Build the extension from a copy of the tree, with the instrumentation.
(cd "$src" && tar cf - --exclude=./tmp_check --exclude=./test/fuzz/work \
	--exclude='*.o' --exclude='*.so' --exclude=./results .) | tar xf - -C "$work/build"
case $mode in
	asan)
		copt="-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined"
		;;
	valgrind)
		copt="-O0 -g"
		;;
	*) echo "unknown mode $mode" >&2; exit 2 ;;
esac
make -s -C "$work/build" PG_CONFIG="$inst_pg_config" COPT="$copt" clean all >"$work/logs/build.log" 2>&1 || {
	cat "$work/logs/build.log"; exit 1; }
# the private pg_config names the private directories, so this installs there
make -s -C "$work/build" PG_CONFIG="$inst_pg_config" install >>"$work/logs/build.log" 2>&1
test -f "$root$pg_libdir/bloomfilter.so" || { echo "instrumented build not installed" >&2; exit 1; }

# 3. A cluster, started with the instrumentation.
chown -R postgres "$work" 2>/dev/null || true
"${run_as[@]}" "$inst_bindir/initdb" -D "$work/data" -A trust -U postgres >"$work/logs/initdb.log" 2>&1
opts="-p $port -k $work -c listen_addresses= -c max_parallel_workers_per_gather=2"
# SAN_PRELOAD=1: the library preloaded (the shared buffer of managed
# summaries in use; expected files assume it is not, so read the reports)
if [ -n "${SAN_PRELOAD:-}" ]; then opts="$opts -c shared_preload_libraries=bloomfilter"; fi
case $mode in
	asan)
		libasan=$(gcc -print-file-name=libasan.so)
		# libasan must initialise before any library constructor allocates.
		# Preloaded libraries initialise last, and libgpg-error (pulled in by
		# libsystemd) calls bindtextdomain from its constructor: ASan's lazy
		# start inside that malloc re-enters gettext and deadlocks on its
		# lock.  A copy of libgpg-error that depends on libasan makes the
		# loader initialise libasan first.
		shim="$work/asan-shim"
		mkdir -p "$shim"
		gpgerr=$(ldd "$inst_bindir/postgres" | awk '/libgpg-error/ {print $3}')
		if [ -n "$gpgerr" ]; then
			# installed when missing, as root (Debian's package)
			if ! command -v patchelf >/dev/null && [ "$(id -u)" = 0 ]; then
				DEBIAN_FRONTEND=noninteractive apt-get install -y -q patchelf >/dev/null 2>&1 ||
					{ apt-get update -q >/dev/null 2>&1 &&
						DEBIAN_FRONTEND=noninteractive apt-get install -y -q patchelf >/dev/null 2>&1; } || true
			fi
			command -v patchelf >/dev/null || { echo "patchelf is needed (apt-get install patchelf)" >&2; exit 1; }
			cp "$gpgerr" "$shim/"
			patchelf --add-needed "$libasan" "$shim/$(basename "$gpgerr")"
		fi
		chown -R postgres "$shim" 2>/dev/null || true
		"${run_as[@]}" env LD_PRELOAD="$libasan" LD_LIBRARY_PATH="$shim" \
			ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:log_path=$work/logs/asan:allow_user_segv_handler=1:detect_stack_use_after_return=0" \
			UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$work/logs/ubsan" \
			"$inst_bindir/pg_ctl" -D "$work/data" -o "$opts" -l "$work/logs/server.log" -w -t 120 start
		;;
	valgrind)
		"${run_as[@]}" bash -c "valgrind --tool=memcheck --trace-children=yes --track-origins=no \
			--leak-check=no --error-limit=no --num-callers=30 --read-var-info=no \
			--suppressions='$src/test/sanitize/valgrind.supp' \
			--log-file='$work/logs/valgrind.%p.log' \
			'$inst_bindir/postgres' -D '$work/data' $opts >'$work/logs/server.log' 2>&1 &"
		for _ in $(seq 600); do
			"$inst_bindir/pg_isready" -q -h "$work" -p "$port" && break
			sleep 1
		done
		;;
esac

# 4. The regression suite, from the build copy, against that server.
status=0
pm_pid=$(head -1 "$work/data/postmaster.pid")
if [ "$mode" = asan ] && ! grep -q libasan "/proc/$pm_pid/maps"; then
	echo "libasan is not loaded in the postmaster" >&2; exit 1
fi
# TAP_TESTS= : the TAP tests start their own servers, uninstrumented
# SAN_REGRESS="001_bloom_basics 101_agg_fixed ..." runs only those files
regress_override=()
if [ -n "${SAN_REGRESS:-}" ]; then regress_override=(REGRESS="$SAN_REGRESS"); fi
"${run_as[@]}" make -s -C "$work/build" PG_CONFIG="$inst_pg_config" installcheck TAP_TESTS= \
	"${regress_override[@]}" \
	PGHOST="$work" PGPORT="$port" PGUSER=postgres >"$work/logs/regress.log" 2>&1 || status=1
cat "$work/logs/regress.log"
[ -f "$work/build/regression.diffs" ] && { head -100 "$work/build/regression.diffs"; status=1; }
stop_server

# 5. Reports.
case $mode in
	asan)
		if ls "$work"/logs/asan.* "$work"/logs/ubsan.* >/dev/null 2>&1; then
			echo "== sanitizer reports:"; cat "$work"/logs/asan.* "$work"/logs/ubsan.* 2>/dev/null | head -200
			status=1
		else
			echo "== ASan/UBSan: no reports"
		fi
		if grep -q "server process .* was terminated" "$work/logs/server.log"; then
			echo "== a backend crashed:"; grep -B2 -A2 "was terminated" "$work/logs/server.log" | head -40
			status=1
		fi
		;;
	valgrind)
		total=$(cat "$work"/logs/valgrind.*.log | awk '/ERROR SUMMARY/ {s += $4} END {print s + 0}')
		suppressed=$(cat "$work"/logs/valgrind.*.log | awk '/ERROR SUMMARY/ {s += $(NF-2)} END {print s + 0}')
		procs=$(ls "$work"/logs/valgrind.*.log | wc -l)
		ours=$( (grep -l "bloomfilter.so" "$work"/logs/valgrind.*.log || true) | wc -l)
		echo "== valgrind: $procs processes, $total errors left after $suppressed suppressed; logs naming bloomfilter.so: $ours"
		if [ "$ours" -gt 0 ]; then
			grep -l "bloomfilter.so" "$work"/logs/valgrind.*.log | head -5 | xargs -r cat | head -200
			status=1
		fi
		;;
esac
echo "== logs in $work/logs"
exit $status
