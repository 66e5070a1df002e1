#!/usr/bin/env bash
# bench/server/matrix_parallel.sh: bloom_agg(k, n, p, 'matrix') in serial and
# parallel plans (not a test).  On a throwaway cluster, for each size in
# SIZES (distinct bigint values, default "1000000 10000000"):
#
#  1. Time, interleaved: each round runs count(*), the matrix aggregate and
#     the classic fixed shape once each, serially and with 2 workers; the
#     median of REPEAT rounds is printed with its ratio to count(*) of the
#     same rows and plan, measured in the same rounds.
#  2. Memory: the partial state one of two workers sends (a filter, or
#     the packed hashes of its rows), and the peak of the summed private
#     memory (RssAnon) of the backend and its parallel workers, sampled
#     every 10 ms, during one run of the matrix aggregate in each plan
#     (before it: the backend's).
#  3. Accuracy: for the serial plan and 2 and 6 workers (leader on and
#     off), the filter's estimate over the true count, bloom_fpp, the rate
#     measured over 10^6 values never added, and whether its bytes equal
#     the serial filter's.
#
#   bash bench/server/matrix_parallel.sh
#   SIZES=1000000 REPEAT=3 bash bench/server/matrix_parallel.sh
#
# Environment: PGBIN (default: pg_config --bindir; the library installed
# there is the one measured), PORT (default 5521), REPEAT (default 5),
# FPP (default 0.01), WORK_MEM (default 4MB).
set -euo pipefail

SIZES=${SIZES:-"1000000 10000000"}
PORT=${PORT:-5521}
REPEAT=${REPEAT:-5}
FPP=${FPP:-0.01}
WORK_MEM=${WORK_MEM:-4MB}
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../../scripts/cluster.sh
source "$HERE/../../scripts/cluster.sh"
PGBIN=$(default_pgbin 2>/dev/null || echo /usr/lib/postgresql/15/bin)

export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"
cluster_workdir
WORK=$WORK_DIR
start_cluster data "$PORT" listen_addresses= shared_buffers=1GB max_worker_processes=16 \
	max_parallel_workers=12 jit=off "work_mem=$WORK_MEM"
sql() { psql_on data -At "$@"; }
sql -c "CREATE EXTENSION bloomfilter"

SERIAL="SET max_parallel_workers_per_gather = 0;"
parallel() {
	echo "SET max_parallel_workers_per_gather = $1; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
	      SET min_parallel_table_scan_size = 0; SET parallel_leader_participation = ${2:-on};"
}

# Milliseconds of one run of a query under the given settings.
run_ms() {
	sql -c "$1" -c '\timing on' -c "SELECT v IS NULL FROM ($2) q(v)" |
		sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1
}

median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# The sampler: sums RssAnon (kB) of the backend and of the processes whose
# title says they are its parallel workers, every 10 ms, until $2 exists;
# writes the peak to $3.
cat >"$WORK/sampler.pl" <<'PERL'
use strict; use warnings; use Time::HiRes qw(usleep);
my ($pid, $stop, $out) = @ARGV;
sub rss { my $f = "/proc/$_[0]/status"; open(my $h, '<', $f) or return 0;
          while (<$h>) { return $1 if /^RssAnon:\s+(\d+)/ } return 0; }
my $peak = 0;
until (-e $stop) {
	my $sum = rss($pid);
	opendir(my $d, '/proc') or die;
	for my $p (grep { /^\d+$/ } readdir($d)) {
		open(my $c, '<', "/proc/$p/cmdline") or next;
		my $cmd = <$c> // '';
		$sum += rss($p) if $cmd =~ /parallel worker for PID $pid\b/;
	}
	$peak = $sum if $sum > $peak;
	usleep(10000);
}
open(my $o, '>', $out) or die; print $o "$peak\n";
PERL
chmod a+r "$WORK/sampler.pl"

# Peak MB of the backend and its workers during one run; also the backend's
# MB just before.
peak_mb() {
	local settings=$1 query=$2 stop="$WORK/stop.$$" out="$WORK/peak.$$"
	rm -f "$stop" "$out"
	sql >/dev/null <<SQL
$settings
SELECT pg_backend_pid() AS pid \gset
\setenv BPID :pid
\! perl $WORK/sampler.pl \$BPID $stop $out & sleep 0.2
\! grep RssAnon /proc/\$BPID/status | awk '{ print \$2 }' > $WORK/before.$$
SELECT v IS NULL FROM ($query) q(v);
\! touch $stop; sleep 0.1
SQL
	while [ ! -s "$out" ]; do sleep 0.05; done
	awk -v p="$(cat "$out")" -v b="$(cat "$WORK/before.$$")" 'BEGIN { printf "%.1f MB (backend before: %.1f MB)", p / 1024, b / 1024 }'
}

for n in $SIZES; do
	echo
	echo "== $n distinct bigint values, fpp $FPP, work_mem $WORK_MEM =="
	# distinct values in [0, 2^31), probes negative: PostgreSQL's bigint hash
	# folds the high half into the low one, so a probe whose folded half is
	# a stored value's would collide whatever the filter; these never do
	sql -c "DROP TABLE IF EXISTS bench" \
		-c "CREATE TABLE bench AS SELECT (g * 2654435761::bigint) % 2147483647 AS k FROM generate_series(1, $n) g" \
		-c "VACUUM ANALYZE bench" -c "SELECT count(*) FROM bench" >/dev/null
	sql -c "$(parallel 2)" -c "EXPLAIN (COSTS OFF) SELECT bloom_agg(k, $n, $FPP, 'matrix') FROM bench" | sed 's/^/    /'

	Q_COUNT="SELECT count(*) FROM bench"
	Q_MATRIX="SELECT bloom_agg(k, $n, $FPP, 'matrix') FROM bench"
	Q_CLASSIC="SELECT bloom_agg(k, $n, $FPP) FROM bench"
	declare -A T=()
	for _ in $(seq "$REPEAT"); do
		for plan in serial parallel; do
			if [ $plan = serial ]; then set_=$SERIAL; else set_=$(parallel 2); fi
			for q in COUNT MATRIX CLASSIC; do
				eval "query=\$Q_$q"
				T[$plan.$q]="${T[$plan.$q]:-} $(run_ms "$set_" "$query")"
			done
		done
	done
	printf '%-46s %10s %12s %10s %12s\n' "median of $REPEAT interleaved rounds" "serial ms" "÷ count(*)" "2 workers" "÷ count(*)"
	for q in COUNT MATRIX CLASSIC; do
		eval "query=\$Q_$q"
		s=$(echo "${T[serial.$q]}" | median)
		p=$(echo "${T[parallel.$q]}" | median)
		sc=$(echo "${T[serial.COUNT]}" | median)
		pc=$(echo "${T[parallel.COUNT]}" | median)
		printf '%-46s %10.1f %12.2f %10.1f %12.2f\n' "$(echo "$query" | sed 's/SELECT \(.*\) FROM bench/\1/')" \
			"$s" "$(echo "$s / $sc" | bc -l)" "$p" "$(echo "$p / $pc" | bc -l)"
	done
	unset T

	# what one of two workers sends: the partial state of half the rows
	# (through the hashed twin's state type, whose flat form is it)
	sql -c "CREATE AGGREGATE pg_temp.matrix_state(bigint, bigint, float8, text) (SFUNC = bloom_agg_hashed_fixed_trans,
	        STYPE = bloom_agg_state)" -c "
		SELECT format('partial state of %s rows (a worker of two): %s MB; the filter: %s MB',
		              $n / 2, round(octet_length(bloom_agg_state_send(s)) / 1048576.0, 1),
		              round((bloom_info(bloom_empty($n, $FPP, 'matrix'))).bytes / 1048576.0, 1))
		FROM (SELECT pg_temp.matrix_state(bloom_hash(k, 0), $n, $FPP, 'matrix') AS s
		      FROM (SELECT k FROM bench LIMIT $n / 2) h) x" | sed 's/^/    /'
	echo "memory of one matrix aggregate (peak summed RssAnon):"
	echo "    serial:    $(peak_mb "$SERIAL" "$Q_MATRIX")"
	echo "    2 workers: $(peak_mb "$(parallel 2)" "$Q_MATRIX")"

	echo "accuracy (10^6 probes of values never added):"
	sql -c "DROP TABLE IF EXISTS built" -c "CREATE TABLE built (plan text, f bloom)"
	for spec in "serial|$SERIAL" "2 workers|$(parallel 2)" "2 workers, leader off|$(parallel 2 off)" \
		"6 workers|$(parallel 6) ALTER TABLE bench SET (parallel_workers = 6);" \
		"6 workers, leader off|$(parallel 6 off) ALTER TABLE bench SET (parallel_workers = 6);"; do
		name=${spec%%|*}
		# the filter is built by a SELECT (an INSERT ... SELECT is never parallel)
		sql -c "${spec#*|}" -c "COPY (SELECT bloom_agg(k, $n, $FPP, 'matrix') FROM bench) TO '$WORK/f.txt'"
		sql -c "CREATE TEMP TABLE t (f bloom)" -c "COPY t FROM '$WORK/f.txt'" \
			-c "INSERT INTO built SELECT '$name', f FROM t"
		sql -c "ALTER TABLE bench RESET (parallel_workers)"
	done
	printf '    %-24s %10s %10s %10s %8s\n' plan "estimate/n" bloom_fpp measured "= serial"
	sql -c "
		SELECT format('    %-24s %10s %10s %10s %8s', plan,
		              round((bloom_cardinality(f) / $n)::numeric, 4), round(bloom_fpp(f)::numeric, 5),
		              round((SELECT count(*) FROM generate_series(1, 1000000) g
		                     WHERE bloom_contains(f, -g::bigint)) / 1e6, 5),
		              f = (SELECT f FROM built WHERE plan = 'serial'))
		FROM built"
done
