#!/usr/bin/env bash
# `make run`: a short tour of the embedded catalog through the CLI.
# (When the REST server lands, this starts `skade serve` instead.)
set -euo pipefail
SKADE=$1 WAREHOUSE=$2
mkdir -p "$WAREHOUSE"
run() { echo "\$ skade $*"; "$SKADE" --warehouse "$WAREHOUSE" "$@"; echo; }

schema=$(mktemp)
trap 'rm -f "$schema"' EXIT
cat > "$schema" <<'JSON'
{"type": "struct", "schema-id": 0, "fields": [
  {"id": 1, "name": "id", "required": true, "type": "long"},
  {"id": 2, "name": "city", "required": false, "type": "string"},
  {"id": 3, "name": "ts", "required": false, "type": "timestamptz"}]}
JSON

"$SKADE" --warehouse "$WAREHOUSE" ns describe demo >/dev/null 2>&1 || run ns create demo -p owner=make-run
"$SKADE" --warehouse "$WAREHOUSE" table describe demo.events >/dev/null 2>&1 ||
  run table create demo.events --schema "$schema" --partition-by 'day(ts)' --partition-by 'bucket(8, id)'
run table set demo.events "comment=committed by make run at $(date -u +%H:%M:%S)"
run table list demo
run table describe demo.events
run table history demo.events
echo "Warehouse: $WAREHOUSE (skade --warehouse $WAREHOUSE --help for more)"
