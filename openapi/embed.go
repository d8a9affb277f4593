// Package openapi holds the contract: openapi.json, the OpenAPI 3.1
// document the server is generated from, validates against and serves
// byte-for-byte.
package openapi

import _ "embed"

// Document is openapi.json exactly as it is kept in the repository.
//
//go:embed openapi.json
var Document []byte

// APIVersion is the dated API version: info.version of the document, sent
// in every success envelope and with every event.
const APIVersion = "2026-05-12"
