#!/usr/bin/env bash
# bisect-run.sh - drive `git bisect run` with predictable exit-code handling.
#
# Usage:
#   bisect-run.sh [options] GOOD BAD -- TEST_COMMAND [ARGS...]
#
# Options:
#   -b CMD    build command run before every test; if it fails the commit is
#             skipped (exit 125) instead of being marked bad
#   -t SECS   kill the test after SECS seconds and count the commit as bad
#   -p PATH   only consider commits touching PATH (repeatable)
#   -f        follow only the first parent of merges (git 2.29+)
#   -l FILE   write the final `git bisect log` to FILE
#   -k        keep the bisect session open afterwards (no `git bisect reset`)
#   -h        show this help
#
# Exit-code contract for TEST_COMMAND (same as git's, made safer):
#   0        commit is good
#   125      commit cannot be tested -> skipped
#   1..127   commit is bad
#   >=128    (crash / signal) -> treated as bad instead of aborting the run
#
# The per-commit runner is copied to a temporary file outside the work tree,
# so checking out old commits can never change the script that judges them.
set -euo pipefail

usage() { sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "bisect-run: $*" >&2; exit 2; }

build_cmd=""
timeout_s=""
keep=0
first_parent=0
log_file=""
paths=()

while getopts ":b:t:p:fl:kh" opt; do
  case $opt in
    b) build_cmd=$OPTARG ;;
    t) timeout_s=$OPTARG ;;
    p) paths+=("$OPTARG") ;;
    f) first_parent=1 ;;
    l) log_file=$OPTARG ;;
    k) keep=1 ;;
    h) usage; exit 0 ;;
    :) die "option -$OPTARG needs a value" ;;
    \?) die "unknown option -$OPTARG (see -h)" ;;
  esac
done
shift $((OPTIND - 1))

[[ $# -ge 4 ]] || { usage >&2; exit 2; }
good=$1
bad=$2
shift 2
[[ $1 == "--" ]] || die "expected -- between BAD and the test command"
shift

git rev-parse --git-dir >/dev/null 2>&1 || die "not inside a git repository"
cd "$(git rev-parse --show-toplevel)"

if [[ -f "$(git rev-parse --git-path BISECT_LOG)" ]]; then
  die "a bisect session is already running; finish it with 'git bisect reset'"
fi
if ! git diff --quiet || ! git diff --cached --quiet; then
  die "uncommitted changes in the work tree; commit or stash them first"
fi
git rev-parse -q --verify "$good^{commit}" >/dev/null || die "unknown good revision: $good"
git rev-parse -q --verify "$bad^{commit}" >/dev/null || die "unknown bad revision: $bad"
if [[ -n $timeout_s ]]; then
  [[ $timeout_s =~ ^[0-9]+$ ]] || die "-t expects whole seconds"
  command -v timeout >/dev/null || die "-t needs the 'timeout' command (coreutils)"
fi

runner=$(mktemp "${TMPDIR:-/tmp}/bisect-runner.XXXXXX")
bisect_started=0

cleanup() {
  rm -f "$runner"
  if [[ $bisect_started -eq 1 && $keep -eq 0 ]]; then
    git bisect reset >/dev/null 2>&1 || true
  fi
}
trap cleanup EXIT

cat >"$runner" <<'RUNNER'
#!/usr/bin/env bash
set -uo pipefail
rev=$(git rev-parse --short HEAD)
if [[ -n ${BISECT_RUN_BUILD:-} ]]; then
  if ! bash -c "$BISECT_RUN_BUILD" >"${TMPDIR:-/tmp}/bisect-build-$rev.log" 2>&1; then
    echo "[bisect-run] $rev: build failed -> skip (log: ${TMPDIR:-/tmp}/bisect-build-$rev.log)" >&2
    exit 125
  fi
fi
if [[ -n ${BISECT_RUN_TIMEOUT:-} ]]; then
  timeout --kill-after=5 "$BISECT_RUN_TIMEOUT" bash -c "$BISECT_RUN_TEST"
else
  bash -c "$BISECT_RUN_TEST"
fi
rc=$?
case $rc in
  0) verdict="good" ;;
  125) verdict="skip" ;;
  124) verdict="bad (timed out or exit 124)"; rc=1 ;;
  *)
    if (( rc >= 128 )); then
      verdict="bad (killed by signal $((rc - 128)))"
      rc=1
    else
      verdict="bad"
    fi
    ;;
esac
echo "[bisect-run] $rev: $verdict" >&2
exit "$rc"
RUNNER
chmod +x "$runner"

BISECT_RUN_TEST=$(printf '%q ' "$@")
BISECT_RUN_BUILD=$build_cmd
BISECT_RUN_TIMEOUT=$timeout_s
export BISECT_RUN_TEST BISECT_RUN_BUILD BISECT_RUN_TIMEOUT

start_args=()
[[ $first_parent -eq 1 ]] && start_args+=(--first-parent)
start_args+=("$bad" "$good")
[[ ${#paths[@]} -gt 0 ]] && start_args+=(-- "${paths[@]}")

git bisect start "${start_args[@]}"
bisect_started=1

set +e
git bisect run "$runner"
run_rc=$?
set -e

bisect_log=$(git bisect log)
if [[ -n $log_file ]]; then
  printf '%s\n' "$bisect_log" >"$log_file"
  echo "bisect-run: log written to $log_file"
fi

first_bad=$(printf '%s\n' "$bisect_log" | sed -n 's/^# first bad commit: \[\([0-9a-f]*\)\].*/\1/p' | tail -n 1)

echo
if [[ -n $first_bad ]]; then
  echo "bisect-run: first bad commit is $first_bad"
  git --no-pager show --no-patch --format='  %h %s%n  author: %an <%ae>%n  date:   %ad' "$first_bad"
  git --no-pager show --stat --format= "$first_bad" | sed 's/^/  /'
  result=0
else
  echo "bisect-run: no single culprit found (run exit $run_rc)."
  echo "bisect-run: usually too many skipped commits or an inconsistent test; see the log above."
  result=1
fi

if [[ $keep -eq 1 ]]; then
  echo "bisect-run: session kept open; run 'git bisect reset' when done."
fi
exit "$result"
