#!/usr/bin/env python3
"""Reference E-divisive statistic for tests/unit/test_history_detect.c, written from
Matteson & James (2014), eq. (3)-(5), with exponent alpha = 1, in the plainest way: each
line of stdin is a series (numbers separated by spaces); for each split tau (both parts at
least 3 long) print "tau Q", then "best tau" for the largest Q over tau and the end kappa
of the right part (the first on ties, tau before kappa)."""
import sys

MIN = 3


def q(x, tau):
    left, right = x[:tau], x[tau:]
    m, k = len(left), len(right)
    cross = sum(abs(a - b) for a in left for b in right)
    within_l = sum(abs(left[i] - left[j]) for i in range(m) for j in range(i + 1, m))
    within_r = sum(abs(right[i] - right[j]) for i in range(k) for j in range(i + 1, k))
    e = 2.0 * cross / (m * k) - within_l / (m * (m - 1) / 2.0) - within_r / (k * (k - 1) / 2.0)
    return m * k / (m + k) * e


for line in sys.stdin:
    x = [float(v) for v in line.split()]
    best, best_tau = None, None
    for tau in range(MIN, len(x) - MIN + 1):
        print(tau, repr(q(x, tau)))
        for kappa in range(tau + MIN, len(x) + 1):
            v = q(x[:kappa], tau)
            if best is None or v > best:
                best, best_tau = v, tau
    print("best", best_tau)
    sys.stdout.flush()
