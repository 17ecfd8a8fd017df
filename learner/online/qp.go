package online

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/mtune/mtune/feature"
)

// Limits of solvePA.
const (
	// ipmMaxSize is the largest min(rows, coordinates) solved by the
	// interior-point method, whose iterations cost O(k³) in that size k;
	// larger problems go to dual coordinate descent.
	ipmMaxSize     = 400
	ipmMaxIter     = 200
	ipmTolerance   = 1e-13 // complementarity and feasibility reached
	kktTolerance   = 1e-11 // KKT violation of the clipped multipliers accepted
	polishFrom     = 1e-2  // mean complementarity (relative to c) to start polishing at
	cdTolerance    = 1e-10 // largest projected gradient accepted by CD
	cdMaxPasses    = 10000
	stepToBoundary = 0.995
)

// paProblem is the passive-aggressive problem of Watanabe (2012), eq. 12
// (b_i = 1, x_i a pair's difference vector) and eq. 16 (x_i, b_i a cutting
// plane of the softmax loss):
//
//	min_w ½‖w − w0‖² + c·Σ_i ξ_i   s.t.  x_i·w ≥ b_i − ξ_i,  ξ_i ≥ 0,
//
// whose dual is
//
//	max_α Σ_i α_i·r_i − ½‖Σ_i α_i x_i‖²,  0 ≤ α_i ≤ c,   r_i = b_i − x_i·w0,
//
// with w = w0 + Σ_i α_i x_i. The rows x_i are stored over the compact
// space of the coordinates they use (d of them).
type paProblem struct {
	rows [][]int32   // compact coordinates of each row
	vals [][]float64 // their values
	r    []float64   // b_i − x_i·w0
	c    float64
	d    int
}

func (p *paProblem) dot(i int, z []float64) float64 {
	var s float64
	for k, j := range p.rows[i] {
		s += p.vals[i][k] * z[j]
	}
	return s
}

func (p *paProblem) clearRow(i int, z []float64) {
	for _, j := range p.rows[i] {
		z[j] = 0
	}
}

func (p *paProblem) addRow(i int, a float64, z []float64) {
	for k, j := range p.rows[i] {
		z[j] += a * p.vals[i][k]
	}
}

// solvePA returns the multipliers α of the passive-aggressive problem with
// rows xs, m_i = x_i·w0 and targets b (see paProblem). Rows without an
// entry are constant constraints: their α is c when violated (b_i > m_i),
// which leaves w unchanged and meets the KKT conditions, and 0 otherwise.
// The others are solved by a primal-dual interior-point method (Mehrotra's
// predictor-corrector) on the normal equations of size min(rows,
// coordinates) when that is at most ipmMaxSize, stopped when the KKT
// violation of its multipliers is below 1e-11 and then polished (the
// multipliers near a bound put on it, the rest solved exactly); otherwise
// by dual coordinate descent (Hsieh et al. 2008) to a projected gradient of
// 1e-10 or cdMaxPasses passes. The interior-point method is needed because
// coordinate descent converges very slowly on Watanabe's problems: a
// thousand pairs of a batch in the 15 dense dimensions make a degenerate
// dual (10⁵ passes for 1e-6 on such a problem).
func solvePA(xs []feature.Vector, m, b []float64, c float64) []float64 {
	alpha := make([]float64, len(xs))
	if len(xs) == 0 || c <= 0 {
		return alpha
	}
	var ids []feature.ID
	var used []int
	for i, x := range xs {
		if x.Len() == 0 {
			if b[i] > m[i] {
				alpha[i] = c
			}
			continue
		}
		ids = append(ids, x.IDs...)
		used = append(used, i)
	}
	if len(used) == 0 {
		return alpha
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	p := &paProblem{c: c, d: len(ids)}
	for _, i := range used {
		x := xs[i]
		row := make([]int32, len(x.IDs))
		for k, id := range x.IDs {
			j, _ := slices.BinarySearch(ids, id)
			row[k] = int32(j)
		}
		p.rows = append(p.rows, row)
		p.vals = append(p.vals, x.Vals)
		p.r = append(p.r, b[i]-m[i])
	}
	var a []float64
	if min(len(used), p.d) <= ipmMaxSize {
		a = p.interiorPoint()
	} else {
		a = p.coordinateDescent()
	}
	for k, i := range used {
		alpha[i] = a[k]
	}
	return alpha
}

// interiorPoint solves the problem in the primal-dual form
//
//	min ½‖z‖² + c·1ᵀξ  s.t.  Xz + ξ − s = r,  ξ, s ≥ 0
//
// (z = w − w0) with multipliers α ≥ 0 for the rows and μ ≥ 0 for ξ ≥ 0:
// the KKT conditions are z = Xᵀα, α + μ = c, α∘s = 0, μ∘ξ = 0. Each Newton
// step reduces to (I + XᵀD⁻¹X)Δz = … (d×d) or (XXᵀ + D)Δα = … (n×n), D =
// ξ/μ + s/α, whichever is smaller.
func (p *paProblem) interiorPoint() []float64 {
	n, d, c := len(p.r), p.d, p.c
	z := make([]float64, d)
	xi, s, al, mu := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i, ri := range p.r {
		xi[i] = max(ri, 0) + 1
		s[i] = xi[i] - ri
		al[i], mu[i] = c/2, c/2
	}
	primal := d <= n
	k := n
	if primal {
		k = d
	}
	var gram []float64 // XXᵀ, for the n×n form
	if !primal {
		gram = make([]float64, n*n)
		row := make([]float64, d)
		for i := range n {
			p.addRow(i, 1, row)
			for j := 0; j <= i; j++ {
				gram[i*n+j] = p.dot(j, row)
			}
			p.clearRow(i, row)
		}
	}
	K := make([]float64, k*k)
	best, bestRes := make([]float64, n), math.Inf(1)
	var (
		rd, rp, rxi         = make([]float64, d), make([]float64, n), make([]float64, n)
		ras, rmx, dinv, q   = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		dz, da, dxi, ds, dm = make([]float64, d), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		rhs                 = make([]float64, k)
	)
	// solve computes the Newton direction for the complementarity residuals
	// ras (α∘s) and rmx (μ∘ξ), with K factored.
	solve := func() {
		for i := range n {
			q[i] = -rp[i] + (rmx[i]+xi[i]*rxi[i])/mu[i] - ras[i]/al[i]
		}
		if primal {
			for j := range d {
				rhs[j] = -rd[j]
			}
			for i := range n {
				p.addRow(i, q[i]*dinv[i], rhs)
			}
			cholSolve(K, k, rhs)
			copy(dz, rhs)
			for i := range n {
				da[i] = (q[i] - p.dot(i, dz)) * dinv[i]
			}
		} else {
			for i := range n {
				rhs[i] = q[i] + p.dot(i, rd)
			}
			cholSolve(K, k, rhs)
			copy(da, rhs)
			for j := range d {
				dz[j] = -rd[j]
			}
			for i := range n {
				p.addRow(i, da[i], dz)
			}
		}
		for i := range n {
			ds[i] = (-ras[i] - s[i]*da[i]) / al[i]
			dxi[i] = (-rmx[i] - xi[i]*rxi[i] + xi[i]*da[i]) / mu[i]
			dm[i] = rxi[i] - da[i]
		}
	}
	// maxStep returns the largest t ≤ 1 keeping α, s, μ, ξ non-negative.
	maxStep := func() float64 {
		t := 1.0
		for i := range n {
			for _, v := range [4][2]float64{{al[i], da[i]}, {s[i], ds[i]}, {mu[i], dm[i]}, {xi[i], dxi[i]}} {
				if v[1] < 0 {
					t = min(t, -v[0]/v[1])
				}
			}
		}
		return t
	}
	for range ipmMaxIter {
		// Residuals.
		for j := range d {
			rd[j] = z[j]
		}
		var feas, comp, avg float64
		for i := range n {
			p.addRow(i, -al[i], rd)
			rp[i] = p.dot(i, z) + xi[i] - s[i] - p.r[i]
			rxi[i] = c - al[i] - mu[i]
			feas = max(feas, math.Abs(rp[i]), math.Abs(rxi[i]))
			comp = max(comp, al[i]*s[i], mu[i]*xi[i])
			avg += al[i]*s[i] + mu[i]*xi[i]
		}
		for _, x := range rd {
			feas = max(feas, math.Abs(x))
		}
		if feas <= ipmTolerance && comp <= ipmTolerance {
			break
		}
		if res := p.kkt(al); res < bestRes {
			bestRes = res
			p.clip(best, al)
			if res <= kktTolerance {
				break
			}
		}
		avg /= float64(2 * n)
		// Close to the solution the active set is known: try to finish
		// exactly rather than follow the central path to the end.
		if avg < polishFrom*c {
			// A row is at its lower bound when its multiplier is small
			// next to its slack s_i, at its upper bound when μ_i is small
			// next to ξ_i, free otherwise.
			bound := func(i int) int {
				switch {
				case al[i]/c < s[i]:
					return -1
				case mu[i]/c < xi[i]:
					return 1
				}
				return 0
			}
			pol := p.polish(al, bound)
			if pol != nil && p.kkt(pol) <= kktTolerance {
				return pol
			}
		}
		// Factor the normal equations.
		for i := range n {
			dinv[i] = 1 / (xi[i]/mu[i] + s[i]/al[i])
		}
		clear(K)
		if primal {
			for j := range k {
				K[j*k+j] = 1
			}
			for i := range n {
				row, vals := p.rows[i], p.vals[i]
				for a, ja := range row {
					va := vals[a] * dinv[i]
					for bb, jb := range row {
						if jb <= ja {
							K[int(ja)*k+int(jb)] += va * vals[bb]
						}
					}
				}
			}
		} else {
			for i := range n {
				copy(K[i*n:i*n+i+1], gram[i*n:i*n+i+1])
				K[i*n+i] += 1 / dinv[i]
			}
		}
		if !cholesky(K, k) {
			break // numerically singular: keep the best point
		}
		// Predictor (affine scaling).
		for i := range n {
			ras[i] = al[i] * s[i]
			rmx[i] = mu[i] * xi[i]
		}
		solve()
		t := maxStep()
		var affine float64
		for i := range n {
			affine += (al[i]+t*da[i])*(s[i]+t*ds[i]) + (mu[i]+t*dm[i])*(xi[i]+t*dxi[i])
		}
		affine /= float64(2 * n)
		sigma := math.Pow(affine/avg, 3)
		// Corrector.
		for i := range n {
			ras[i] = al[i]*s[i] + da[i]*ds[i] - sigma*avg
			rmx[i] = mu[i]*xi[i] + dm[i]*dxi[i] - sigma*avg
		}
		solve()
		t = min(1, stepToBoundary*maxStep())
		for j := range d {
			z[j] += t * dz[j]
		}
		for i := range n {
			al[i] += t * da[i]
			s[i] += t * ds[i]
			mu[i] += t * dm[i]
			xi[i] += t * dxi[i]
		}
	}
	if res := p.kkt(al); res < bestRes {
		bestRes = res
		p.clip(best, al)
	}
	snap := func(i int) int {
		switch {
		case best[i] >= c*(1-1e-7):
			return 1
		case best[i] <= c*1e-7:
			return -1
		}
		return 0
	}
	if pol := p.polish(best, snap); pol != nil && p.kkt(pol) <= bestRes {
		return pol
	}
	return best
}

// clip copies al clipped to [0, c] into dst.
func (p *paProblem) clip(dst, al []float64) {
	for i, a := range al {
		dst[i] = min(max(a, 0), p.c)
	}
}

// polish sharpens an interior-point solution: bound(i) says whether row
// i's multiplier is at its lower bound 0 (-1), its upper bound c (1), or
// free (0); the free ones (the rows whose constraints hold with equality)
// are solved exactly from x_i·(w0 + Σ_j α_j x_j) = b_i. It returns nil when
// that system is singular (degenerate rows, or more of them than
// coordinates).
func (p *paProblem) polish(al []float64, bound func(i int) int) []float64 {
	c := p.c
	out := make([]float64, len(al))
	u := make([]float64, p.d) // Σ over the rows at the upper bound
	var free []int
	for i := range al {
		switch bound(i) {
		case 1:
			out[i] = c
			p.addRow(i, c, u)
		case 0:
			free = append(free, i)
		}
	}
	f := len(free)
	if f == 0 {
		return out
	}
	if f > p.d {
		return nil // more equalities than coordinates: singular
	}
	q := make([]float64, f*f)
	rhs := make([]float64, f)
	row := make([]float64, p.d)
	for a, i := range free {
		p.addRow(i, 1, row)
		for b := 0; b <= a; b++ {
			q[a*f+b] = p.dot(free[b], row)
		}
		p.clearRow(i, row)
		rhs[a] = p.r[i] - p.dot(i, u)
	}
	if !cholesky(q, f) {
		return nil
	}
	cholSolve(q, f, rhs)
	for a, i := range free {
		out[i] = min(max(rhs[a], 0), c)
	}
	return out
}

// kkt returns the largest violation of the KKT conditions by the
// multipliers al clipped to [0, c]: with w = w0 + Σ α_i x_i and the row's
// gradient g_i = x_i·w − b_i, α_i·max(g_i, 0) (complementary slackness of
// the row) and (c − α_i)·max(−g_i, 0) (of its slack variable).
func (p *paProblem) kkt(al []float64) float64 {
	u := make([]float64, p.d)
	for i, a := range al {
		p.addRow(i, min(max(a, 0), p.c), u)
	}
	var worst float64
	for i, a := range al {
		a = min(max(a, 0), p.c)
		g := p.dot(i, u) - p.r[i]
		worst = max(worst, a*max(g, 0), (p.c-a)*max(-g, 0))
	}
	return worst
}

// cholesky factors the symmetric positive definite k×k matrix a (lower
// triangle, row-major) in place into L with a = LLᵀ, reporting false if a
// pivot is not positive.
func cholesky(a []float64, k int) bool {
	for j := range k {
		sum := a[j*k+j]
		for l := range j {
			sum -= a[j*k+l] * a[j*k+l]
		}
		if !(sum > 0) {
			return false
		}
		djj := math.Sqrt(sum)
		a[j*k+j] = djj
		for i := j + 1; i < k; i++ {
			sum := a[i*k+j]
			for l := range j {
				sum -= a[i*k+l] * a[j*k+l]
			}
			a[i*k+j] = sum / djj
		}
	}
	return true
}

// cholSolve solves LLᵀx = b in place (b becomes x) with L from cholesky.
func cholSolve(l []float64, k int, b []float64) {
	for i := range k {
		sum := b[i]
		for j := range i {
			sum -= l[i*k+j] * b[j]
		}
		b[i] = sum / l[i*k+i]
	}
	for i := k - 1; i >= 0; i-- {
		sum := b[i]
		for j := i + 1; j < k; j++ {
			sum -= l[j*k+i] * b[j]
		}
		b[i] = sum / l[i*k+i]
	}
}

// coordinateDescent solves the dual by coordinate descent with the
// shrinking of liblinear (Hsieh et al. 2008, Alg. 3): each α_i in turn moves
// to the clipped minimiser of the dual along its coordinate, in a fresh
// order each pass; a variable at a bound whose gradient points out of the
// box by more than the last pass's largest violation leaves the active set,
// and when the active ones meet the tolerance all come back for a final
// check. It is exact in the limit but can need many passes on degenerate
// problems (many rows in few coordinates), hence the cap.
func (p *paProblem) coordinateDescent() []float64 {
	n, c := len(p.r), p.c
	alpha := make([]float64, n)
	q := make([]float64, n)
	for i := range n {
		for _, v := range p.vals[i] {
			q[i] += v * v
		}
	}
	u := make([]float64, p.d) // Σ α_i x_i
	active := make([]int, 0, n)
	all := func() {
		active = active[:0]
		for i := range n {
			active = append(active, i)
		}
	}
	all()
	r := rand.New(rand.NewPCG(1, 2))
	maxOld, minOld := math.Inf(1), math.Inf(-1)
	for range cdMaxPasses {
		r.Shuffle(len(active), func(i, j int) { active[i], active[j] = active[j], active[i] })
		maxNew, minNew := math.Inf(-1), math.Inf(1)
		for s := 0; s < len(active); s++ {
			i := active[s]
			g := p.dot(i, u) - p.r[i] // ∂(−dual)/∂α_i = x_i·w − b_i
			a := alpha[i]
			pg := g
			switch {
			case a == 0 && g > maxOld, a == c && g < minOld:
				active[s] = active[len(active)-1]
				active = active[:len(active)-1]
				s--
				continue
			case a == 0:
				pg = min(g, 0)
			case a == c:
				pg = max(g, 0)
			}
			maxNew, minNew = max(maxNew, pg), min(minNew, pg)
			if pg == 0 {
				continue
			}
			if na := min(max(a-g/q[i], 0), c); na != a {
				p.addRow(i, na-a, u)
				alpha[i] = na
			}
		}
		if maxNew-minNew <= cdTolerance || len(active) == 0 {
			if len(active) == n {
				break
			}
			all()
			maxOld, minOld = math.Inf(1), math.Inf(-1)
			continue
		}
		maxOld, minOld = maxNew, minNew
		if maxOld <= 0 {
			maxOld = math.Inf(1)
		}
		if minOld >= 0 {
			minOld = math.Inf(-1)
		}
	}
	return alpha
}
