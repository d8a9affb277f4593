// Package invoicing holds customer invoices: quotes, proformas, delivery
// notes, invoices and credit notes, their totals and VAT, their numbers,
// and the verifikationer they post through the ledger when issued, paid
// and credited. The reckoning (totals, shares, booking lines) is plain
// functions over amounts; the store and the HTTP handlers build on them.
package invoicing
