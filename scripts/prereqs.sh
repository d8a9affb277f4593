#!/usr/bin/env bash
# Checks what `make run` (prereqs.sh run) or `make test` (prereqs.sh test)
# needs, one clear line per missing thing, before anything else runs.
# PostgreSQL is found (or installed with apt-get, as root) by the binary
# itself; see internal/localpg.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-test}
fail=0

# version_ge A B: is version A at least B (dotted numbers)?
version_ge() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -1)" = "$2" ]; }

want_go=$(sed -n 's/^go \([0-9.]*\)$/\1/p' go.mod)
if ! command -v go >/dev/null; then
	echo "prerequisite missing: Go $want_go or newer (https://go.dev/dl/)" >&2
	fail=1
elif ! version_ge "$(go env GOVERSION | sed 's/^go//')" "$want_go"; then
	echo "prerequisite too old: Go $(go env GOVERSION | sed 's/^go//') found, go.mod needs $want_go or newer" >&2
	fail=1
fi

if [ "$what" = test ]; then
	# The contract tools (spectral, redocly, openapi-typescript, prism).
	if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
		echo "prerequisite missing: Node.js 20.19 or newer with npm (the contract tools in scripts/contract)" >&2
		fail=1
	elif ! version_ge "$(node --version | sed 's/^v//')" 20.19; then
		echo "prerequisite too old: Node.js $(node --version) found, the contract tools need 20.19 or newer" >&2
		fail=1
	fi
fi

if [ "$what" = test ] && ! command -v pdftotext >/dev/null; then
	# The PDF tests read documents back with pdftotext, pdfinfo and pdftoppm.
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "installing poppler-utils (the PDF tests read documents back with it)" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends poppler-utils >/dev/null 2>&1 ||
			{ apt-get update >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends poppler-utils >/dev/null 2>&1; } ||
			echo "note: poppler-utils could not be installed; the PDF tests will skip (and fail under CI=true)" >&2
	else
		echo "note: poppler-utils is missing; the PDF tests skip without it (apt-get install poppler-utils)" >&2
	fi
fi

if [ "$what" = test ] && { ! command -v xmllint >/dev/null || ! command -v java >/dev/null || [ ! -f /usr/share/java/Saxon-HE.jar ]; }; then
	# The e-invoice tests validate UBL with xmllint (the XSDs) and run the
	# BIS 3 Schematron rules, compiled to XSLT 2.0, with Saxon-HE; the VAT
	# tests hold every eSKD file to its DTD with xmllint.
	pkgs="libxml2-utils default-jre-headless libsaxonhe-java"
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "installing $pkgs (the e-invoice tests validate with them)" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $pkgs >/dev/null 2>&1 ||
			{ apt-get update >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $pkgs >/dev/null 2>&1; } ||
			echo "note: $pkgs could not be installed; the e-invoice validation tests will skip (and fail under CI=true)" >&2
	else
		echo "note: the e-invoice validation tests skip without $pkgs (apt-get install $pkgs)" >&2
	fi
fi

if [ "$what" = run ] && ! command -v jq >/dev/null; then
	# Only the README's walk-through uses jq; Debian has it.
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "installing jq (the README walk-through uses it)" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends jq >/dev/null 2>&1 ||
			{ apt-get update >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends jq >/dev/null 2>&1; } ||
			echo "note: jq could not be installed; the README walk-through needs it" >&2
	else
		echo "note: jq is missing; the README walk-through needs it (apt-get install jq)" >&2
	fi
fi
if [ "$what" = ops ]; then
	# The drills back up and restore with pgBackRest, build the image with
	# podman, put nginx in front, verify the unit with systemd-analyze and
	# run the README walk-through with curl and jq (Debian's, all).
	missing=""
	for tool in pgbackrest podman nginx systemd-analyze curl jq; do
		command -v "$tool" >/dev/null || missing="$missing $tool"
	done
	pkgs=$(echo "$missing" | sed 's/systemd-analyze/systemd/')
	if [ -n "$missing" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "installing$pkgs (the operator's drills use them)" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $pkgs >/dev/null 2>&1 ||
			{ apt-get update >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $pkgs >/dev/null 2>&1; } ||
			{ echo "prerequisite missing:$pkgs could not be installed (apt-get install$pkgs)" >&2; fail=1; }
	elif [ -n "$missing" ]; then
		echo "prerequisite missing:$pkgs (apt-get install$pkgs)" >&2
		fail=1
	fi
fi

exit $fail
