#!/usr/bin/env bash
# Patches FerretDB v1 for the build (hack/build-tools.sh runs this in a copy of this wrapper
# module): one line of its SQLite backend changed, in a copy of the module source that the
# copied go.mod replaces the module with.
#
# Its _id lookups (find, update and delete by a string or ObjectId _id) ask SQLite for
# `json->'$._id' = ?`, while the unique index every collection gets is on `json->"_id"`.
# SQLite uses an expression index only for the same expression, so every such lookup scanned
# the whole table: 1.9 ms at 5,000 documents against 5 us through the index (SQLite 3.40 on a
# FerretDB database, EXPLAIN QUERY PLAN "SCAN" against "SEARCH ... USING INDEX"). Written as
# `json->'_id'` (the same JSON path: a label without `$` means `$.label`) the lookup searches
# the index.
set -euo pipefail
module_dir=$(go list -m -f '{{.Dir}}' github.com/FerretDB/FerretDB)
cp -r "$module_dir" ferretdb-src
chmod -R u+w ferretdb-src
file=ferretdb-src/internal/backends/sqlite/metadata/metadata.go
from="IDColumn = DefaultColumn + \"->'\$._id'\""
to="IDColumn = DefaultColumn + \"->'_id'\""
sed -i "s|$from|$to|" "$file"
if ! grep -qF "$to" "$file"; then
  echo "tools: FerretDB's metadata.go no longer holds the line patch.sh changes; review it" >&2
  exit 1
fi
go mod edit -replace github.com/FerretDB/FerretDB=./ferretdb-src
