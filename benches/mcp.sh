#!/usr/bin/env bash
# Benchmark of `skilldex serve` on the 10k-skill corpus: start to first
# answer (next to `skilldex render`), and the round trips of search_skills
# and read_skill in one stdio session. See benches/mcp.py for what is timed.
#
# Settings: BENCH_DIR (target/bench), COUNT (10000), BUILD (1), RUNS (5).
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-target/bench}
COUNT=${COUNT:-10000}
RUNS=${RUNS:-5}
if [ "${BUILD:-1}" = 1 ]; then
  cargo build --release --bin skilldex --example gen_corpus
fi
corpus="$BENCH_DIR/c$((COUNT / 1000))k"
if [ ! -d "$corpus" ]; then
  target/release/examples/gen_corpus "$corpus" "$COUNT"
fi
python=${PYTHON:-python3}
exec "$python" benches/mcp.py target/release/skilldex "$corpus" --runs "$RUNS"
