// Package payables holds supplier invoices (leverantörsfakturor): their
// registration under its own gapless arrival numbers, their lines and
// VAT — Swedish input VAT, reverse charge, special payroll tax — and the
// verifikationer they post through the ledger when registered, paid and
// credited. The reckoning (totals, booking lines, shares of a payment)
// is plain functions over amounts; the store and the HTTP handlers build
// on them.
package payables
