#!/usr/bin/env bash
# Fails when gen/ is not what `make generate` makes from openapi/openapi.json.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sed "s#^output:.*#output: $tmp/api.gen.go#" openapi/codegen.yaml > "$tmp/codegen.yaml"
go tool oapi-codegen -config "$tmp/codegen.yaml" openapi/openapi.json
if ! diff -u gen/api.gen.go "$tmp/api.gen.go" > "$tmp/diff"; then
	head -40 "$tmp/diff"
	echo "gen/api.gen.go is stale: run make generate" >&2
	exit 1
fi
echo "gen/ is up to date"
