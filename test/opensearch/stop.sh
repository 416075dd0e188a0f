#!/usr/bin/env bash
# Stop the OpenSearch nodes started by start.sh in a run dir (one node-N.pid file per node).
#
#   test/opensearch/stop.sh [--dir RUN_DIR] [--timeout SECONDS]
#
# Sends SIGTERM, waits for every process to exit (SIGKILL after the timeout, default 60s),
# removes the pid files. Data stays in RUN_DIR/node-N/data. Exits 0 if nothing is running.
set -euo pipefail

RUN_DIR="$PWD/.opensearch"
TIMEOUT=60
while [[ $# -gt 0 ]]; do
  case "$1" in
    --dir) RUN_DIR=${2:?}; shift 2 ;;
    --dir=*) RUN_DIR=${1#*=}; shift ;;
    --timeout) TIMEOUT=${2:?}; shift 2 ;;
    --timeout=*) TIMEOUT=${1#*=}; shift ;;
    -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 0 ;;
    *) echo "stop.sh: unknown argument: $1" >&2; exit 2 ;;
  esac
done

log() { echo "[opensearch] $*" >&2; }
[[ -d $RUN_DIR ]] || { log "no run dir $RUN_DIR: nothing to stop"; exit 0; }
RUN_DIR=$(cd "$RUN_DIR" && pwd)
exec 9>"$RUN_DIR/.lock"
flock -w 300 9 || { log "timed out waiting for the lock on $RUN_DIR/.lock"; exit 1; }

is_node_pid() { # pid is alive and is an OpenSearch JVM (or its bin/opensearch launcher)
  local c; [[ -n ${1:-} ]] && c=$(tr '\0' ' ' 2>/dev/null </proc/"$1"/cmdline) \
    && [[ $c == *org.opensearch.bootstrap.OpenSearch* || $c == */bin/opensearch* ]]
}

alive() { # still a process (exiting JVMs lose their cmdline first; zombies count as gone)
  local st; st=$(sed 's/^.*) //' /proc/"$1"/stat 2>/dev/null | cut -d' ' -f1) && [[ -n $st && $st != Z && $st != X ]]
}

pids=()
for pidf in "$RUN_DIR"/node-*.pid; do
  [[ -f $pidf ]] || continue
  pid=$(cat "$pidf")
  if is_node_pid "$pid"; then
    log "stopping $(basename "$pidf" .pid) (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    pids+=("$pid")
  fi
done

deadline=$((SECONDS + TIMEOUT))
for pid in "${pids[@]}"; do
  while alive "$pid"; do
    if ((SECONDS >= deadline)); then
      log "pid $pid still alive after ${TIMEOUT}s: SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 1
      break
    fi
    sleep 0.5
  done
done
rm -f "$RUN_DIR"/node-*.pid
log "stopped ${#pids[@]} node(s) in $RUN_DIR"
