#!/usr/bin/env bash
# The official Elasticsearch clients the real-engine suite drives against conform serve and
# real Elasticsearch, pinned, installed into .engines/clients (git-ignored) with their ordinary
# clients, pip and npm:
#
#   .engines/clients/py8   a venv with elasticsearch==$PY8 (the 8.15 client: compatible-with=8)
#   .engines/clients/py9   a venv with elasticsearch==$PY9 (9.x sends compatible-with=9, which
#                          Elasticsearch 8.15 refuses)
#   .engines/clients/node  node_modules with @elastic/elasticsearch@$NODE8
#
# A second run finds them installed and changes nothing. It exits non-zero, saying which, when
# python3 (with venv) or npm is missing or a registry refuses a package.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR=${CLIENTS_DIR:-$ROOT/.engines/clients}
PY8=${PY8:-8.15.1}
PY9=${PY9:-9.1.0}
NODE8=${NODE8:-8.15.0}
mkdir -p "$DIR"
say() { echo "clients: $*" >&2; }

venv() {
	local dir=$1 version=$2
	if [ -x "$dir/bin/python" ] && "$dir/bin/python" -c "import elasticsearch,sys; sys.exit(elasticsearch.__versionstr__ != '$version')" 2>/dev/null; then
		return 0
	fi
	command -v python3 >/dev/null || { say "python3 is missing"; return 1; }
	rm -rf "$dir"
	python3 -m venv "$dir" || { say "python3 -m venv failed (apt-get install -y python3-venv)"; return 1; }
	say "installing elasticsearch==$version into $dir"
	"$dir/bin/pip" install -q --disable-pip-version-check "elasticsearch==$version" >"$dir.log" 2>&1 ||
		{ tail -5 "$dir.log" >&2; say "pip could not install elasticsearch==$version"; return 1; }
}

node() {
	local dir=$DIR/node
	if [ -f "$dir/node_modules/@elastic/elasticsearch/package.json" ] &&
		grep -q "\"version\": \"$NODE8\"" "$dir/node_modules/@elastic/elasticsearch/package.json"; then
		return 0
	fi
	command -v npm >/dev/null || { say "npm is missing"; return 1; }
	mkdir -p "$dir"
	[ -f "$dir/package.json" ] || echo '{"name":"conform-clients","private":true}' >"$dir/package.json"
	say "installing @elastic/elasticsearch@$NODE8 into $dir"
	(cd "$dir" && npm install --silent --no-audit --no-fund "@elastic/elasticsearch@$NODE8" >"$dir.log" 2>&1) ||
		{ tail -5 "$dir.log" >&2; say "npm could not install @elastic/elasticsearch@$NODE8"; return 1; }
}

fail=0
venv "$DIR/py8" "$PY8" || fail=1
venv "$DIR/py9" "$PY9" || fail=1
node || fail=1
exit $fail
