// Package payroll holds the employees, their absence and vacation, the
// salary runs that pay them, the verifikat and the arbetsgivardeklaration
// (AGI) a run gives, and the payroll reports. The calculation is plain Go
// on apd amounts (calc.go), citing the law each step follows.
package payroll
