#!/usr/bin/env bash
# Benchmark hot reload on the synthetic 10k-skill corpus.
#
# Usage: benches/live.sh            (from any directory)
#
# Environment:
#   BENCH_DIR=target/bench   where the corpus and results go
#   COUNT=10000              skills in the corpus
#   EDITS=200                edits timed for write → visible latency
#   RSS_EDITS=1000           further edits while resident memory is sampled
#   IDLE_SECONDS=30          how long `skilldex watch` is left idle for its CPU use
#   BUILD=0                  skip `cargo build` (use the binaries already built)
#
# It generates the corpus as benches/render.sh does (same generator, same
# stamp), copies it (the benchmark edits its copy), then:
#   1. examples/live_bench: full scans, then a LiveCatalog with default
#      settings: write → revision visible p50/p99, a one-file rebuild against
#      a full scan, RSS over RSS_EDITS edits;
#   2. `skilldex watch --json` left idle: CPU time used, and its RSS.
# Results: $BENCH_DIR/live.json (the example's figures) and live.txt (the summary).
set -euo pipefail

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'live.sh: %s\n' "$*" >&2; exit 2; }

caller_dir=$(pwd)
from_caller() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s/%s\n' "$caller_dir" "$1" ;; esac; }
if [[ -n ${BENCH_DIR:-} ]]; then BENCH_DIR=$(from_caller "$BENCH_DIR"); fi
script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
cd -- "$script_dir/.."

target_dir=${CARGO_TARGET_DIR:-target}
BENCH_DIR=${BENCH_DIR:-target/bench}
COUNT=${COUNT:-10000}
EDITS=${EDITS:-200}
RSS_EDITS=${RSS_EDITS:-1000}
IDLE_SECONDS=${IDLE_SECONDS:-30}
BUILD=${BUILD:-1}
SKILLDEX=$target_dir/release/skilldex
GEN_CORPUS=$target_dir/release/examples/gen_corpus
LIVE_BENCH=$target_dir/release/examples/live_bench

if [[ $BUILD != 0 ]]; then
    log "cargo build --release --bin skilldex --example gen_corpus --example live_bench"
    cargo build --release --bin skilldex --example gen_corpus --example live_bench
fi
for binary in "$SKILLDEX" "$GEN_CORPUS" "$LIVE_BENCH"; do
    [[ -x $binary ]] || die "$binary not found; run without BUILD=0"
done

mkdir -p "$BENCH_DIR"
name=c$((COUNT / 1000))k
dir=$BENCH_DIR/$name stamp=$BENCH_DIR/.$name.stamp
want="count=$COUNT generator=$(sha256sum examples/gen_corpus.rs | cut -c1-16)"
if [[ ! -d $dir || ! -f $stamp || $(cat "$stamp") != "$want" ]]; then
    log "generating $dir ($COUNT skills)"
    rm -f "$stamp"
    "$GEN_CORPUS" "$dir" "$COUNT" --force
    printf '%s\n' "$want" >"$stamp"
fi
copy=$BENCH_DIR/$name-live
log "copying $dir to $copy (the benchmark edits its copy)"
rm -rf "$copy"
cp -r "$dir" "$copy"

summary=$BENCH_DIR/live.txt
log "live_bench $copy $EDITS $RSS_EDITS"
"$LIVE_BENCH" "$copy" "$EDITS" "$RSS_EDITS" >"$BENCH_DIR/live.json" 2>"$summary"
cat "$summary" >&2

log "skilldex watch --json, idle for $IDLE_SECONDS s"
out=$(mktemp)
"$SKILLDEX" watch --root "$copy" --json >"$out" 2>/dev/null &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; rm -f "$out"' EXIT
for _ in $(seq 1 600); do
    grep -q '"type":"ready"' "$out" && break
    sleep 0.1
done
grep -q '"type":"ready"' "$out" || die "watch never said ready"
sleep 2 # let the events of its own first scan drain
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
before=$(ticks)
sleep "$IDLE_SECONDS"
after=$(ticks)
hz=$(getconf CLK_TCK)
rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
kill -INT "$pid"
wait "$pid" || die "watch did not exit cleanly on Ctrl-C"
trap - EXIT
rm -f "$out"
python3 - "$before" "$after" "$hz" "$IDLE_SECONDS" "$rss" <<'EOF' | tee -a "$summary" >&2
import sys
before, after, hz, seconds, rss = (float(x) for x in sys.argv[1:])
cpu = (after - before) / hz
print(f"watch idle: {cpu * 1000:.0f} ms of CPU in {seconds:.0f} s ({cpu / seconds * 100:.3f}% of one core); RSS {rss / 1024:.1f} MB")
EOF
log "results in $BENCH_DIR/live.json and $summary"
