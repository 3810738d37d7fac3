package experiment

import (
	"math"
)

// studentTwoSidedP is the two-sided p-value of a Student t statistic with df degrees of
// freedom (df may be fractional, as Satterthwaite's are): P(|T| >= |t|) = I_x(df/2, 1/2) with
// x = df/(df+t^2), the regularized incomplete beta function.
func studentTwoSidedP(t, df float64) float64 {
	if math.IsNaN(t) || !(df > 0) {
		return math.NaN()
	}
	if math.IsInf(t, 0) {
		return 0
	}
	return regIncBeta(df/2, 0.5, df/(df+t*t))
}

// studentQuantile returns the t with P(T <= t) = p for df degrees of freedom, 0 < p < 1. It
// solves log P(|T| >= q) = log(2 min(p, 1-p)) by Newton's method (the log of the tail is
// nearly linear in q, so a few steps suffice), falling back to bisection of the bracket
// whenever a step would leave it.
func studentQuantile(p, df float64) float64 {
	if !(p > 0 && p < 1) || !(df > 0) {
		return math.NaN()
	}
	if p == 0.5 {
		return 0
	}
	target := math.Log(2 * math.Min(p, 1-p))
	lo, hi := 0.0, 1.0
	for math.Log(studentTwoSidedP(hi, df)) > target {
		lo, hi = hi, 2*hi
		if hi > 1e300 {
			break
		}
	}
	lgA, _ := math.Lgamma((df + 1) / 2)
	lgB, _ := math.Lgamma(df / 2)
	logDensityConst := lgA - lgB - 0.5*math.Log(df*math.Pi)
	q := (lo + hi) / 2
	for range 100 {
		tail := studentTwoSidedP(q, df)
		h := math.Log(tail) - target
		if h > 0 {
			lo = q
		} else {
			hi = q
		}
		if math.Abs(h) < 1e-13 || hi-lo <= 1e-14*hi {
			break
		}
		// d/dq log P(|T| >= q) = -2 f(q) / P(|T| >= q).
		density := math.Exp(logDensityConst - (df+1)/2*math.Log1p(q*q/df))
		next := q + h*tail/(2*density)
		if !(next > lo && next < hi) {
			next = (lo + hi) / 2
		}
		q = next
	}
	if p < 0.5 {
		return -q
	}
	return q
}

// normalTwoSidedP is P(|Z| >= |z|) for a standard normal Z.
func normalTwoSidedP(z float64) float64 { return math.Erfc(math.Abs(z) / math.Sqrt2) }

// regIncBeta is the regularized incomplete beta function I_x(a, b), evaluated by the
// continued fraction of Numerical Recipes (2nd ed., section 6.4) with the modified Lentz
// method, using the symmetry I_x(a,b) = 1 - I_{1-x}(b,a) where the fraction converges slowly.
func regIncBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaContinuedFraction(a, b, x) / a
	}
	return 1 - front*betaContinuedFraction(b, a, 1-x)/b
}

func betaContinuedFraction(a, b, x float64) float64 {
	const (
		maxIter = 10000
		eps     = 1e-16
		tiny    = 1e-300
	)
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1-qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= maxIter; m++ {
		fm := float64(m)
		m2 := 2 * fm
		aa := fm * (b - fm) * x / ((qam + m2) * (a + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		aa = -(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}

// digamma is ψ(x), the derivative of ln Γ(x), for x > 0: the recurrence ψ(x) = ψ(x+1) - 1/x
// up to x >= 6, then the asymptotic series.
func digamma(x float64) float64 {
	var acc float64
	for x < 6 {
		acc -= 1 / x
		x++
	}
	f := 1 / (x * x)
	return acc + math.Log(x) - 0.5/x - f*(1.0/12-f*(1.0/120-f*(1.0/252-f*(1.0/240-f*(1.0/132)))))
}

// trigamma is ψ'(x), for x > 0, by the same recurrence and the asymptotic series.
func trigamma(x float64) float64 {
	var acc float64
	for x < 6 {
		acc += 1 / (x * x)
		x++
	}
	f := 1 / (x * x)
	return acc + 1/x + f/2 + f/x*(1.0/6-f*(1.0/30-f*(1.0/42-f*(1.0/30-f*(5.0/66)))))
}

// tetragamma is ψ”(x), for x > 0, by the same recurrence and the asymptotic series
// -1/x^2 - 1/x^3 - 1/(2x^4) + 1/(6x^6) - 1/(6x^8) + 3/(10x^10) - 5/(6x^12).
func tetragamma(x float64) float64 {
	var acc float64
	for x < 6 {
		acc -= 2 / (x * x * x)
		x++
	}
	f := 1 / (x * x)
	return acc - f - f/x - f*f*(0.5-f*(1.0/6-f*(1.0/6-f*(3.0/10-f*(5.0/6)))))
}

// trigammaInverse solves trigamma(y) = x for y > 0 (x > 0) by Newton's method on 1/trigamma,
// as limma's trigammaInverse does (Smyth 2004).
func trigammaInverse(x float64) float64 {
	switch {
	case !(x > 0):
		return math.NaN()
	case x > 1e7:
		return 1 / math.Sqrt(x)
	case x < 1e-6:
		return 1 / x
	}
	y := 0.5 + 1/x
	for range 50 {
		tri := trigamma(y)
		d := tri * (1 - tri/x) / tetragamma(y)
		y += d
		if -d/y < 1e-8 {
			break
		}
	}
	return y
}

func normalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// normalQuantile inverts normalCDF by bisection (it is called once per plan).
func normalQuantile(p float64) float64 {
	lo, hi := -40.0, 40.0
	for range 200 {
		mid := (lo + hi) / 2
		if normalCDF(mid) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}
