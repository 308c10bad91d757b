# Sourced by scripts/test.sh (npm test) and .ci/run: `step NAME COMMAND…` runs every step even
# when one before it failed (a timeout in one suite must not hide the journeys after it), prints
# "PASS|FAIL name (seconds)" as each ends, and `steps_summary` prints them all again and returns
# non-zero if any failed.
steps_started=$(date +%s)
steps_results=()
steps_failed=0

step() {
  local name=$1
  shift
  local began code
  began=$(date +%s)
  echo "::: $name (+$((began - steps_started))s)"
  if "$@"; then
    steps_results+=("PASS  $name ($(( $(date +%s) - began ))s)")
  else
    code=$?
    steps_failed=$((steps_failed + 1))
    steps_results+=("FAIL  $name ($(( $(date +%s) - began ))s, exit $code)")
  fi
  echo "::: ${steps_results[-1]}"
}

steps_summary() {
  echo "::: $1 summary (+$(( $(date +%s) - steps_started ))s)"
  printf '%s\n' "${steps_results[@]}"
  echo "$1: $(( ${#steps_results[@]} - steps_failed )) passed, $steps_failed failed"
  [ "$steps_failed" -eq 0 ]
}
