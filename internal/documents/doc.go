// Package documents holds the write-once archive of underlag: the bytes of
// each file in a blob store keyed by its SHA-256, and its row, versions,
// links to verifikationer and retention in the database.
package documents
