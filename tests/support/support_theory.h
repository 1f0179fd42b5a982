/* support_theory.h — closed forms the tests check the models against. */
#ifndef RINGSIM_SUPPORT_THEORY_H
#define RINGSIM_SUPPORT_THEORY_H

/* M/M/c (Erlang C): the mean time a request waits in the queue before its
 * service starts, for c servers, arrival rate lambda and service rate mu per
 * server (same time unit); requires lambda < c * mu. The mean latency is
 * this plus 1 / mu. */
double erlang_c_wait(unsigned c, double lambda, double mu);

#endif
