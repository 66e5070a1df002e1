#!/bin/bash
# bench/server/summary_writes.sh: the write path of managed summaries.
# CLIENTS concurrent pgbench sessions insert single rows into today's
# partition of a table partitioned by day, in three tables of one cluster,
# measured in the same run, interleaved ROUNDS times for SECONDS each:
#   none     no summary
#   managed  bloom_summary_create, the library preloaded: writers append
#            their keys to the shared buffer, merged by writers
#   managed_rows  the same with bloomfilter.summary_buffer = off: one
#            delta row per transaction, merged by writers
#   upsert   the 1.1 recipe: bloom_summary_trigger, one upsert per statement
# It prints transactions per second and the ratios managed/none,
# managed_rows/none and upsert/none; then the summary's on-disk growth per
# 10^5 rows before a merge, and the time and memory of merging 10^5
# pending keys.
# Results: bench/results/summary-writes-results.md.
#
#   bash bench/server/summary_writes.sh
#   CLIENTS=8 SECONDS_PER_RUN=20 ROUNDS=3 bash bench/server/summary_writes.sh
#
# Starts a throwaway cluster on port $PORT (as the postgres OS user when
# run as root) and removes it on exit.  PG_CONFIG picks the installation.
set -euo pipefail

CLIENTS=${CLIENTS:-8}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-15}
ROUNDS=${ROUNDS:-3}
CAPACITY=${CAPACITY:-100000}
PORT=${PORT:-5591}
PG_CONFIG=${PG_CONFIG:-pg_config}
BIN=$($PG_CONFIG --bindir)
DIR=$(mktemp -d /tmp/bloom-summary-bench.XXXXXX)
AS=()
if [ "$(id -u)" = 0 ]; then chown postgres "$DIR"; AS=(runuser -u postgres --); fi
cleanup() { "${AS[@]}" "$BIN/pg_ctl" -D "$DIR/data" -m immediate stop >/dev/null 2>&1 || true; rm -rf "$DIR"; }
trap cleanup EXIT

"${AS[@]}" "$BIN/initdb" -D "$DIR/data" -A trust >/dev/null
"${AS[@]}" "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/log" -w \
	-o "-p $PORT -k $DIR -c shared_buffers=512MB -c max_wal_size=4GB -c synchronous_commit=off -c shared_preload_libraries=bloomfilter" start >/dev/null
PSQL=("${AS[@]}" "$BIN/psql" -h "$DIR" -p "$PORT" -d postgres -qAtX -v ON_ERROR_STOP=1)

"${PSQL[@]}" <<SQL
CREATE EXTENSION bloomfilter;
DO \$\$
DECLARE t text;
BEGIN
	FOREACH t IN ARRAY ARRAY['none', 'managed', 'upsert'] LOOP
		EXECUTE format('CREATE TABLE ev_%s (day date NOT NULL, user_id bigint, payload text) PARTITION BY RANGE (day)', t);
		FOR d IN 0..6 LOOP
			EXECUTE format('CREATE TABLE ev_%s_%s PARTITION OF ev_%s FOR VALUES FROM (%L) TO (%L)',
			               t, d, t, current_date - d, current_date - d + 1);
		END LOOP;
	END LOOP;
END \$\$;
SELECT bloom_summary_create('ev_managed', 'user_id', $CAPACITY, 0.01);
CREATE TABLE ev_upsert_summary (day date PRIMARY KEY, filter bloom NOT NULL);
CREATE TRIGGER s AFTER INSERT ON ev_upsert REFERENCING NEW TABLE AS bloom_new_rows
	FOR EACH STATEMENT EXECUTE FUNCTION bloom_summary_trigger('public.ev_upsert_summary', 'day', 'user_id', $CAPACITY, 0.01);
SQL

for t in none managed upsert; do
	printf '\\set uid random(1, 1000000000)\nINSERT INTO ev_%s VALUES (current_date, :uid, '\''x'\'');\n' "$t" > "$DIR/$t.sql"
done
cp "$DIR/managed.sql" "$DIR/managed_rows.sql"
chmod a+r "$DIR"/*.sql

# The CPU time of the server's exited children (the pgbench sessions'
# backends, reaped by the postmaster): per transaction it does not depend
# on what else the machine runs, unlike the throughput.
HZ=$(getconf CLK_TCK)
PM_PID=$(head -1 "$DIR/data/postmaster.pid")
children_cpu_ticks() { awk '{ print $16 + $17 }' "/proc/$PM_PID/stat"; }
BACKGROUND=$(ps --ppid "$PM_PID" -o pid= | wc -l)
wait_for_backends_to_exit() {
	for _ in $(seq 1 100); do
		[ "$(ps --ppid "$PM_PID" -o pid= | wc -l)" -le "$BACKGROUND" ] && return
		sleep 0.1
	done
}

echo "load average before the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
declare -A TPS CPU
for r in $(seq 1 "$ROUNDS"); do
	for t in none managed managed_rows upsert; do
		opts=
		[ "$t" = managed_rows ] && opts="-c bloomfilter.summary_buffer=off"
		cpu0=$(children_cpu_ticks)
		out=$("${AS[@]}" env PGOPTIONS="$opts" "$BIN/pgbench" -h "$DIR" -p "$PORT" -n -c "$CLIENTS" -j "$CLIENTS" -T "$SECONDS_PER_RUN" \
			-f "$DIR/$t.sql" postgres 2>/dev/null)
		wait_for_backends_to_exit
		cpu1=$(children_cpu_ticks)
		tps=$(echo "$out" | sed -n 's/^tps = \([0-9.]*\).*/\1/p')
		ntx=$(echo "$out" | sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p')
		us=$(awk -v c=$((cpu1 - cpu0)) -v hz="$HZ" -v n="$ntx" 'BEGIN { printf "%.1f", c / hz * 1e6 / n }')
		TPS[$t]="${TPS[$t]:-} $tps"
		CPU[$t]="${CPU[$t]:-} $us"
		echo "round $r $t: $tps tps, backend CPU $us us per transaction"
	done
	"${PSQL[@]}" -c "VACUUM" >/dev/null
done
echo "load average after the runs: $(cut -d' ' -f1-3 /proc/loadavg)"
median() { tr ' ' '\n' | grep . | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
none=$(echo "${TPS[none]}" | median); managed=$(echo "${TPS[managed]}" | median); upsert=$(echo "${TPS[upsert]}" | median)
rows=$(echo "${TPS[managed_rows]}" | median)
echo "median tps: none $none  managed $managed  managed (delta rows) $rows  upsert $upsert"
awk -v n="$none" -v m="$managed" -v b="$rows" -v u="$upsert" 'BEGIN { printf "ratios: managed/none %.2f  managed(delta rows)/none %.2f  upsert/none %.3f  managed/upsert %.0f\n", m/n, b/n, u/n, m/u }'
for r in $(seq 1 "$ROUNDS"); do
	n=$(echo "${TPS[none]}" | awk -v r="$r" '{print $r}'); m=$(echo "${TPS[managed]}" | awk -v r="$r" '{print $r}')
	b=$(echo "${TPS[managed_rows]}" | awk -v r="$r" '{print $r}')
	awk -v r="$r" -v n="$n" -v m="$m" -v b="$b" 'BEGIN { printf "round %d: managed/none %.2f  managed(delta rows)/none %.2f\n", r, m/n, b/n }'
done
cn=$(echo "${CPU[none]}" | median); cm=$(echo "${CPU[managed]}" | median); cb=$(echo "${CPU[managed_rows]}" | median)
echo "median backend CPU per transaction: none $cn us  managed $cm us  managed (delta rows) $cb us"
awk -v n="$cn" -v m="$cm" -v b="$cb" 'BEGIN { printf "CPU ratios: none/managed %.2f  none/managed(delta rows) %.2f\n", n/m, n/b }'
echo "summary state after the runs:"
"${PSQL[@]}" -c "SELECT summary, partitions, trusted_partitions, bytes, pending_deltas, pending_keys, pending_bytes, buffered_keys FROM bloom_summaries"

# on-disk growth per 10^5 single-row transactions: the deltas of the runs
# above are merged and the table rewritten empty (VACUUM FULL), so new
# rows cannot fill space freed by merges.  First with the shared buffer
# (writers merging as usual: the table holds markers only), then with
# delta rows and writers that neither merge nor check (settings of the
# database, for the pgbench sessions): the growth before a merge.
delta_growth() {
	"${PSQL[@]}" -c "SELECT bloom_summary_merge()" >/dev/null
	"${PSQL[@]}" -c "VACUUM FULL bloom_summary_delta" >/dev/null
	local before after pending
	before=$("${PSQL[@]}" -c "SELECT pg_total_relation_size('bloom_summary_delta')")
	"${AS[@]}" "$BIN/pgbench" -h "$DIR" -p "$PORT" -n -c "$CLIENTS" -j "$CLIENTS" -t $((100000 / CLIENTS)) -f "$DIR/managed.sql" postgres >/dev/null 2>&1
	after=$("${PSQL[@]}" -c "SELECT pg_total_relation_size('bloom_summary_delta')")
	pending=$("${PSQL[@]}" -c "SELECT count(*) FILTER (WHERE buffer_epoch IS NULL) || ' deltas, ' || count(*) FILTER (WHERE buffer_epoch IS NOT NULL) || ' markers, ' || COALESCE(sum(nkeys), 0) || ' keys' FROM bloom_summary_delta")
	echo "$1: growth of bloom_summary_delta (table and index) per ~10^5 single-row transactions: $(( (after - before) / 1024 )) kB, $(( (after - before) / 100000 )) bytes per transaction ($pending pending; buffered: $("${PSQL[@]}" -c "SELECT buffered_keys FROM bloom_summaries WHERE parent = 'ev_managed'::regclass") keys)"
}
delta_growth "shared buffer"
"${PSQL[@]}" <<'SQL'
ALTER DATABASE postgres SET bloomfilter.summary_buffer = off;
ALTER DATABASE postgres SET bloomfilter.summary_merge_check_every = 1000000;
ALTER DATABASE postgres SET bloomfilter.summary_merge_deltas = 2000000000;
ALTER DATABASE postgres SET bloomfilter.summary_merge_keys = 2000000000;
SQL
delta_growth "delta rows, before a merge"
"${PSQL[@]}" -c "ALTER DATABASE postgres RESET ALL"
# time and memory (the backend's peak resident set, VmHWM) of merging them
timed_merge() {
	"${PSQL[@]}" <<'SQL'
SELECT pg_backend_pid() AS pid \gset
\setenv BACKEND_PID :pid
\! echo "backend before the merge: $(grep VmHWM /proc/$BACKEND_PID/status)"
\timing on
SELECT 'merged ' || bloom_summary_merge() || ' deltas';
\timing off
\! echo "backend after the merge:  $(grep VmHWM /proc/$BACKEND_PID/status)"
SELECT 'keys left in the shared buffer: ' || buffered_keys FROM bloom_summaries WHERE parent = 'ev_managed'::regclass;
SQL
}
timed_merge

# The same for 10^5 keys in the shared buffer: the server restarted with a
# slot of 262,144 hashes (the restart loses the buffered keys: the merge
# below refreshes the partitions whose markers are of the old epoch) and
# writers that do not merge; then one merge of what they buffered.
"${AS[@]}" "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/log" -w -m fast \
	-o "-p $PORT -k $DIR -c shared_buffers=512MB -c max_wal_size=4GB -c synchronous_commit=off -c shared_preload_libraries=bloomfilter -c bloomfilter.summary_buffer_keys=262144" \
	restart >/dev/null
"${PSQL[@]}" -c "SELECT bloom_summary_merge()" >/dev/null
"${PSQL[@]}" -c "ALTER DATABASE postgres SET bloomfilter.summary_merge_keys = 2000000000"
"${AS[@]}" "$BIN/pgbench" -h "$DIR" -p "$PORT" -n -c "$CLIENTS" -j "$CLIENTS" -t $((100000 / CLIENTS)) -f "$DIR/managed.sql" postgres >/dev/null 2>&1
"${PSQL[@]}" -c "ALTER DATABASE postgres RESET ALL"
echo "keys in the shared buffer: $("${PSQL[@]}" -c "SELECT buffered_keys FROM bloom_summaries WHERE parent = 'ev_managed'::regclass")"
timed_merge
