#!/bin/bash
# bench/server/semijoin_fuzz_long.sh: the long run of the semijoin
# prefilter's differential fuzzer (test/fuzz/differential/semijoin_fuzz.py,
# doc/developer.md "The semijoin fuzzer").  Three throwaway servers (a local
# one and two remotes, the foreign servers listing the extension), the
# fuzzer run for QUERIES statements, each with the rewrite on and off; its
# figures (statements, how many fired the rewrite, differences and errors
# only with the rewrite on, by class, the smallest finding of each class)
# are appended to bench/results/semijoin-fuzz-results.md as a section named
# after the code tested (the last commit that changed src/ or extension/).
#
#   bash bench/server/semijoin_fuzz_long.sh                    # 20,000 statements
#   QUERIES=2000 SEED=42 bash bench/server/semijoin_fuzz_long.sh
#
# Environment: QUERIES (20000), SEED (random; printed, and written with the
# figures: SEED=... replays the run), LABEL (a name for the section; default
# the commit and "dirty" if the tree has changes), RESULTS (the file, default
# bench/results/semijoin-fuzz-results.md; RESULTS=/dev/null writes nothing),
# PORT_BASE (the servers listen on PORT_BASE+1 to +3; default free ports),
# PGBIN or PG_CONFIG (default: pg_config in PATH, else PostgreSQL 15).
# Needs postgres_fdw, this extension installed, and Debian's
# python3-psycopg2.  The exit status is 1 if the fuzzer found a difference or
# an error only with the rewrite on.  About 30 to 80 statements a second on
# two cores, depending on the load.
set -euo pipefail

QUERIES=${QUERIES:-20000}
SEED=${SEED:-$RANDOM$RANDOM}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
RESULTS=${RESULTS:-$ROOT/bench/results/semijoin-fuzz-results.md}
# shellcheck source=../../scripts/cluster.sh
source "$ROOT/scripts/cluster.sh"
PGBIN=$(default_pgbin 2>/dev/null || echo /usr/lib/postgresql/15/bin)
# the code tested: the last commit that changed src/ or extension/ (what the
# fuzzer exercises), and the checkout's commit
code=$(git -C "$ROOT" log -1 --format=%h -- src extension 2>/dev/null || echo unknown)
head=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$ROOT" diff --quiet HEAD -- src extension 2>/dev/null || echo ', with uncommitted changes')
LABEL=${LABEL:-code $code (checkout $head$dirty)}

cluster_workdir
port() { [ -z "${PORT_BASE:-}" ] || echo $((PORT_BASE + $1)); }
start_cluster a "$(port 1)" autovacuum=off
start_cluster b "$(port 2)" autovacuum=off
start_cluster local "$(port 3)" autovacuum=off session_preload_libraries=bloomfilter

for name in a b; do
    psql_on "$name" -c 'CREATE EXTENSION bloomfilter'
done
psql_on local <<SQL
CREATE EXTENSION bloomfilter;
CREATE EXTENSION postgres_fdw;
CREATE SERVER a FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host '$(cluster_host a)', port '$(cluster_port a)', dbname 'postgres', extensions 'bloomfilter');
CREATE USER MAPPING FOR CURRENT_USER SERVER a;
CREATE SERVER b FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host '$(cluster_host b)', port '$(cluster_port b)', dbname 'postgres', extensions 'bloomfilter');
CREATE USER MAPPING FOR CURRENT_USER SERVER b;
SQL

dsn() { echo "host=$(cluster_host "$1") port=$(cluster_port "$1") dbname=postgres user=postgres"; }
LOG="$WORK_DIR/fuzz.log"
echo "semijoin fuzz: $QUERIES statements, seed $SEED, $LABEL" >&2
start=$SECONDS
status=0
nice /usr/bin/python3 "$ROOT/test/fuzz/differential/semijoin_fuzz.py" \
    --local "$(dsn local)" --remote "a=$(dsn a)" --remote "b=$(dsn b)" \
    --queries "$QUERIES" --seed "$SEED" --show 0 | tee "$LOG" >&2 || status=$?
elapsed=$((SECONDS - start))
summary=$(grep '^SUMMARY' "$LOG" || true)
[ -n "$summary" ] || die "the fuzzer printed no summary (exit $status)"

if [ "$RESULTS" != /dev/null ]; then
    [ -s "$RESULTS" ] || cat >"$RESULTS" <<'EOF'
# Semijoin prefilter: long runs of the differential fuzzer

Written by `bench/server/semijoin_fuzz_long.sh` (one section a run, the
newest last): `test/fuzz/differential/semijoin_fuzz.py` against a local
server and two remote servers, each statement run with
`bloomfilter.semijoin_prefilter` on and off. "fired": statements whose plan
with the rewrite on holds the filter. A difference or an error only with
the rewrite on is a finding; the class is the fuzzer's guess from the
statement's shape (the classes of issue 33). `SEED=<seed>` replays a run.
EOF
    {
        echo
        echo "## $LABEL, $(date -u +%Y-%m-%d), PostgreSQL $("$PGBIN/postgres" -V | awk '{print $3}')"
        echo
        echo "Seed $SEED, $elapsed s. \`$summary\`"
        echo
        echo '```'
        # the report without the findings' full text (the smallest of each
        # class is kept)
        sed -n '/^# [0-9]* s, /,/^SUMMARY/p' "$LOG" | grep -v '^SUMMARY'
        echo '```'
    } >>"$RESULTS"
    echo "written: $RESULTS" >&2
fi
exit "$status"
