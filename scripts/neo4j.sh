#!/usr/bin/env bash
# Start / stop a real Neo4j Community server for development and tests.
#
# Why: the dev and CI machines have no Docker and Neo4j is not a Debian package, but every Neo4j
# release is on Maven Central. This script fetches org.neo4j:neo4j + org.neo4j:neo4j-bolt with Maven
# (once; cached outside the repo), compiles a tiny embedded launcher (scripts/neo4j/src) and runs it
# in the background with Bolt on 127.0.0.1, auth disabled, usage reporting off.
#
# Usage: bash scripts/neo4j.sh start|stop|status|restart|fetch
#   start   prints NEO4J_URI=bolt://127.0.0.1:<port> on stdout once Bolt answers (everything else
#           goes to stderr), so `eval "$(bash scripts/neo4j.sh start)"` exports NEO4J_URI.
#   fetch   only downloads the jars and compiles the launcher (e.g. to warm a CI cache).
#
# Environment:
#   NEO4J_VERSION        Neo4j version (default below; e.g. 5.26.30 for the 5.26 LTS line)
#   NEO4J_PORT           Bolt port (default 7687)
#   NEO4J_HOME_DIR       pidfile, log and data (default <repo>/.neo4j-data; store under <dir>/<version>)
#   NEO4J_CACHE_DIR      jars + compiled launcher (default ~/.cache/memory-proxy-neo4j/<version>)
#   NEO4J_JAVA_HOME      JDK to use, as is. Otherwise JAVA_HOME if new enough, else the newest
#                        suitable JDK under /usr/lib/jvm (2025+ needs Java 21+: Temurin 25 preferred).
#   NEO4J_HEAP           max heap (default 1g); NEO4J_PAGECACHE_MB page cache (default 256)
#   NEO4J_START_TIMEOUT  seconds to wait for Bolt (default 180)
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_ROOT="$(cd "$SCRIPT_DIR/.." && pwd)"

DEFAULT_VERSION="2026.08.1" # newest on Maven Central that runs here (Temurin 25); has CYPHER 25 SEARCH
LTS_VERSION="5.26.30"       # fallback when no Java 21+ is installed (runs on Java 17)

VERSION_EXPLICIT=${NEO4J_VERSION:+1}
NEO4J_VERSION="${NEO4J_VERSION:-$DEFAULT_VERSION}"
NEO4J_PORT="${NEO4J_PORT:-7687}"
NEO4J_HOME_DIR="${NEO4J_HOME_DIR:-$REPO_ROOT/.neo4j-data}"
NEO4J_HEAP="${NEO4J_HEAP:-1g}"
NEO4J_PAGECACHE_MB="${NEO4J_PAGECACHE_MB:-256}"
NEO4J_START_TIMEOUT="${NEO4J_START_TIMEOUT:-180}"

PIDFILE="$NEO4J_HOME_DIR/neo4j.pid"
STATEFILE="$NEO4J_HOME_DIR/neo4j.state" # "<version> <port>" of the running server
LOGFILE="$NEO4J_HOME_DIR/neo4j.log"
MAIN_CLASS="EmbeddedNeo4j"
MAIN_SRC="$SCRIPT_DIR/neo4j/src/$MAIN_CLASS.java"

log() { echo "neo4j.sh: $*" >&2; }
die() { log "$*"; exit 1; }

cache_dir() { echo "${NEO4J_CACHE_DIR:-$HOME/.cache/memory-proxy-neo4j/$NEO4J_VERSION}"; }

# Minimum Java feature version for a Neo4j version: 2025.x+ (calendar versions) need 21, 5.x needs 17.
required_java() { if [[ "${NEO4J_VERSION%%.*}" -ge 2025 ]]; then echo 21; else echo 17; fi; }

# Java feature version of a JDK home ("17", "25"), or empty.
java_major() {
  local home="$1" v=""
  [[ -x "$home/bin/java" && -x "$home/bin/javac" ]] || return 0
  if [[ -f "$home/release" ]]; then
    v="$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$home/release")"
  fi
  if [[ -z "$v" ]]; then
    v="$("$home/bin/java" -XshowSettings:properties -version 2>&1 |
      sed -n 's/^ *java.specification.version = \([0-9]*\).*/\1/p')"
  fi
  [[ "$v" == 1 ]] && v="" # 1.8 and older: unusable
  echo "$v"
}

# Picks the JDK; sets JDK_HOME and JDK_MAJOR. Returns 1 if none is suitable.
pick_jdk() {
  local need cand m best="" bestm=0 default_home=""
  need="$(required_java)"
  if [[ -n "${NEO4J_JAVA_HOME:-}" ]]; then
    JDK_HOME="$NEO4J_JAVA_HOME"; JDK_MAJOR="$(java_major "$JDK_HOME")"
    [[ -n "$JDK_MAJOR" ]] || die "NEO4J_JAVA_HOME=$NEO4J_JAVA_HOME is not a JDK (needs bin/java and bin/javac)"
    return 0
  fi
  if [[ -n "${JAVA_HOME:-}" ]]; then
    m="$(java_major "$JAVA_HOME")"
    if [[ -n "$m" && "$m" -ge "$need" ]]; then JDK_HOME="$JAVA_HOME"; JDK_MAJOR="$m"; return 0; fi
    log "JAVA_HOME=$JAVA_HOME is not a Java $need+ JDK; looking for another (set NEO4J_JAVA_HOME to force one)"
  fi
  if command -v javac >/dev/null 2>&1; then
    default_home="$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")"
  fi
  if [[ "$need" -ge 21 ]]; then
    # Prefer Temurin 25, then the newest JDK found.
    for cand in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/* "$default_home"; do
      [[ -n "$cand" && -d "$cand" ]] || continue
      m="$(java_major "$cand")"
      [[ -n "$m" && "$m" -ge "$need" ]] || continue
      if [[ "$cand" == /usr/lib/jvm/temurin-25-jdk-amd64 ]]; then best="$cand"; bestm="$m"; break; fi
      if [[ "$m" -gt "$bestm" ]]; then best="$cand"; bestm="$m"; fi
    done
  else
    # 5.x: the default java (17 here), else any JDK 17..21 (5.x supports 17 and 21 only).
    for cand in "$default_home" /usr/lib/jvm/*; do
      [[ -n "$cand" && -d "$cand" ]] || continue
      m="$(java_major "$cand")"
      if [[ -n "$m" && "$m" -ge 17 && "$m" -le 21 ]]; then best="$cand"; bestm="$m"; break; fi
    done
  fi
  [[ -n "$best" ]] || return 1
  JDK_HOME="$best"; JDK_MAJOR="$bestm"
}

select_version_and_jdk() {
  if ! pick_jdk; then
    if [[ -z "$VERSION_EXPLICIT" && "$NEO4J_VERSION" != "$LTS_VERSION" ]]; then
      log "no Java $(required_java)+ JDK found for Neo4j $NEO4J_VERSION; falling back to $LTS_VERSION (Java 17)"
      NEO4J_VERSION="$LTS_VERSION"
      pick_jdk || die "no suitable JDK found for Neo4j $NEO4J_VERSION (set NEO4J_JAVA_HOME)"
    else
      die "no Java $(required_java)+ JDK found for Neo4j $NEO4J_VERSION (set NEO4J_JAVA_HOME)"
    fi
  fi
}

# Downloads the jars (once per version) and compiles the launcher (once per version / source change).
ensure_runtime() {
  local cache lib tmp classes stamp release
  cache="$(cache_dir)"; lib="$cache/lib"; classes="$cache/classes"
  mkdir -p "$cache"
  # The cache may be shared by several checkouts / NEO4J_HOME_DIRs: one fetch or compile at a time.
  exec 8>"$cache/.lock"
  flock -w 600 8 || die "could not lock $cache/.lock"
  if [[ ! -f "$lib/.complete" || ! -f "$lib/neo4j-$NEO4J_VERSION.jar" || ! -f "$lib/neo4j-bolt-$NEO4J_VERSION.jar" ]]; then
    command -v mvn >/dev/null 2>&1 || die "Maven (mvn) is needed to fetch Neo4j from Maven Central: apt-get install maven"
    log "fetching Neo4j $NEO4J_VERSION jars from Maven Central into $lib (~150 MB, first time only)..."
    tmp="$cache/lib.tmp.$$"
    rm -rf "$tmp"
    if ! mvn -B -q -f "$SCRIPT_DIR/neo4j/pom.xml" dependency:copy-dependencies \
        -DincludeScope=runtime -DoutputDirectory="$tmp" -Dneo4j.version="$NEO4J_VERSION" \
        >"$cache/mvn.log" 2>&1; then
      tail -n 40 "$cache/mvn.log" >&2
      rm -rf "$tmp"
      die "Maven could not fetch org.neo4j:neo4j:$NEO4J_VERSION (is the version on Maven Central?)"
    fi
    [[ -f "$tmp/neo4j-$NEO4J_VERSION.jar" ]] || die "Maven did not produce neo4j-$NEO4J_VERSION.jar (see $cache/mvn.log)"
    touch "$tmp/.complete"
    rm -rf "$lib"
    mv "$tmp" "$lib"
  fi
  # Compile for the version's minimum Java, so the class runs on any JDK allowed for it.
  release="$(required_java)"
  stamp="$classes/.release-$release"
  if [[ ! -f "$classes/$MAIN_CLASS.class" || ! -f "$stamp" || "$MAIN_SRC" -nt "$classes/$MAIN_CLASS.class" ]]; then
    log "compiling $MAIN_CLASS with $JDK_HOME (--release $release)"
    rm -rf "$classes"; mkdir -p "$classes"
    "$JDK_HOME/bin/javac" --release "$release" -nowarn -d "$classes" -cp "$lib/*" "$MAIN_SRC" >&2 ||
      die "javac failed"
    touch "$stamp"
  fi
  exec 8>&-
}

# Prints the pid if the pidfile names a live launcher process.
running_pid() {
  local pid
  [[ -f "$PIDFILE" ]] || return 1
  pid="$(cat "$PIDFILE" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "$MAIN_CLASS" || return 1 # pid reused?
  echo "$pid"
}

port_open() { timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }

uri() { echo "bolt://127.0.0.1:$1"; }

show_log_tail() {
  log "---- last lines of $LOGFILE ----"
  tail -n 40 "$LOGFILE" >&2 2>/dev/null || true
  local debug="$NEO4J_HOME_DIR/$NEO4J_VERSION/logs/debug.log"
  if [[ -f "$debug" ]]; then
    log "---- last lines of $debug ----"
    tail -n 20 "$debug" >&2 || true
  fi
}

# SIGTERM, wait up to $2 seconds, then SIGKILL.
terminate() {
  local pid="$1" wait_s="$2" i
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < wait_s * 5; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.2
  done
  log "pid $pid did not exit within ${wait_s}s after SIGTERM; sending SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
  sleep 0.5
}

lock() {
  mkdir -p "$NEO4J_HOME_DIR"
  exec 9>"$NEO4J_HOME_DIR/.lock"
  flock -w 300 9 || die "could not lock $NEO4J_HOME_DIR/.lock"
}

cmd_start() {
  local pid state port version jopts t0 i
  lock
  if pid="$(running_pid)"; then
    read -r version port <"$STATEFILE" 2>/dev/null || { version="?"; port="$NEO4J_PORT"; }
    log "already running: Neo4j $version, pid $pid"
    if [[ -n "$VERSION_EXPLICIT" && "$version" != "$NEO4J_VERSION" ]]; then
      log "WARNING: NEO4J_VERSION=$NEO4J_VERSION was asked for but $version is running (run 'stop' first)"
    fi
    echo "NEO4J_URI=$(uri "$port")"
    return 0
  fi
  rm -f "$PIDFILE" "$STATEFILE"
  if port_open "$NEO4J_PORT"; then
    die "port $NEO4J_PORT is already in use by another process (set NEO4J_PORT)"
  fi
  select_version_and_jdk
  ensure_runtime

  jopts=(-Xms256m "-Xmx$NEO4J_HEAP" -XX:+UseG1GC -XX:-OmitStackTraceInFastThrow -XX:+DisableExplicitGC
    -XX:+ExitOnOutOfMemoryError -Djdk.nio.maxCachedBufferSize=1024 -Dio.netty.tryReflectionSetAccessible=true
    -Dlog4j2.disable.jmx=true
    --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.io=ALL-UNNAMED
    --add-opens=java.base/sun.nio.ch=ALL-UNNAMED --add-opens=java.base/java.lang=ALL-UNNAMED)
  # Lucene (vector indexes) uses the Panama Vector API when the incubator module is readable.
  [[ "$JDK_MAJOR" -ge 21 ]] && jopts+=(--add-modules jdk.incubator.vector)
  [[ "$JDK_MAJOR" -ge 22 ]] && jopts+=(--enable-native-access=ALL-UNNAMED)
  [[ "$JDK_MAJOR" -ge 23 ]] && jopts+=(--sun-misc-unsafe-memory-access=allow)

  [[ -f "$LOGFILE" ]] && mv -f "$LOGFILE" "$LOGFILE.1"
  log "starting Neo4j $NEO4J_VERSION on $(uri "$NEO4J_PORT") with Java $JDK_MAJOR ($JDK_HOME); data in $NEO4J_HOME_DIR/$NEO4J_VERSION, log in $LOGFILE"
  t0=$SECONDS
  # setsid: own session, so a Ctrl-C in the calling terminal does not kill it; `stop` does.
  setsid "$JDK_HOME/bin/java" "${jopts[@]}" -cp "$(cache_dir)/classes:$(cache_dir)/lib/*" "$MAIN_CLASS" \
    "$NEO4J_HOME_DIR/$NEO4J_VERSION" "$NEO4J_PORT" "$NEO4J_PAGECACHE_MB" >"$LOGFILE" 2>&1 </dev/null 8>&- 9>&- &
  pid=$!
  echo "$pid" >"$PIDFILE"
  echo "$NEO4J_VERSION $NEO4J_PORT" >"$STATEFILE"

  for ((i = 0; i < NEO4J_START_TIMEOUT * 2; i++)); do
    if ! kill -0 "$pid" 2>/dev/null; then
      show_log_tail
      rm -f "$PIDFILE" "$STATEFILE"
      die "Neo4j exited during startup"
    fi
    if grep -q "^NEO4J READY" "$LOGFILE" 2>/dev/null && port_open "$NEO4J_PORT"; then
      log "Neo4j $NEO4J_VERSION ready after $((SECONDS - t0))s (pid $pid)"
      echo "NEO4J_URI=$(uri "$NEO4J_PORT")"
      return 0
    fi
    sleep 0.5
  done
  show_log_tail
  terminate "$pid" 30
  rm -f "$PIDFILE" "$STATEFILE"
  die "Neo4j did not answer on Bolt within ${NEO4J_START_TIMEOUT}s"
}

cmd_stop() {
  local pid
  lock
  if ! pid="$(running_pid)"; then
    log "not running"
    rm -f "$PIDFILE" "$STATEFILE"
    return 0
  fi
  log "stopping pid $pid"
  terminate "$pid" 60
  rm -f "$PIDFILE" "$STATEFILE"
  log "stopped"
}

cmd_status() {
  local pid version port
  if pid="$(running_pid)"; then
    read -r version port <"$STATEFILE" 2>/dev/null || { version="?"; port="$NEO4J_PORT"; }
    log "running: Neo4j $version, pid $pid, log $LOGFILE"
    echo "NEO4J_URI=$(uri "$port")"
    return 0
  fi
  log "not running"
  return 3
}

cmd_fetch() {
  select_version_and_jdk
  ensure_runtime
  log "Neo4j $NEO4J_VERSION ready to start from $(cache_dir) (Java $JDK_MAJOR: $JDK_HOME)"
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  restart) cmd_stop; cmd_start ;;
  fetch) cmd_fetch ;;
  *)
    echo "usage: $0 start|stop|status|restart|fetch   (env: NEO4J_VERSION, NEO4J_PORT, NEO4J_HOME_DIR, NEO4J_CACHE_DIR, NEO4J_JAVA_HOME)" >&2
    exit 2
    ;;
esac
