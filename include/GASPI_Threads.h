/*
 * GASPI_Threads.h -- HyGASPI
 *
 * GPI-2's thread helpers (deprecated in GPI-2, kept for the programs that use
 * them): a process-local team of threads with dense ids 0..n-1, a barrier
 * among them, and a barrier among them that also runs gaspi_barrier. Names,
 * signatures and the deprecation marks are GPI-2 1.6.0's; none of this is part
 * of the GASPI specification.
 *
 * Typical use (GPI-2's own tests do this):
 *   gaspi_threads_init(&n);                  team of n = CPUs this process may use
 *   for (i = 1; i < n; i++)
 *     gaspi_threads_run(worker, arg);        starts a thread running worker(arg)
 *   worker(arg);                             the caller joins the team too
 *   gaspi_threads_term();
 * where worker calls gaspi_threads_register(&tid) first, then may call
 * gaspi_threads_sync() / gaspi_threads_sync_all(group, timeout).
 *
 * Where HyGASPI differs from GPI-2 (both are stricter or safer, never less):
 *  - ids are handed out in register order; a thread that registers twice keeps
 *    its id; registering more threads than the team has returns GASPI_ERROR;
 *  - gaspi_threads_get_tid returns GASPI_ERROR for a thread that has not
 *    registered (GPI-2 reports -1);
 *  - gaspi_threads_sync_all returns the result of gaspi_barrier to every thread
 *    of the team, not only to one (GPI-2 leaves the others waiting on error);
 *  - gaspi_threads_term waits for the threads gaspi_threads_run started;
 *  - with HYGASPI_THREADS_PIN (see hygaspi-info) the started threads are bound
 *    one per core of the process's CPU set.
 */
#ifndef HYGASPI_GASPI_THREADS_H
#define HYGASPI_GASPI_THREADS_H

#include "GASPI.h"

#if defined(__GNUC__)
#define HYGASPI_THREADS_DEPRECATED __attribute__((deprecated))
#else
#define HYGASPI_THREADS_DEPRECATED
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The calling thread's id in the team (after gaspi_threads_register). */
HYGASPI_API gaspi_return_t gaspi_threads_get_tid(gaspi_int *const tid) HYGASPI_THREADS_DEPRECATED;

/* The size of the team (the n of gaspi_threads_init / gaspi_threads_init_user). */
HYGASPI_API gaspi_return_t gaspi_threads_get_total(gaspi_int *const num) HYGASPI_THREADS_DEPRECATED;

/* The number of CPUs this process may run on (its affinity mask). */
HYGASPI_API gaspi_return_t gaspi_threads_get_num_cores(gaspi_int *const cores) HYGASPI_THREADS_DEPRECATED;

/* Sets up a team of one thread per CPU of the process; *num receives that number. */
HYGASPI_API gaspi_return_t gaspi_threads_init(gaspi_int *const num) HYGASPI_THREADS_DEPRECATED;

/* Sets up a team of use_nr_of_threads threads (at least 1). */
HYGASPI_API gaspi_return_t gaspi_threads_init_user(const unsigned int use_nr_of_threads) HYGASPI_THREADS_DEPRECATED;

/* Ends the team: waits for the threads gaspi_threads_run started, then forgets every id. */
HYGASPI_API gaspi_return_t gaspi_threads_term(void) HYGASPI_THREADS_DEPRECATED;

/* Starts a thread that runs function(arg); it joins the team by calling gaspi_threads_register. */
HYGASPI_API gaspi_return_t gaspi_threads_run(void *(*function)(void *), void *arg) HYGASPI_THREADS_DEPRECATED;

/* Joins the team: *tid receives the calling thread's id (0..n-1). */
HYGASPI_API gaspi_return_t gaspi_threads_register(gaspi_int *tid);

/* Barrier among the n threads of the team (every one must have registered). */
HYGASPI_API void gaspi_threads_sync(void);

/* Barrier among the n threads of the team, and gaspi_barrier(g, timeout_ms) among the ranks of
 * group g while they wait. Every thread of the team returns gaspi_barrier's result. */
HYGASPI_API gaspi_return_t gaspi_threads_sync_all(const gaspi_group_t g,
                                                  const gaspi_timeout_t timeout_ms) HYGASPI_THREADS_DEPRECATED;

#ifdef __cplusplus
}
#endif

#endif /* HYGASPI_GASPI_THREADS_H */
