/* Helpers of the GASNet-1 multi-rank tests: checks that name the node and the line, and the one
 * "SUCCESS <name>" line that run_mr.sh requires of node 0. */
#ifndef GN_UTIL_H
#define GN_UTIL_H
#ifndef GASNET_SEQ
#ifndef GASNET_PARSYNC
#ifndef GASNET_PAR
#define GASNET_PAR
#endif
#endif
#endif
#include <gasnet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GN_CHECK(cond)                                                                                                 \
  do {                                                                                                                 \
    if (!(cond)) {                                                                                                     \
      fprintf(stderr, "[%u] %s:%d: check failed: %s\n", (unsigned)gasnet_mynode(), __FILE__, __LINE__, #cond);         \
      fflush(stderr);                                                                                                  \
      abort();                                                                                                         \
    }                                                                                                                  \
  } while (0)

#define GN_OK(call) GN_CHECK((call) == GASNET_OK)

/* Every node reaches this point; node 0 then prints the line run_mr.sh looks for. */
#define GN_SUCCESS(name)                                                                                               \
  do {                                                                                                                 \
    GN_OK(gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS));                                                            \
    if (gasnet_mynode() == 0) {                                                                                        \
      printf("SUCCESS %s\n", name);                                                                                    \
      fflush(stdout);                                                                                                  \
    }                                                                                                                  \
  } while (0)

#endif
