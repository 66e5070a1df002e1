#!/bin/bash
# bench/server/summary_fuzz_long.sh: the long run of the managed summaries'
# differential fuzzer (test/fuzz/differential/summary_fuzz.py, through its
# TAP wrapper test/t/845_summary_fuzz.pl): SECONDS_BUDGET seconds split
# into CRASHES + 1 segments with an immediate shutdown between two, then
# more segments until the targets are reached (reads, reads that skipped a
# partition, concurrent rounds), at most MAX_RUNS runs.  Writes
# bench/results/summary-fuzz-results.md: the seeds, the counts, and the
# findings of each run.
#
#   bash bench/server/summary_fuzz_long.sh
#   PG_CONFIG=/path/to/pg_config SECONDS_BUDGET=600 bash bench/server/summary_fuzz_long.sh
#
# Environment: PG_CONFIG (the installation, with the extension installed
# and its TAP modules), SECONDS_BUDGET (900 per run), CRASHES (5 per run),
# SEED (the first run's; each next run seed + 1000), TARGET_READS (20000),
# TARGET_SKIPPED (5000), TARGET_CONCURRENT (200), MAX_RUNS (4), OUT,
# LOGDIR (where each run's TAP log and findings file are kept).
# Runs as the postgres OS user when started as root.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
OUT=${OUT:-$ROOT/bench/results/summary-fuzz-results.md}
PG_CONFIG=${PG_CONFIG:-pg_config}
SECONDS_BUDGET=${SECONDS_BUDGET:-900}
CRASHES=${CRASHES:-5}
SEED=${SEED:-$((RANDOM * 32768 + RANDOM))}
TARGET_READS=${TARGET_READS:-20000}
TARGET_SKIPPED=${TARGET_SKIPPED:-5000}
TARGET_CONCURRENT=${TARGET_CONCURRENT:-200}
MAX_RUNS=${MAX_RUNS:-4}

BINDIR=$("$PG_CONFIG" --bindir)
PGXS_SRC=$(dirname "$("$PG_CONFIG" --pgxs)")/..
PGXS_PERL=$PGXS_SRC/test/perl
VERSION=$("$PG_CONFIG" --version)
COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')
# the TAP logs of each run (findings with their statements) are kept here
LOGDIR=${LOGDIR:-$(mktemp -d /tmp/summary-fuzz-logs.XXXXXX)}

# prove wants a directory the server's user can write (tmp_check) and the
# sources: a copy of test/.
WORK=$(mktemp -d /tmp/summary-fuzz-long.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/test"
cp -a "$ROOT/test/t" "$ROOT/test/fuzz" "$WORK/test/"
as_user=()
if [ "$(id -u)" = 0 ]; then
    chown -R postgres: "$WORK"
    as_user=(runuser -u postgres --)
fi

declare -A TOTAL=()
RUNS=()
run=0
while :; do
    seed=$((SEED + run * 1000))
    stats="$WORK/stats-$run.json"
    log="$WORK/run-$run.log"
    start=$(date +%s)
    status=0
    (cd "$WORK" && "${as_user[@]}" env TESTDIR="$WORK" PATH="$BINDIR:$PATH" \
        BLOOM_FUZZ_SECONDS="$SECONDS_BUDGET" BLOOM_FUZZ_SEED="$seed" \
        BLOOM_FUZZ_CRASHES="$CRASHES" BLOOM_FUZZ_RESULTS="$stats" \
        PG_TEST_PORT_DIR=/tmp/bloomfilter-tap-ports PG_REGRESS="$PGXS_SRC/test/regress/pg_regress" \
        nice prove -I "$PGXS_PERL" -I "$WORK" --verbose test/t/845_summary_fuzz.pl) >"$log" 2>&1 || status=$?
    secs=$(( $(date +%s) - start ))
    [ -f "$stats" ] || { cat "$log"; echo "error: run $run left no statistics" >&2; exit 1; }
    # the counts of this run, added to the totals
    while IFS='=' read -r k v; do
        TOTAL[$k]=$(( ${TOTAL[$k]:-0} + v ))
    done < <(/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for k, v in sorted(d.items()):
    if isinstance(v, int) and k not in ("seed", "seconds"):
        print("%s=%d" % (k.replace(" ", "_").replace("(", "").replace(")", "").replace(",", ""), v))
' "$stats")
    RUNS+=("$run|$seed|$secs|$status|$(cat "$stats")")
    cp "$log" "$LOGDIR/run-$run.log"
    cp "$WORK"/tmp_check/t_845_summary_fuzz_summary_fuzz_data/fuzz_findings.txt "$LOGDIR/findings-$run.txt" 2>/dev/null || true
    run=$((run + 1))
    if [ "${TOTAL[reads]:-0}" -ge "$TARGET_READS" ] && [ "${TOTAL[reads_skipped]:-0}" -ge "$TARGET_SKIPPED" ] \
        && [ "${TOTAL[concurrent_rounds]:-0}" -ge "$TARGET_CONCURRENT" ]; then
        break
    fi
    [ "$run" -lt "$MAX_RUNS" ] || break
done

{
    echo "# Managed summaries: the differential fuzzer's long run"
    echo
    echo "\`bench/server/summary_fuzz_long.sh\` on $(date -u '+%Y-%m-%d %H:%M UTC'), $VERSION, commit"
    echo "$COMMIT; $run run(s) of"
    echo "\`test/t/845_summary_fuzz.pl\` with BLOOM_FUZZ_SECONDS=$SECONDS_BUDGET and"
    echo "BLOOM_FUZZ_CRASHES=$CRASHES (an immediate shutdown and a restart between segments)."
    echo "Each read ran with \`bloomfilter.enable_summary_pruning\` on and off in the same"
    echo "transaction; a read counts as skipping when its EXPLAIN ANALYZE shows a partition or a"
    echo "scan skipped by the summary."
    echo
    echo "| total | count | target |"
    echo "|---|---:|---:|"
    echo "| reads compared | ${TOTAL[reads]:-0} | $TARGET_READS |"
    echo "| reads that skipped a partition | ${TOTAL[reads_skipped]:-0} | $TARGET_SKIPPED |"
    echo "| concurrent rounds | ${TOTAL[concurrent_rounds]:-0} | $TARGET_CONCURRENT |"
    echo "| commits held in flight | ${TOTAL[held_commits]:-0} | |"
    echo "| crash rounds (restarts checked) | ${TOTAL[crash_checks]:-0} | |"
    echo "| keys checked after crashes | ${TOTAL[crash_keys_checked]:-0} | |"
    echo "| committed rows missing after a crash | ${TOTAL[crash_rows_missing]:-0} | 0 |"
    echo "| writes | ${TOTAL[writes]:-0} | |"
    echo "| merges, refreshes | ${TOTAL[merges]:-0}, ${TOTAL[refreshes]:-0} | |"
    echo "| tables | ${TOTAL[tables]:-0} | |"
    echo "| **wrong results** | **${TOTAL[wrong_results]:-0}** | 0 |"
    echo "| **spurious errors** | **${TOTAL[spurious_errors]:-0}** | 0 |"
    echo "| statements failing with pruning off too | ${TOTAL[invalid_statements]:-0} | 0 |"
    echo
    echo "Findings by the case of issue 34 they look like (a hint from what the round had"
    echo "done; \`summary_replay.py --minimize\` gives the sequence):"
    echo
    found=0
    for k in "${!TOTAL[@]}"; do
        case $k in case_*) echo "- ${k#case_}: ${TOTAL[$k]}"; found=1 ;; esac
    done
    [ "$found" = 1 ] || echo "- none"
    echo
    echo "| run | seed | seconds | prove exit |"
    echo "|---:|---:|---:|---:|"
    for r in "${RUNS[@]}"; do
        IFS='|' read -r n s t st _ <<<"$r"
        echo "| $n | $s | $t | $st |"
    done
    echo
    echo "Replay one run: \`BLOOM_FUZZ_SEED=<seed> BLOOM_FUZZ_SECONDS=$SECONDS_BUDGET"
    echo "BLOOM_FUZZ_CRASHES=$CRASHES\` with the TAP file (the interleaving is the seed's; the"
    echo "time budget decides where it stops)."
} >"$OUT"
echo "wrote $OUT; logs and findings in $LOGDIR"
cat "$OUT"
