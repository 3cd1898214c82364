#!/usr/bin/env bash
# retry N COMMAND...: run COMMAND until it succeeds, at most N times, waiting 2, 4, 8, ... s
# between attempts (a package index that drops a connection once costs a retry, not the run).
# Sourced by scripts/local_model.sh; tests/models/test_local_model.py runs it against a flaky server.
retry() {
  local attempts=$1 wait=2 n=1
  shift
  until "$@"; do
    if [ "$n" -ge "$attempts" ]; then
      echo "retry: '$1' failed $n times; giving up" >&2
      return 1
    fi
    echo "retry: '$1' failed (attempt $n of $attempts); again in ${wait} s" >&2
    sleep "$wait"
    n=$((n + 1))
    wait=$((wait * 2))
  done
}
