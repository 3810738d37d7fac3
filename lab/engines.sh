#!/usr/bin/env bash
# The lab's native engines without Docker: Elasticsearch and OpenSearch from their Maven Central
# integration-test distributions, single node, loopback only, security off, data under
# $ENGINES_DIR (default .engines/, git-ignored). Downloads are cached in ~/.m2.
#
#   lab/engines.sh up         download (once), unpack (once), start both, wait for green, print identity
#   lab/engines.sh status     say what runs where, and on which CPUs
#   lab/engines.sh pin CPUS   move both running engines, every thread, onto CPUS (taskset -a -p -c)
#   lab/engines.sh down       stop both; no process is left behind
#
# ENGINE_CPUS=LIST (a cpu-list such as 1 or 2-3) starts both engines under taskset -c LIST, so
# the JVMs size their thread pools for those CPUs. On a small machine it keeps the engines off
# the CPUs of the load generator (conform run --cpus 0): on the project's 2-core machine,
# sharing them made the per-round noise of log p50 0.2-0.7, against 0.03-0.19 kept apart.
#
# Pinned versions and what the registry serves (checked 2026-12-03):
#   Elasticsearch 8.15.0: org.elasticsearch.distribution.integ-test-zip:elasticsearch:8.15.0:zip.
#     It lacks mapper-extras (scaled_float) and rest-root (GET /); neither is published to Maven
#     Central for 8.x, so conform reads identity from GET /_nodes/_local and the catalogue is
#     loaded into it with the price-double fixture variant (README, "Real engines").
#   OpenSearch: 3.9.0's integ-test-zip is not served (refused); the newest served, 3.6.0, is used.
#     It holds mapper-extras, so it takes the designed catalogue. It needs Java 21 or newer.
# Both refuse to run as root; as root, the engines run as the unprivileged user $ENGINES_USER.
set -euo pipefail

ES_VERSION=${ES_VERSION:-8.15.0}
OS_VERSION=${OS_VERSION:-3.6.0}
ES_PORT=${ES_PORT:-9200}
OS_PORT=${OS_PORT:-9201}
HEAP=${ENGINES_HEAP:-1g}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=${ENGINES_DIR:-$ROOT/.engines}
USER_NAME=${ENGINES_USER:-conform-engines}
WAIT=${ENGINES_WAIT:-180}
CPUS=${ENGINE_CPUS:-}

die() { echo "engines: $*" >&2; exit 2; }
say() { echo "engines: $*" >&2; }

# java17 and java21 find JDKs for each engine: ES 8.15 runs on 17+, OpenSearch 3.x on 21+.
java_major() { "$1/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1; }
find_jdk() {
	local min=$1 j
	for j in ${JAVA_HOME:-} /usr/lib/jvm/*; do
		[ -n "$j" ] && [ -x "$j/bin/java" ] || continue
		local m; m=$(java_major "$j")
		[ -n "$m" ] && [ "$m" -ge "$min" ] && { echo "$j"; return 0; }
	done
	return 1
}

need_tools() {
	command -v mvn >/dev/null || die "mvn is missing: install Maven (apt-get install -y maven) to download the engines from Maven Central"
	command -v unzip >/dev/null || die "unzip is missing: apt-get install -y unzip"
	command -v curl >/dev/null || die "curl is missing: apt-get install -y curl"
	ES_JDK=$(find_jdk 17) || die "no Java 17 or newer found (java, or a JDK under /usr/lib/jvm): Elasticsearch $ES_VERSION needs one"
	OS_JDK=$(find_jdk 21) || die "no Java 21 or newer found under /usr/lib/jvm: OpenSearch $OS_VERSION needs one"
	[ -z "$CPUS" ] || check_cpus "$CPUS" "ENGINE_CPUS=$CPUS"
}

# check_cpus dies unless taskset is there and this shell may run on the CPU list $1 (named $2).
check_cpus() {
	command -v taskset >/dev/null || die "taskset is missing: apt-get install -y util-linux"
	taskset -c "$1" true 2>/dev/null ||
		die "$2: not a CPU list this machine lets us use (online: $(cat /sys/devices/system/cpu/online 2>/dev/null || echo unknown); ours: $(taskset -c -p $$ | sed 's/.*: //'))"
}

# fetch GROUP:ARTIFACT:VERSION:zip into $DIR/dist (mvn caches it in ~/.m2).
fetch() {
	local coords=$1 file=$2
	[ -s "$DIR/dist/$file" ] && return 0
	mkdir -p "$DIR/dist"
	say "downloading $coords from Maven Central"
	if ! mvn -q -B dependency:copy -Dartifact="$coords" -DoutputDirectory="$DIR/dist" >"$DIR/dist/mvn.log" 2>&1; then
		grep -m1 -E 'ERROR.*(Could not find|not found|Unable)' "$DIR/dist/mvn.log" >&2 || tail -5 "$DIR/dist/mvn.log" >&2
		die "the registry refused $coords (log: $DIR/dist/mvn.log)"
	fi
}

unpack() {
	local name=$1 zip=$2 home=$DIR/$1
	[ -x "$home/bin/$3" ] && return 0
	rm -rf "$home" "$DIR/.unpack"; mkdir -p "$DIR/.unpack"
	unzip -q "$DIR/dist/$zip" -d "$DIR/.unpack"
	mv "$DIR/.unpack"/*/ "$home"; rmdir "$DIR/.unpack"
}

configure() {
	cat >"$DIR/es/config/elasticsearch.yml" <<-EOF
	cluster.name: conform-es
	node.name: es
	network.host: 127.0.0.1
	http.port: $ES_PORT
	transport.port: $((ES_PORT + 100))
	discovery.type: single-node
	xpack.security.enabled: false
	xpack.ml.enabled: false
	path.data: $DIR/data/es
	path.logs: $DIR/logs/es
	EOF
	cat >"$DIR/os/config/opensearch.yml" <<-EOF
	cluster.name: conform-os
	node.name: os
	network.host: 127.0.0.1
	http.port: $OS_PORT
	transport.port: $((OS_PORT + 100))
	discovery.type: single-node
	path.data: $DIR/data/os
	path.logs: $DIR/logs/os
	EOF
	mkdir -p "$DIR/data/es" "$DIR/data/os" "$DIR/logs/es" "$DIR/logs/os" "$DIR/run"
}

as_user() {
	if [ "$(id -u)" = 0 ]; then
		id "$USER_NAME" >/dev/null 2>&1 || useradd -r -M -d "$DIR" -s /usr/sbin/nologin "$USER_NAME"
		chown -R "$USER_NAME" "$DIR/es" "$DIR/os" "$DIR/data" "$DIR/logs" "$DIR/run"
		# The engines read their home, so every directory above it must be traversable.
		local d=$DIR; while [ "$d" != / ]; do chmod o+x "$d" 2>/dev/null || true; d=$(dirname "$d"); done
		setpriv --reuid="$USER_NAME" --regid="$(id -g "$USER_NAME")" --init-groups env HOME="$DIR" "$@"
	else
		"$@"
	fi
}

# launch starts an engine as the engines' user, under taskset -c $ENGINE_CPUS when that is set
# (the JVM reads its CPU count from the affinity it starts with).
launch() {
	if [ -n "$CPUS" ]; then as_user taskset -c "$CPUS" "$@"; else as_user "$@"; fi
}

# cpus_of prints the CPUs the engine's process may run on, as taskset -c -p lists them.
cpus_of() { taskset -c -p "$(cat "$DIR/run/$1.pid")" 2>/dev/null | sed 's/.*: //'; }

alive() { local f=$DIR/run/$1.pid; [ -s "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null; }

url() { [ "$1" = es ] && echo "http://127.0.0.1:$ES_PORT" || echo "http://127.0.0.1:$OS_PORT"; }

start() {
	local name=$1
	if alive "$name"; then
		say "$name already running (pid $(cat "$DIR/run/$name.pid")), $(url "$name")"
		local now; now=$(cpus_of "$name")
		if [ -n "$CPUS" ] && [ "$now" != "$(taskset -c "$CPUS" sh -c 'taskset -c -p $$' | sed 's/.*: //')" ]; then
			say "$name runs on CPUs $now, not ENGINE_CPUS=$CPUS: lab/engines.sh pin $CPUS moves it (down and up again also resizes its thread pools)"
		fi
		return 0
	fi
	local port; port=${ES_PORT}; [ "$name" = os ] && port=$OS_PORT
	if curl -s -m 2 -o /dev/null "http://127.0.0.1:$port/"; then
		die "port $port already answers HTTP but not from an engine of $DIR; stop it or set ${name^^}_PORT"
	fi
	# A pid file left by an engine that died unnoticed would read as this start's death.
	rm -f "$DIR/run/$name.pid"
	say "starting $name on $(url "$name")${CPUS:+, CPUs $CPUS}"
	if [ "$name" = es ]; then
		(cd "$DIR/es" && launch env ES_JAVA_HOME="$ES_JDK" ES_JAVA_OPTS="-Xms$HEAP -Xmx$HEAP" \
			bin/elasticsearch -d -p "$DIR/run/es.pid" >"$DIR/logs/es-start.log" 2>&1) ||
			{ tail -20 "$DIR/logs/es-start.log" >&2; die "Elasticsearch did not start (log: $DIR/logs/es-start.log)"; }
	else
		(cd "$DIR/os" && launch env OPENSEARCH_JAVA_HOME="$OS_JDK" OPENSEARCH_JAVA_OPTS="-Xms$HEAP -Xmx$HEAP" \
			bin/opensearch -d -p "$DIR/run/os.pid" >"$DIR/logs/os-start.log" 2>&1) ||
			{ tail -20 "$DIR/logs/os-start.log" >&2; die "OpenSearch did not start (log: $DIR/logs/os-start.log)"; }
	fi
}

# last_errors prints the engine's own last error lines: from its server log
# (logs/NAME/conform-NAME.log) the ERROR and FATAL entries, exception lines and their causes,
# else the log's tail; then the launcher's output without stack frames.
last_errors() {
	local name=$1 f=$DIR/logs/$1/conform-$1.log pat='\]\[(ERROR|FATAL) *\]|^([a-z][a-z0-9_]*\.)+[A-Za-z0-9_$]*(Exception|Error)\b|^Caused by:'
	if [ -s "$f" ]; then
		echo "--- last error lines of $f:" >&2
		if grep -qE "$pat" "$f"; then
			grep -E "$pat" "$f" | tail -12 | cut -c1-400 >&2
		else
			tail -12 "$f" | cut -c1-400 >&2
		fi
	fi
	if [ -s "$DIR/logs/$name-start.log" ]; then
		echo "--- last lines of $DIR/logs/$name-start.log:" >&2
		grep -vE '^[[:space:]]+at |^[[:space:]]+\.\.\. [0-9]+ more' "$DIR/logs/$name-start.log" | tail -8 | cut -c1-400 >&2
	fi
}

# booting says whether a JVM of this engine's home runs (its command line names path.home),
# which is how a boot is seen before the engine writes its pid file.
booting() { pgrep -f -- "path.home=$DIR/$1( |$)" >/dev/null 2>&1; }

# wait_green waits, in order, for the engine's pid file, for its HTTP port and for green
# health, all within ENGINES_WAIT seconds. A slow boot on a busy machine writes its pid file
# late (OpenSearch took about a minute on two shared cores), so a missing pid file is not a
# death: the engine is dead only when the process its pid file names is gone, when the file, once
# written, disappears (the engines remove it on exit), or when neither a pid file nor a JVM of
# its home is there. Then its own error lines show.
wait_green() {
	local name=$1 u pidf; u=$(url "$1"); pidf=$DIR/run/$1.pid
	local began=$SECONDS deadline=$((SECONDS + WAIT)) seen=false said=false
	while [ $SECONDS -lt $deadline ]; do
		if [ -s "$pidf" ]; then
			seen=true
			if ! kill -0 "$(cat "$pidf")" 2>/dev/null; then
				last_errors "$name"
				die "$name (pid $(cat "$pidf")) exited while starting, after $((SECONDS - began))s (logs: $DIR/logs/$name)"
			fi
		elif $seen; then
			last_errors "$name"
			die "$name exited while starting: its pid file $pidf went away after $((SECONDS - began))s (logs: $DIR/logs/$name)"
		elif [ $((SECONDS - began)) -gt 10 ] && ! booting "$name"; then
			last_errors "$name"
			die "$name exited while starting: no pid file and no process of $DIR/$name after $((SECONDS - began))s (logs: $DIR/logs/$name)"
		fi
		if curl -s -m 2 "$u/_cluster/health?wait_for_status=green&timeout=1s" 2>/dev/null | grep -q '"status":"green"'; then
			return 0
		fi
		if ! $said && [ $((SECONDS - began)) -ge 30 ]; then
			said=true
			if $seen; then say "$name (pid $(cat "$pidf" 2>/dev/null)) still booting after 30s; waiting up to ${WAIT}s for $u"
			else say "$name has not written its pid file after 30s (a slow boot); waiting up to ${WAIT}s"; fi
		fi
		sleep 1
	done
	last_errors "$name"
	if $seen; then
		die "$name at $u was not green within ${WAIT}s, though its process runs (logs: $DIR/logs/$name; ENGINES_WAIT=${WAIT})"
	fi
	die "$name wrote no pid file ($pidf) within ${WAIT}s (logs: $DIR/logs/$name; ENGINES_WAIT=${WAIT})"
}

identity() {
	local name=$1 u; u=$(url "$1")
	local v; v=$(curl -s -m 5 "$u/_nodes/_local?filter_path=nodes.*.version,nodes.*.build_flavor,nodes.*.build_hash" | tr -d '\n ')
	echo "$name  $u  $v  cpus $(cpus_of "$name")"
}

up() {
	need_tools
	mkdir -p "$DIR"
	fetch "org.elasticsearch.distribution.integ-test-zip:elasticsearch:$ES_VERSION:zip" "elasticsearch-$ES_VERSION.zip"
	fetch "org.opensearch.distribution.integ-test-zip:opensearch:$OS_VERSION:zip" "opensearch-$OS_VERSION.zip"
	unpack es "elasticsearch-$ES_VERSION.zip" elasticsearch
	unpack os "opensearch-$OS_VERSION.zip" opensearch
	configure
	start es
	start os
	wait_green es
	wait_green os
	{
		echo "ES_URL=$(url es)"
		echo "OS_URL=$(url os)"
		echo "ES_VERSION=$ES_VERSION"
		echo "OS_VERSION=$OS_VERSION"
	} >"$DIR/state.env"
	identity es
	identity os
	say "state in $DIR/state.env; stop with: make engines-down"
}

stop_one() {
	local name=$1 f=$DIR/run/$1.pid
	alive "$name" || { rm -f "$f"; return 0; }
	local pid; pid=$(cat "$f")
	kill "$pid" 2>/dev/null || true
	for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
	kill -9 "$pid" 2>/dev/null || true
	rm -f "$f"
	say "stopped $name (pid $pid)"
}

down() {
	stop_one es
	stop_one os
	rm -f "$DIR/state.env"
}

# pin moves every thread of each running engine, and of any process it started, onto the CPU
# list $1. The JVM keeps the thread pools it sized at start; ENGINE_CPUS at start sizes them.
pin() {
	local cpus=${1:-} n pid p pinned=0
	[ -n "$cpus" ] || die "usage: lab/engines.sh pin CPUS (a cpu-list such as 1 or 2-3)"
	check_cpus "$cpus" "pin $cpus"
	for n in es os; do
		alive "$n" || { say "$n not running; nothing to pin"; continue; }
		pid=$(cat "$DIR/run/$n.pid")
		for p in $pid $(pgrep -P "$pid" || true); do
			taskset -a -p -c "$cpus" "$p" >/dev/null || die "could not pin $n (pid $p) to CPUs $cpus (run as root, or as the engines' user)"
		done
		say "pinned $n (pid $pid, every thread) to CPUs $(cpus_of "$n")"
		pinned=$((pinned + 1))
	done
	[ "$pinned" -gt 0 ] || die "no engine running (make engines starts them)"
}

status() {
	local rc=0 n
	for n in es os; do
		if alive "$n"; then identity "$n"; else echo "$n  not running"; rc=1; fi
	done
	return $rc
}

case "${1:-}" in
up) up ;;
down) down ;;
status) status ;;
pin) pin "${2:-}" ;;
*) echo "usage: lab/engines.sh up|down|status|pin CPUS" >&2; exit 2 ;;
esac
