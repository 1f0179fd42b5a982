/* support_theory.c — closed forms for the tests (see support_theory.h). */
#include "support_theory.h"

double erlang_c_wait(unsigned c, double lambda, double mu)
{
    double a = lambda / mu, rho = a / c, sum = 0, term = 1;
    for (unsigned k = 0; k < c; k++) {
        if (k)
            term *= a / k;
        sum += term; /* sum of a^k / k!, k < c */
    }
    double last = term * a / c; /* a^c / c! */
    double p_wait = last / (1 - rho) / (sum + last / (1 - rho));
    return p_wait / (c * mu - lambda);
}
