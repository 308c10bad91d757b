# Sourced by scripts/test.sh (npm test) and .ci/run: `step NAME COMMAND…` runs every step even
# when one before it failed (a timeout in one suite must not hide the journeys after it), prints
# "PASS|FAIL name (seconds)" as each ends, and `steps_summary` prints them all again and returns
# non-zero if any failed.
#
# Each step's output is also kept in a log, and a failed step's summary line is followed by the
# lines of that log that name what failed: CI shows only the head and tail of a long run, and a
# summary that says "vitest failed" without naming the test sends the next person to re-run 600 s
# of tests to find it.
steps_started=$(date +%s)
steps_results=()
steps_failed=0
steps_logs=$(mktemp -d "${TMPDIR:-/tmp}/steps.XXXXXX")

# Lines that name a failed test in vitest's and Playwright's reporters, and npm's own errors.
steps_failure_lines() {
  sed -E 's/\x1b\[[0-9;]*m//g' "$1" \
    | grep -aE '^ *(FAIL|×|✘|✗) |^ *[0-9]+\) \[|^\s+(Error|AssertionError|TypeError|Test timed out)|Unhandled (Rejection|Error)|^npm error' \
    | awk '!seen[$0]++' | head -n 40
}

step() {
  local name=$1
  shift
  local began code log status
  began=$(date +%s)
  log="$steps_logs/${#steps_results[@]}.log"
  echo "::: $name (+$((began - steps_started))s)"
  "$@" 2>&1 | tee "$log"
  code=${PIPESTATUS[0]}
  if [ "$code" -eq 0 ]; then
    status="PASS  $name ($(( $(date +%s) - began ))s)"
    steps_results+=("$status")
  else
    steps_failed=$((steps_failed + 1))
    status="FAIL  $name ($(( $(date +%s) - began ))s, exit $code)"
    steps_results+=("$status")
    while IFS= read -r line; do steps_results+=("        $line"); done < <(steps_failure_lines "$log")
  fi
  echo "::: $status"
}

steps_summary() {
  echo "::: $1 summary (+$(( $(date +%s) - steps_started ))s)"
  printf '%s\n' "${steps_results[@]}"
  echo "$1: $(grep -c '^PASS' < <(printf '%s\n' "${steps_results[@]}")) passed, $steps_failed failed"
  [ "$steps_failed" -eq 0 ]
}
