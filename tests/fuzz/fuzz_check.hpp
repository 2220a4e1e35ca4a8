// An invariant check for the fuzz targets: a broken invariant aborts, which libFuzzer reports as a
// crash and keeps the input.
#pragma once
#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond)                                                                                               \
  do {                                                                                                                 \
    if (!(cond)) {                                                                                                     \
      std::fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond);                                \
      std::abort();                                                                                                    \
    }                                                                                                                  \
  } while (0)
