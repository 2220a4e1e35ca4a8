/* The checks of the GASNet-EX test programs: a failed one names the rank, the place and the
 * condition, and aborts (the launcher then fails the job). Include after gasnetex.h. */
#ifndef GEX_CHECK_H
#define GEX_CHECK_H
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                                                                    \
  do {                                                                                                                 \
    if (!(cond)) {                                                                                                     \
      fprintf(stderr, "[%u] %s:%d: check failed: %s\n", (unsigned)gex_System_QueryJobRank(), __FILE__, __LINE__,       \
              #cond);                                                                                                  \
      fflush(stderr);                                                                                                  \
      abort();                                                                                                         \
    }                                                                                                                  \
  } while (0)
#define OK(call) CHECK((call) == GASNET_OK)

#endif
