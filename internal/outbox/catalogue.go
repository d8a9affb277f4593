package outbox

import (
	"fmt"
	"sort"
)

// Kind is one event type of the catalogue: the group it belongs to, the
// scope that reads it, and whether a webhook may subscribe to it. Every
// event Kontera emits may be subscribed to (spec 002's 28 and Kontera's
// own); only webhook.test, a delivery and never an event, may not.
type Kind struct {
	Type  string
	Group string
	// Scope reads the type's events in the feed; payroll subscriptions
	// also need it to register. Empty: any key of the company reads them
	// (an operation's outcome, as GET /operations/{id} needs no scope).
	Scope string
	// Subscribable says a webhook may be registered for it.
	Subscribable bool
	// Guarded says registering a webhook for it needs Scope too: a
	// payroll event carries pay, an api_key event the company's keys.
	Guarded bool
}

// The groups of the catalogue.
const (
	GroupInvoicing      = "invoicing"
	GroupSuppliers      = "suppliers"
	GroupCustomers      = "customers"
	GroupBookkeeping    = "bookkeeping"
	GroupTransactions   = "transactions"
	GroupReconciliation = "reconciliation"
	GroupPeriods        = "periods"
	GroupPayroll        = "payroll"
	GroupDocuments      = "documents"
	GroupOperations     = "operations"
	GroupWebhooks       = "webhooks"
	// GroupAPIKeys are the changes to keys reaching the company: read
	// by those who manage keys, in the feed only.
	GroupAPIKeys = "api_keys"
)

// WebhookTest is the type of a test delivery (POST …/webhooks/{id}/test):
// never an event, only a delivery.
const WebhookTest = "webhook.test"

// groupScope is the scope each group's events are read with.
var groupScope = map[string]string{GroupInvoicing: "invoices:read", GroupSuppliers: "suppliers:read",
	GroupCustomers: "customers:read", GroupBookkeeping: "reports:read", GroupPeriods: "reports:read",
	GroupTransactions: "transactions:read", GroupReconciliation: "reconciliation:read", GroupPayroll: "payroll:read",
	GroupDocuments: "documents:read", GroupOperations: "", GroupWebhooks: "webhooks:manage",
	GroupAPIKeys: "api_keys:manage"}

// catalogue holds every type an event may have.
var catalogue = func() map[string]Kind {
	out := map[string]Kind{}
	add := func(group string, subscribable bool, types ...string) {
		for _, t := range types {
			out[t] = Kind{Type: t, Group: group, Scope: groupScope[group], Subscribable: subscribable,
				Guarded: group == GroupPayroll || group == GroupAPIKeys}
		}
	}
	add(GroupInvoicing, true, "invoice.created", "invoice.sent", "invoice.paid", "credit_note.created",
		"invoice.overdue", "invoice.email_failed")
	add(GroupSuppliers, true, "supplier.created", "supplier_invoice.registered", "supplier_invoice.approved",
		"supplier_invoice.paid", "supplier_invoice.credited", "supplier_invoice.uncredited")
	add(GroupCustomers, true, "customer.created")
	add(GroupBookkeeping, true, "journal_entry.committed", "journal_entry.reversed", "journal_entry.corrected")
	add(GroupBookkeeping, true, "asset.created", "asset.depreciated", "asset.disposed")
	add(GroupTransactions, true, "transaction.categorized", "transaction.reconciled")
	add(GroupTransactions, true, "transaction.synced")
	add(GroupReconciliation, true, "reconciliation.matched", "reconciliation.unmatched", "reconciliation.signed_off",
		"reconciliation.reopened")
	add(GroupPeriods, true, "period.locked", "period.unlocked", "period.year_closed")
	add(GroupPeriods, true, "accrual.release_refused")
	add(GroupPayroll, true, "salary_run.created", "salary_run.approved", "salary_run.booked", "agi.generated")
	add(GroupDocuments, true, "document.uploaded")
	add(GroupOperations, true, "operation.completed")
	add(GroupAPIKeys, true, "api_key.created", "api_key.rotated", "api_key.revoked")
	add(GroupWebhooks, false, WebhookTest)
	return out
}()

// Lookup answers the kind of event type typ.
func Lookup(typ string) (Kind, bool) {
	k, ok := catalogue[typ]
	return k, ok
}

// Subscribable lists the types a webhook may be registered for, sorted:
// every event type.
func Subscribable() []string {
	var out []string
	for t, k := range catalogue {
		if k.Subscribable {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// check refuses a type the catalogue does not hold: an event no webhook,
// feed or document knows of is a programming error.
func check(typ string) error {
	if _, ok := catalogue[typ]; !ok {
		return fmt.Errorf("outbox: event type %q is not in the catalogue", typ)
	}
	return nil
}

// InFeed says whether events of type typ are read in the pull feed: every
// type but webhook.test, which is only ever a delivery.
func InFeed(typ string) bool {
	k, ok := catalogue[typ]
	return ok && k.Group != GroupWebhooks
}

// Groups are the feed's groups, each with the scope that reads it (""
// for any key of the company).
func Groups() map[string]string {
	out := map[string]string{}
	for g, s := range groupScope {
		if g != GroupWebhooks {
			out[g] = s
		}
	}
	return out
}

// Feedable lists the types of the pull feed, sorted.
func Feedable() []string {
	var out []string
	for t := range catalogue {
		if InFeed(t) {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}
