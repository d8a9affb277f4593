// Package reconciliation matches the accounts that have an outside truth
// (the cash accounts' bank transactions, Skatteverket's skattekonto) with
// the verifikat on their ledger accounts: proposals, links, the bridge
// from the outside balance to the books, and sign-offs that freeze a
// period once it is explained.
package reconciliation
