#!/usr/bin/env bash
# Start N local OpenSearch nodes (bare integ-test-zip distribution from Maven Central).
#
#   test/opensearch/start.sh [--nodes N] [--port HTTP_PORT] [--dir RUN_DIR]
#
# Idempotent: the distribution is fetched once (~/.m2 + $OPENSEARCH_HOME_BASE), a node that
# already answers on its port is reused. HTTP on 127.0.0.1:PORT+i, transport on PORT+100+i.
# Progress goes to stderr; the last stdout line is the comma-separated node URLs.
# Env: OPENSEARCH_HOME_BASE (unpack dir), OPENSEARCH_VERSION (override pom), OPENSEARCH_HEAP
# (default 512m), OPENSEARCH_JAVA_HOME (Java 11..23), OPENSEARCH_RUN_USER (user used when
# started as root, default "opensearch"), OPENSEARCH_START_TIMEOUT (seconds, default 240).
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
NODES=1
PORT=9200
RUN_DIR="$PWD/.opensearch"

usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit "${1:-2}"; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --nodes) NODES=${2:?}; shift 2 ;;
    --nodes=*) NODES=${1#*=}; shift ;;
    --port) PORT=${2:?}; shift 2 ;;
    --port=*) PORT=${1#*=}; shift ;;
    --dir) RUN_DIR=${2:?}; shift 2 ;;
    --dir=*) RUN_DIR=${1#*=}; shift ;;
    -h|--help) usage 0 ;;
    *) echo "start.sh: unknown argument: $1" >&2; usage ;;
  esac
done
[[ $NODES =~ ^[1-9][0-9]*$ && $PORT =~ ^[0-9]+$ ]] || { echo "start.sh: bad --nodes/--port" >&2; exit 2; }

log() { echo "[opensearch] $*" >&2; }
die() { echo "[opensearch] ERROR: $*" >&2; exit 1; }

mkdir -p "$RUN_DIR"
RUN_DIR=$(cd "$RUN_DIR" && pwd)
exec 9>"$RUN_DIR/.lock"
flock -w 300 9 || die "timed out waiting for the lock on $RUN_DIR/.lock" # serialize concurrent start/stop

# ---------- tiny HTTP client (bash /dev/tcp: no curl needed) ----------
# http_get URL -> prints body; returns 0 on 2xx, 1 otherwise (incl. connection refused).
http_get() {
  local rest=${1#http://} hostport path resp status
  hostport=${rest%%/*}; path=/${rest#*/}; [[ $rest == */* ]] || path=/
  resp=$(
    exec 2>/dev/null
    exec 3<>"/dev/tcp/${hostport%:*}/${hostport#*:}" || exit 1
    printf 'GET %s HTTP/1.0\r\nHost: %s\r\nAccept: application/json\r\n\r\n' "$path" "$hostport" >&3
    timeout 60 cat <&3
  ) || return 1
  status=$(head -n1 <<<"$resp" | cut -d' ' -f2)
  printf '%s\n' "${resp#*$'\r\n\r\n'}"
  [[ $status == 2* ]]
}
answers() { local b; b=$(http_get "http://127.0.0.1:$1/") && [[ $b == *'"cluster_name"'* ]]; }
# A process we just launched: alive unless gone or a zombie. Its cmdline is no test here: read while
# the launcher chain (setsid, setpriv, env, bash, java) execs, it is often empty.
is_alive() { # the state follows the last ")" of /proc/PID/stat (the command name may hold spaces)
  local s; [[ -n ${1:-} ]] && s=$(cat /proc/"$1"/stat 2>/dev/null) && s=${s##*) } && [[ ${s%% *} != Z ]]
}
is_node_pid() { # pid is alive and is an OpenSearch JVM (or its bin/opensearch launcher)
  local c; [[ -n ${1:-} ]] && c=$(tr '\0' ' ' 2>/dev/null </proc/"$1"/cmdline) \
    && [[ $c == *org.opensearch.bootstrap.OpenSearch* || $c == */bin/opensearch* ]]
}

# ---------- already running? ----------
URLS=()
all_up=1
for ((i = 0; i < NODES; i++)); do
  URLS+=("http://127.0.0.1:$((PORT + i))")
  answers $((PORT + i)) || all_up=0
done
join_urls() { local IFS=,; echo "${URLS[*]}"; }
if ((all_up)); then
  log "reusing nodes already answering on $(join_urls)"
  join_urls
  exit 0
fi

# ---------- Java (OpenSearch 2.x needs 11..23: Java 24+ removed the SecurityManager) ----------
java_major() { "$1/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\)\(\.[0-9]*\)*.*".*/\1/p' | head -n1; }
OS_JAVA=""
cands=("${OPENSEARCH_JAVA_HOME:-}" "${JAVA_HOME:-}")
if command -v java >/dev/null; then cands+=("$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")"); fi
cands+=(/usr/lib/jvm/*)
for c in "${cands[@]}"; do
  [[ -n $c && -x $c/bin/java ]] || continue
  m=$(java_major "$c"); [[ -n $m ]] || continue
  if ((m >= 11 && m <= 23)); then OS_JAVA=$c; break; fi
done
[[ -n $OS_JAVA ]] || die "no Java 11..23 found (set OPENSEARCH_JAVA_HOME)"

# ---------- fetch + unpack (once) ----------
VERSION=${OPENSEARCH_VERSION:-$(sed -n 's:.*<opensearch.version>\(.*\)</opensearch.version>.*:\1:p' "$SCRIPT_DIR/pom.xml")}
BASE=${OPENSEARCH_HOME_BASE:-$HOME/.cache/workbench-opensearch}
OS_HOME="$BASE/opensearch-$VERSION"
if [[ ! -x $OS_HOME/bin/opensearch ]]; then
  command -v mvn >/dev/null || die "mvn not found"
  mkdir -p "$BASE"
  tmp=$(mktemp -d "$BASE/.unpack.XXXXXX")
  log "fetching org.opensearch.distribution.integ-test-zip:opensearch:$VERSION:zip via Maven"
  t0=$SECONDS
  mvn -B -q -Dstyle.color=never -f "$SCRIPT_DIR/pom.xml" dependency:unpack@fetch \
    -Dopensearch.version="$VERSION" -Dopensearch.home.base="$tmp" >&2 \
    || { rm -rf "$tmp"; die "maven fetch failed"; }
  [[ -x $tmp/opensearch-$VERSION/bin/opensearch ]] || { rm -rf "$tmp"; die "unexpected archive layout"; }
  rm -rf "$OS_HOME"; mv "$tmp/opensearch-$VERSION" "$OS_HOME"; rm -rf "$tmp"
  log "fetched + unpacked in $((SECONDS - t0))s -> $OS_HOME"
fi

# ---------- running as root: OpenSearch refuses uid 0, so drop to an unprivileged user ----------
# The node runs via setpriv as $OPENSEARCH_RUN_USER (created with useradd if missing). That
# user must reach every path the node uses; /root is 0700, so when a path is not reachable
# the distribution is mirrored (cp -a) and node dirs are created under $ROOT_SHADOW, and
# RUN_DIR/node-N becomes a symlink to the real node dir.
RUN_AS=()
NODE_OWNER=""
ROOT_SHADOW=/var/lib/workbench-opensearch
if [[ $(id -u) -eq 0 ]]; then
  NODE_OWNER=${OPENSEARCH_RUN_USER:-opensearch}
  if ! id -u "$NODE_OWNER" >/dev/null 2>&1; then
    log "creating system user $NODE_OWNER"
    useradd --system --user-group --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin "$NODE_OWNER" || die "useradd $NODE_OWNER failed"
  fi
  RUN_AS=(setpriv --reuid="$NODE_OWNER" --regid="$(id -g "$NODE_OWNER")" --init-groups)
fi
# user_can TEST-ARGS...: run test(1) as the node user
user_can() { "${RUN_AS[@]}" test "$@" 2>/dev/null; }

if [[ -n $NODE_OWNER ]]; then
  user_can -x "$OS_JAVA/bin/java" || die "$OS_JAVA is not usable by $NODE_OWNER (set OPENSEARCH_JAVA_HOME)"
  if ! user_can -r "$OS_HOME/lib/opensearch-$VERSION.jar"; then
    mirror="$ROOT_SHADOW/opensearch-$VERSION"
    if [[ ! -x $mirror/bin/opensearch ]]; then
      log "$OS_HOME is not readable by $NODE_OWNER: mirroring it to $mirror"
      install -d -m 0755 "$ROOT_SHADOW"
      rm -rf "$mirror.tmp"; cp -a "$OS_HOME" "$mirror.tmp"; chmod -R a+rX "$mirror.tmp"; mv "$mirror.tmp" "$mirror"
    fi
    OS_HOME=$mirror
  fi
fi

# ---------- per-node config + launch ----------
STATE_NODES="$RUN_DIR/nodes"
if [[ -f $STATE_NODES && $(cat "$STATE_NODES") != "$NODES" ]] && compgen -G "$RUN_DIR/node-*/data" >/dev/null; then
  die "$RUN_DIR holds data of a $(cat "$STATE_NODES")-node cluster; stop it and use another --dir (or delete it)"
fi
echo "$NODES" >"$STATE_NODES"

seeds="" masters=""
for ((i = 0; i < NODES; i++)); do
  seeds+="${seeds:+, }\"127.0.0.1:$((PORT + 100 + i))\""
  masters+="${masters:+, }\"node-$i\""
done

HEAP=${OPENSEARCH_HEAP:-512m}
for ((i = 0; i < NODES; i++)); do
  http=$((PORT + i)); nd="$RUN_DIR/node-$i"; pidf="$RUN_DIR/node-$i.pid"
  if answers "$http"; then log "node-$i: reusing node on :$http"; continue; fi
  if is_node_pid "$(cat "$pidf" 2>/dev/null)"; then log "node-$i: already starting (pid $(cat "$pidf"))"; continue; fi
  if (exec 3<>"/dev/tcp/127.0.0.1/$http") 2>/dev/null; then die "port $http is taken by something that is not OpenSearch"; fi

  if [[ -n $NODE_OWNER && ! -d $nd/data ]]; then
    install -d -o "$NODE_OWNER" -g "$(id -g "$NODE_OWNER")" "$nd"
    if ! user_can -w "$nd"; then # RUN_DIR not reachable by the node user (e.g. under /root)
      rm -rf "$nd"
      real="$ROOT_SHADOW/runs/$(printf %s "$RUN_DIR" | md5sum | cut -c1-12)/node-$i"
      install -d -m 0755 "$(dirname "$real")"
      install -d -o "$NODE_OWNER" -g "$(id -g "$NODE_OWNER")" "$real"
      ln -sfn "$real" "$nd"
    fi
  fi
  nd=$(readlink -f "$nd")
  mkdir -p "$nd/config/jvm.options.d" "$nd/data" "$nd/logs" "$nd/tmp"
  cp "$OS_HOME/config/log4j2.properties" "$nd/config/"
  sed -e "s#^-Xm[sx].*##" \
      -e "s#HeapDumpPath=data#HeapDumpPath=$nd/logs#" \
      -e "s#ErrorFile=logs/#ErrorFile=$nd/logs/#" \
      -e "s#file=logs/gc.log\(.*\)filecount=32,filesize=64m#file=$nd/logs/gc.log\1filecount=2,filesize=16m#" \
      "$OS_HOME/config/jvm.options" >"$nd/config/jvm.options"
  printf -- '-Xms%s\n-Xmx%s\n' "$HEAP" "$HEAP" >"$nd/config/jvm.options.d/heap.options"
  {
    echo "cluster.name: workbench-test-$PORT"
    echo "node.name: node-$i"
    echo "network.host: 127.0.0.1"
    echo "http.port: $http"
    echo "transport.port: $((PORT + 100 + i))"
    echo "path.data: $nd/data"
    echo "path.logs: $nd/logs"
    echo "cluster.routing.allocation.disk.threshold_enabled: false"
    if ((NODES == 1)); then
      echo "discovery.type: single-node"
    else
      echo "discovery.seed_hosts: [$seeds]"
      echo "cluster.initial_cluster_manager_nodes: [$masters]"
    fi
  } >"$nd/config/opensearch.yml"

  [[ -z $NODE_OWNER ]] || chown -R "$NODE_OWNER:" "$nd"

  log "node-$i: starting on :$http (transport :$((PORT + 100 + i)), heap $HEAP, java $OS_JAVA${NODE_OWNER:+, user $NODE_OWNER})"
  setsid "${RUN_AS[@]}" env -u JAVA_TOOL_OPTIONS -u JAVA_OPTS -u OPENSEARCH_JAVA_OPTS HOME="$nd" \
    OPENSEARCH_JAVA_HOME="$OS_JAVA" OPENSEARCH_PATH_CONF="$nd/config" OPENSEARCH_TMPDIR="$nd/tmp" \
    "$OS_HOME/bin/opensearch" </dev/null >"$nd/console.log" 2>&1 9>&- &
  echo $! >"$pidf"
done

# ---------- wait for health ----------
if ((NODES == 1)); then want="wait_for_status=yellow"; else want="wait_for_status=green&wait_for_nodes=$NODES"; fi
deadline=$((SECONDS + ${OPENSEARCH_START_TIMEOUT:-240}))
t0=$SECONDS
while :; do
  if body=$(http_get "${URLS[0]}/_cluster/health?$want&timeout=5s") && ! grep -q '"timed_out":true' <<<"$body"; then
    break
  fi
  for ((i = 0; i < NODES; i++)); do
    pidf="$RUN_DIR/node-$i.pid"
    if [[ -f $pidf ]] && ! is_alive "$(cat "$pidf")" && ! answers $((PORT + i)); then
      tail -n 40 "$RUN_DIR/node-$i/console.log" >&2 || true
      die "node-$i exited during startup (log: $RUN_DIR/node-$i/console.log)"
    fi
  done
  ((SECONDS < deadline)) || die "cluster not healthy after ${OPENSEARCH_START_TIMEOUT:-240}s (logs in $RUN_DIR/node-*/)"
  sleep 1
done
log "healthy after $((SECONDS - t0))s: $(grep -o '"status":"[a-z]*"' <<<"$body"), nodes $(grep -o '"number_of_nodes":[0-9]*' <<<"$body" | cut -d: -f2)"
join_urls
