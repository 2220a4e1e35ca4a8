// test_gasnet_tools_cxx.cpp: gasnet_tools.h as C++20, linked with test_gasnet_tools.c. Defines the
// thread key gt_key_cxx that the C file declares, declares the C file's gt_key_c, and runs a few
// checks of its own (gt_cxx_checks returns 0, or the line of the first failed check).
#include <gasnet_tools.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

GASNETT_THREADKEY_DEFINE(gt_key_cxx); // declared in the C file
GASNETT_THREADKEY_DECLARE(gt_key_c);  // defined in the C file

static_assert(sizeof(gasnett_atomic_t) == 4 && sizeof(gasnett_atomic32_t) == 4 && sizeof(gasnett_atomic64_t) == 8);
static_assert(alignof(gasnett_atomic64_t) == alignof(std::uint64_t));
static_assert(GASNETT_PAGESIZE == 1 << GASNETT_PAGESHIFT);

extern "C" {
void *gt_cxx_key_get(void) { return gasnett_threadkey_get(gt_key_cxx); }
void gt_cxx_key_set(void *value) { gasnett_threadkey_set(gt_key_cxx, value); }
void *gt_cxx_key_c_get(void) { return gasnett_threadkey_get(gt_key_c); }
int gt_cxx_checks(void);
}

// A printf-like C++ function and a C-linkage one, spelled with the header's macros.
GASNETT_FORMAT_PRINTF(gt_cxx_printf, 2, 3, static int gt_cxx_printf(char *buf, const char *fmt, ...)) {
  va_list args;
  va_start(args, fmt);
  const int n = std::vsnprintf(buf, 32, fmt, args);
  va_end(args);
  return n;
}
GASNETT_BEGIN_EXTERNC
int gt_cxx_externc(void);
GASNETT_END_EXTERNC
GASNETT_EXTERNC int gt_cxx_externc(void) { return 4; }

#define CXX_CHECK(cond)                                                                                                \
  do {                                                                                                                 \
    if (!(cond))                                                                                                       \
      return __LINE__;                                                                                                 \
  } while (0)

int gt_cxx_checks(void) {
  // Atomics with C++ brace initialization, wrapping as in C.
  gasnett_atomic_t a = gasnett_atomic_init(-2);
  gasnett_atomic_increment(&a, GASNETT_ATOMIC_MB_PRE);
  CXX_CHECK(gasnett_atomic_read(&a, 0) == GASNETT_ATOMIC_MAX);
  CXX_CHECK(gasnett_atomic_add(&a, 1, GASNETT_ATOMIC_ACQ) == 0);
  CXX_CHECK(gasnett_atomic_signed(gasnett_atomic_subtract(&a, 3, GASNETT_ATOMIC_REL)) == -3);
  gasnett_atomic64_t b = gasnett_atomic64_init(UINT64_C(0x1FFFFFFFF));
  CXX_CHECK(gasnett_atomic64_compare_and_swap(&b, UINT64_C(0x1FFFFFFFF), 1, GASNETT_ATOMIC_ACQ_IF_TRUE));
  CXX_CHECK(gasnett_atomic64_decrement_and_test(&b, GASNETT_ATOMIC_ACQ_IF_FALSE));

  // Locks in static storage, as C clients declare them.
  static gasnett_mutex_t m = GASNETT_MUTEX_INITIALIZER;
  static gasnett_spinlock_t s = GASNETT_SPINLOCK_INITIALIZER;
  static gasnett_rwlock_t rw = GASNETT_RWLOCK_INITIALIZER;
  static gasnett_cond_t c = GASNETT_COND_INITIALIZER;
  gasnett_mutex_lock(&m);
  CXX_CHECK(gasnett_spinlock_trylock(&s) == 0 && gasnett_spinlock_trylock(&s) == EBUSY);
  gasnett_spinlock_unlock(&s);
  gasnett_cond_broadcast(&c);
  gasnett_mutex_unlock(&m);
  gasnett_rwlock_wrlock(&rw);
  gasnett_rwlock_unlock(&rw);

  // Timers, environment, system.
  const gasnett_tick_t t0 = gasnett_ticks_now();
  CXX_CHECK(gasnett_ticks_now() >= t0 && gasnett_ticks_to_us(t0) == gasnett_ticks_to_ns(t0) / 1000);
  CXX_CHECK(gasnett_tick_overheadus() > 0.0 && gasnett_tick_granularityus() > 0.0);
  CXX_CHECK(gasnett_getenv_int_withdefault("GT_CXX_UNSET", 5, 1) == 5);
  CXX_CHECK(std::strcmp(gasnett_getenv_withdefault("GT_CXX_UNSET", "d"), "d") == 0);
  CXX_CHECK(gasnett_getenv_yesno_withdefault("GT_CXX_UNSET", 1) == 1);
  CXX_CHECK(gasnett_cpu_count() >= 1 && gasnett_gethostname()[0] != '\0');

  // gasnett_set_affinity pins (CPU sets are visible in C++) only the calling thread.
  bool pinned_ok = false;
  std::thread pinned([&pinned_ok] {
    cpu_set_t before, after;
    CPU_ZERO(&before);
    CPU_ZERO(&after);
    sched_getaffinity(0, sizeof before, &before);
    gasnett_set_affinity(gasnett_cpu_count() + 1); // rank is taken modulo the CPU count
    sched_getaffinity(0, sizeof after, &after);
    // Pinned to one CPU, or left alone where that CPU is not ours to take (cpuset limits).
    pinned_ok = CPU_COUNT(&after) == 1 || CPU_EQUAL(&before, &after);
  });
  pinned.join();
  CXX_CHECK(pinned_ok);

  // Keys: this thread's value is the one the C side set; a fresh std::thread starts at NULL.
  void *in_thread = &a;
  std::thread fresh([&in_thread] {
    in_thread = gasnett_threadkey_get(gt_key_cxx);
    gasnett_threadkey_set(gt_key_c, &in_thread);
  });
  fresh.join();
  CXX_CHECK(in_thread == nullptr && gasnett_threadkey_get(gt_key_c) == nullptr);

  // The newer tools in C++: fixed-width strong atomics, numbers, checksums, zero counts, hints.
  gasnett_strongatomic64_t s64 = gasnett_strongatomic64_init(UINT64_MAX);
  gasnett_strongatomic64_increment(&s64, GASNETT_ATOMIC_NONE);
  CXX_CHECK(gasnett_strongatomic64_read(&s64, 0) == 0);
  gasnett_strongatomic32_t s32 = gasnett_strongatomic32_init(7);
  CXX_CHECK(gasnett_strongatomic32_compare_and_swap(&s32, 7, 8, GASNETT_ATOMIC_ACQ_IF_TRUE));
  CXX_CHECK(gasnett_strongatomic32_read(&s32, 0) == 8);
  char text[32];
  CXX_CHECK(std::strcmp(gasnett_format_number(INT64_C(6) << 30, text, sizeof text, 1), "6GB") == 0);
  CXX_CHECK(gasnett_parse_int(text, 1) == INT64_C(6) << 30 && gasnett_parse_int("0x20", 0) == 32);
  CXX_CHECK(gasnett_checksum("foobar", 6) == UINT64_C(0x85944171f73967e8));
  CXX_CHECK(gasnett_count0s_uint64_t(UINT64_C(0x00FF0000FF00FF00)) == 5 && gasnett_count0s_uint32_t(0x00010000u) == 3);
  CXX_CHECK(gasnett_isLittleEndian() == (PLATFORM_ARCH_LITTLE_ENDIAN + 0));
  int hinted = 0;
  if_pf(hinted != 0) hinted = 1;
  else hinted = 2;
  if_pt(hinted == 2) hinted = 3;
  CXX_CHECK(hinted == 3 && gasnett_constant_p(5) == 1);
  char *loc = gasnett_current_loc;
  CXX_CHECK(std::strncmp(loc, "gt_cxx_checks at ", 17) == 0);
  std::free(loc);
  CXX_CHECK(gt_cxx_printf(text, "%s%d", "n", 5) == 2 && std::strcmp(text, "n5") == 0);
  CXX_CHECK(gt_cxx_externc() == 4 && PLATFORM_COMPILER_CXX == 1 && PLATFORM_COMPILER_CXX_LANGLVL >= 202002L);

  // Tracing macros are expressions that evaluate nothing in C++ too.
  int evaluations = 0;
  GASNETT_TRACE_PRINTF("c++ %d", ++evaluations);
  GASNETT_STATS_PRINTF("c++ %d", ++evaluations);
  CXX_CHECK(evaluations == 0);
  CXX_CHECK(GASNETT_PREDICT_TRUE(std::strlen(GASNETT_CURRENT_FUNCTION) > 0));
  return 0;
}
