package reconciliation

import (
	"cmp"
	"slices"

	"github.com/google/uuid"
)

// part is a candidate of a subset search.
type part struct {
	ore      int64
	gap, day int
	id       uuid.UUID
	ref      any
}

// subset finds two to six parts summing to target: two, three and four
// by their sums among the pairCands, tripleCands and quadCands nearest in
// date, five and six by a bounded search over the dfsCandidates nearest;
// and whether other sets sum to it too (ambiguous). Of the sets found the one nearest in
// date wins (its farthest part, then all its parts, then fewer parts):
// rows settled together are dated together, chance sums are not. Nil when
// none sum to target.
func subset(cands []part, target int64) ([]part, bool) {
	if len(cands) < 2 {
		return nil, false
	}
	slices.SortFunc(cands, func(a, b part) int {
		return cmp.Or(cmp.Compare(a.gap, b.gap), cmp.Compare(a.day, b.day), cmpID(a.id, b.id))
	})
	cands = cands[:min(len(cands), pairCands)]
	goal := abs(target)
	at := make(map[int64][]int, len(cands))
	for i, c := range cands {
		at[abs(c.ore)] = append(at[abs(c.ore)], i)
	}
	// best is the nearest set found, found how many sets there are.
	var best []int
	found := 0
	better := func(set []int) {
		found++
		if best == nil || nearer(cands, set, best) {
			best = slices.Clone(set)
		}
	}
	for i := range cands {
		for _, j := range at[goal-abs(cands[i].ore)] {
			if j > i {
				better([]int{i, j})
			}
		}
	}
	near := cands[:min(len(cands), tripleCands)]
	for i := range near {
		for j := i + 1; j < len(near); j++ {
			rest := goal - abs(near[i].ore) - abs(near[j].ore)
			if rest <= 0 {
				continue
			}
			for _, k := range at[rest] {
				if k > j && k < len(near) {
					better([]int{i, j, k})
				}
			}
		}
	}
	// Four: two pairs of the nearest whose sums make the target, by the
	// pairs' sums in order.
	near = cands[:min(len(cands), quadCands)]
	type pairSum struct {
		sum  int64
		i, j int
	}
	pairs := make([]pairSum, 0, len(near)*len(near)/2)
	for i := range near {
		for j := i + 1; j < len(near); j++ {
			pairs = append(pairs, pairSum{abs(near[i].ore) + abs(near[j].ore), i, j})
		}
	}
	slices.SortFunc(pairs, func(a, b pairSum) int {
		return cmp.Or(cmp.Compare(a.sum, b.sum), cmp.Compare(a.i, b.i), cmp.Compare(a.j, b.j))
	})
	// Each set of four once: p holds its two first parts.
	for _, p := range pairs {
		k, _ := slices.BinarySearchFunc(pairs, goal-p.sum, func(q pairSum, s int64) int { return cmp.Compare(q.sum, s) })
		for ; k < len(pairs) && pairs[k].sum == goal-p.sum; k++ {
			if q := pairs[k]; q.i > p.j {
				better([]int{p.i, p.j, q.i, q.j})
			}
		}
	}
	if best == nil {
		best = deeper(cands[:min(len(cands), dfsCandidates)], goal)
		found = len(best) / max(len(best), 1)
	}
	if best == nil {
		return nil, false
	}
	out := make([]part, len(best))
	for i, k := range best {
		out[i] = cands[k]
	}
	return out, found > 1
}

// nearer says whether set a of cands lies nearer in date than set b.
func nearer(cands []part, a, b []int) bool {
	gaps := func(set []int) (far, all int) {
		for _, i := range set {
			far, all = max(far, cands[i].gap), all+cands[i].gap
		}
		return far, all
	}
	fa, sa := gaps(a)
	fb, sb := gaps(b)
	if c := cmp.Or(cmp.Compare(len(a), len(b)), cmp.Compare(fa, fb), cmp.Compare(sa, sb)); c != 0 {
		return c < 0
	}
	return slices.Compare(a, b) < 0
}

// deeper looks for five or six parts summing to goal among cands (in date
// order), the nearest first; nil when none do within searchBudget steps.
func deeper(cands []part, goal int64) []int {
	var picked []int
	steps := 0
	var search func(from int, got int64) bool
	search = func(from int, got int64) bool {
		if got == goal && len(picked) >= 5 {
			return true
		}
		if len(picked) == maxParts {
			return false
		}
		for i := from; i < len(cands) && steps < searchBudget; i++ {
			steps++
			if next := got + abs(cands[i].ore); next <= goal {
				picked = append(picked, i)
				if search(i+1, next) {
					return true
				}
				picked = picked[:len(picked)-1]
			}
		}
		return false
	}
	if search(0, 0) {
		return picked
	}
	return nil
}

// inOrder puts the parts of a match in date order.
func inOrder(ps []part) {
	slices.SortFunc(ps, func(a, b part) int {
		return cmp.Or(cmp.Compare(a.day, b.day), cmpID(a.id, b.id))
	})
}

func maxGap(ps []part) int {
	g := 0
	for _, p := range ps {
		g = max(g, p.gap)
	}
	return g
}
