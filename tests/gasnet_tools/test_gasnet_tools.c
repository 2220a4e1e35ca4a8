/* test_gasnet_tools.c: every name of include/gasnet_tools.h, checked for GASNet's semantics.
 * Linked with test_gasnet_tools_cxx.cpp, which includes the header as C++ and defines the thread
 * key gt_key_cxx that this file declares (and uses gt_key_c, defined here), and with
 * test_gasnet_tools_lib.c, which checks the tools libhygaspi implements (gt_lib_checks). Exits 1
 * with a message at the first failed check; prints "gasnet_tools: OK" at the end. */
#define GASNETT_THREAD_SAFE 1
#include <gasnet_tools.h>

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>
#include <sys/wait.h>

/* From the C++ translation unit: 0 when its checks pass, else the failing line. */
int gt_cxx_checks(void);
/* This thread's value of gt_key_cxx, read / written by C++ code. */
void *gt_cxx_key_get(void);
void gt_cxx_key_set(void *value);
/* gt_key_c as the C++ translation unit sees it. */
void *gt_cxx_key_c_get(void);
/* The checks of test_gasnet_tools_lib.c (they exit on failure). */
void gt_lib_checks(void);

GASNETT_THREADKEY_DECLARE(gt_key_cxx); /* defined in the C++ file */
GASNETT_THREADKEY_DEFINE(gt_key_c);    /* declared in the C++ file */
GASNETT_IDENT(gt_ident_string, "$GasnetToolsTest: hygaspi $");

#define CHECK(cond)                                                                                                    \
  do {                                                                                                                 \
    if (!(cond)) {                                                                                                     \
      fprintf(stderr, "gasnet_tools: FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond);                                  \
      exit(1);                                                                                                         \
    }                                                                                                                  \
  } while (0)

/* Every fence-flag combination an operation may get. */
static const int kFlags[] = {GASNETT_ATOMIC_NONE,
                             GASNETT_ATOMIC_RMB_PRE,
                             GASNETT_ATOMIC_WMB_PRE,
                             GASNETT_ATOMIC_MB_PRE,
                             GASNETT_ATOMIC_RMB_POST,
                             GASNETT_ATOMIC_WMB_POST,
                             GASNETT_ATOMIC_MB_POST,
                             GASNETT_ATOMIC_REL,
                             GASNETT_ATOMIC_ACQ,
                             GASNETT_ATOMIC_RMB_POST_IF_TRUE,
                             GASNETT_ATOMIC_RMB_POST_IF_FALSE,
                             GASNETT_ATOMIC_ACQ_IF_TRUE | GASNETT_ATOMIC_ACQ_IF_FALSE,
                             GASNETT_ATOMIC_MB_PRE | GASNETT_ATOMIC_MB_POST};
#define NFLAGS (sizeof kFlags / sizeof kFlags[0])

/* ---- Compiler annotations */

GASNETT_INLINE(gt_twice) int gt_twice(int x) { return 2 * x; }
GASNETT_PLEASE_INLINE(gt_thrice) int gt_thrice(int x) { return 3 * x; }
GASNETT_NEVER_INLINE(gt_plus1, static int gt_plus1(int x)) { return x + 1; }
static void gt_die(void) GASNETT_NORETURN; /* GASNet's placement: after the declarator */
GASNETT_NORETURN static void gt_die2(void);
static void gt_die(void) { abort(); }
static void gt_die2(void) { abort(); }

/* printf-like, by GASNETT_FORMAT_PRINTF (a definition and a pointer to one). */
GASNETT_FORMAT_PRINTF(gt_format, 2, 3, static int gt_format(char *buf, const char *fmt, ...)) {
  va_list args;
  va_start(args, fmt);
  const int n = vsnprintf(buf, 64, fmt, args);
  va_end(args);
  return n;
}
GASNETT_FORMAT_PRINTF_FUNCPTR(gt_format_ptr, 2, 3, static int (*gt_format_ptr)(char *, const char *, ...)) = gt_format;
/* The other annotations, each on a declaration as the spec places it. */
static void gt_die3(void) GASNETT_NORETURN;
GASNETT_NORETURNP(gt_die3)
static void gt_die3(void) { abort(); }
static void *gt_alloc(size_t n) GASNETT_MALLOC;
GASNETT_MALLOCP(gt_alloc)
static void *gt_alloc(size_t n) { return malloc(n); }
GASNETT_PURE static size_t gt_len(const char *s);
GASNETT_PUREP(gt_len)
static size_t gt_len(const char *s) { return strlen(s); }
GASNETT_CONST static int gt_square(int x);
GASNETT_CONSTP(gt_square)
static int gt_square(int x) { return x * x; }
GASNETT_HOT static int gt_hot(int x) { return x + 2; }
GASNETT_COLD static int gt_cold(int x) { return x - 2; }
GASNETT_DEPRECATED int gt_old(void); /* declared deprecated, never called: no warning */
GASNETT_WARN_UNUSED_RESULT static int gt_result(void) { return 11; }
GASNETT_USED static int gt_kept(void) { return 12; }
GASNETT_INLINE(gt_copy) void gt_copy(int *GASNETT_RESTRICT dst, const int *GASNETT_RESTRICT src) { *dst = *src; }
/* C linkage spelled with the header's macros (plain declarations in C). */
GASNETT_BEGIN_EXTERNC
int gt_externc_a(void);
GASNETT_END_EXTERNC
GASNETT_EXTERNC int gt_externc_b(void);
int gt_externc_a(void) { return 1; }
int gt_externc_b(void) { return 2; }
GASNETI_UNUSED static int gt_unused_static;

static void check_annotations(void) {
  GASNETT_UNUSED int unused_is_fine = 0;
  char buf[64];
  CHECK(gt_format(buf, "%d-%s", 7, "x") == 3 && strcmp(buf, "7-x") == 0);
  CHECK(gt_format_ptr(buf, "%u", 42u) == 2 && strcmp(buf, "42") == 0);
  void *block = gt_alloc(16);
  CHECK(block != NULL);
  free(block);
  CHECK(gt_len("four") == 4 && gt_square(-9) == 81 && gt_hot(1) == 3 && gt_cold(1) == -1);
  CHECK(gt_result() == 11 && gt_kept() == 12 && gt_externc_a() + gt_externc_b() == 3);
  int from = 5, to = 0;
  gt_copy(&to, &from);
  CHECK(to == 5);
  void (*volatile never3)(void) = gt_die3;
  CHECK(never3 != NULL);
  /* if_pf / if_pt are plain `if`s (with else) whatever the hint. */
  int taken = 0;
  volatile int yes = 1, no = 0;
  if_pf(no) taken = 1; else taken = 2;
  CHECK(taken == 2);
  if_pf(yes) taken = 3;
  CHECK(taken == 3);
  if_pt(yes) taken = 4; else taken = 5;
  CHECK(taken == 4);
  if_pt(no) taken = 6; else taken = 7;
  CHECK(taken == 7);
  CHECK(gasnett_constant_p(3 * 4) == 1 && gasnett_constant_p(yes) == 0);
  /* _STRINGIFY expands its argument first; _CONCAT pastes expanded tokens. */
  char line_text[16];
  /* Both on one line. */
  /* clang-format off */
  snprintf(line_text, sizeof line_text, "%d", __LINE__); const char *line_str = _STRINGIFY(__LINE__);
  /* clang-format on */
  CHECK(strcmp(line_str, line_text) == 0 && strcmp(_STRINGIFY(GASNETT_PAGESHIFT), "12") == 0);
  const int _CONCAT(gt_, pasted) = 9;
  CHECK(gt_pasted == 9);
  CHECK(gt_twice(21) == 42 && gt_thrice(3) == 9 && gt_plus1(1) == 2);
  CHECK(GASNETT_PREDICT_TRUE(7) == 1 && GASNETT_PREDICT_FALSE(0) == 0);
  CHECK(GASNETT_LIKELY(1 == 1) && !GASNETT_UNLIKELY(1 == 2));
  CHECK(strcmp(GASNETT_CURRENT_FUNCTION, "check_annotations") == 0);
  CHECK(strcmp(gt_ident_string, "$GasnetToolsTest: hygaspi $") == 0);
  void (*volatile never)(void) = (gt_plus1(0) == 5) ? gt_die : gt_die2; /* referenced, never called */
  CHECK(never != NULL);
}

/* ---- Configuration */

static void check_config(void) {
  CHECK(GASNETT_THREAD_SAFE == 1);
  CHECK(GASNETT_SPEC_VERSION_MAJOR == 1 && GASNETT_SPEC_VERSION_MINOR == 9);
  CHECK(GASNETT_MAX_THREADS == 256);
  CHECK(strcmp(gasnett_performance_warning_str(), "") == 0);
  /* Portable platform flags: exactly one pointer width and byte order, and the right ones. */
#if PLATFORM_ARCH_32 + PLATFORM_ARCH_64 != 1 || PLATFORM_ARCH_LITTLE_ENDIAN + PLATFORM_ARCH_BIG_ENDIAN != 1
  CHECK(!"exactly one PLATFORM_ARCH width and byte order");
#endif
  CHECK(sizeof(void *) == (PLATFORM_ARCH_64 ? 8 : 4));
  CHECK(gasnett_isLittleEndian() == (PLATFORM_ARCH_LITTLE_ENDIAN ? 1 : 0));
  uint32_t probe = 0x01020304u;
  CHECK(gasnett_isLittleEndian() == (*(unsigned char *)&probe == 0x04));
#if !PLATFORM_OS_LINUX || !(PLATFORM_COMPILER_GNU || PLATFORM_COMPILER_CLANG || PLATFORM_COMPILER_INTEL)
  CHECK(!"Linux with a GNU-compatible compiler");
#endif
#if defined(__x86_64__) && !PLATFORM_ARCH_X86_64
  CHECK(!"PLATFORM_ARCH_X86_64 on x86-64");
#endif
#if defined(__clang__)
  CHECK(strcmp(_STRINGIFY(PLATFORM_COMPILER_FAMILYNAME), "CLANG") == 0);
  CHECK(PLATFORM_COMPILER_VERSION == PLATFORM_COMPILER_VERSION_INT(__clang_major__, __clang_minor__, __clang_patchlevel__));
#elif defined(__GNUC__)
  CHECK(strcmp(_STRINGIFY(PLATFORM_COMPILER_FAMILYNAME), "GNU") == 0 && PLATFORM_COMPILER_FAMILYID == 1);
  CHECK(PLATFORM_COMPILER_VERSION_EQ(__GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__));
  CHECK(PLATFORM_COMPILER_VERSION_GE(4, 0, 0) && PLATFORM_COMPILER_VERSION_LT(1000, 0, 0));
#endif
  CHECK(strcmp(PLATFORM_COMPILER_VERSION_STR, __VERSION__) == 0);
  CHECK(PLATFORM_COMPILER_C_LANGLVL == 201112L && PLATFORM_COMPILER_C == 1);
  CHECK(strcmp(_STRINGIFY(PLATFORM_OS_FAMILYNAME), "LINUX") == 0);
  CHECK(GASNETT_RELEASE_VERSION_MAJOR == 1 && GASNETT_RELEASE_VERSION_MINOR == 28 &&
        GASNETT_RELEASE_VERSION_PATCH == 2);
  CHECK(GASNETT_CACHE_LINE_BYTES >= 64 && (GASNETT_CACHE_LINE_BYTES & (GASNETT_CACHE_LINE_BYTES - 1)) == 0);
  CHECK(GASNETT_PAGESIZE == 1 << GASNETT_PAGESHIFT && GASNETT_PAGESIZE == 4096);
  CHECK(strlen(GASNETT_SYSTEM_TUPLE) > 0 && strstr(GASNETT_SYSTEM_TUPLE, "linux") != NULL);
  CHECK(strstr(GASNETT_CONFIG_STRING, "RELEASE=1.28.2") != NULL);
  CHECK(strstr(GASNETT_CONFIG_STRING, GASNETT_TIMER_CONFIG) != NULL);
  CHECK(GASNETT_HAVE_ATOMIC_CAS == 1 && GASNETT_HAVE_ATOMIC_ADD_SUB == 1 && GASNETT_HAVE_SPINLOCK == 1);
#if GASNETT_TRACE_ENABLED || GASNETT_STATS_ENABLED
  CHECK(!"tracing and statistics are compiled out");
#endif
}

/* ---- Timers */

static void check_timers(void) {
  CHECK(GASNETT_TICK_MIN == 0 && GASNETT_TICK_MAX == UINT64_MAX);
  gasnett_tick_t prev = gasnett_ticks_now();
  for (int i = 0; i < 100000; ++i) {
    const gasnett_tick_t now = gasnett_ticks_now();
    CHECK(now >= prev);
    prev = now;
  }
  const gasnett_tick_t t0 = gasnett_ticks_now();
  const struct timespec nap = {0, 20 * 1000 * 1000}; /* 20 ms */
  CHECK(nanosleep(&nap, NULL) == 0);
  const gasnett_tick_t t1 = gasnett_ticks_now();
  const uint64_t ns = gasnett_ticks_to_ns(t1 - t0), us = gasnett_ticks_to_us(t1 - t0);
  CHECK(ns >= 20000000u && ns < 20000000000u);
  CHECK(us == ns / 1000u);
  CHECK(gasnett_ticks_to_ns(t1) == t1 && gasnett_ticks_to_us(t1) == gasnett_ticks_to_ns(t1) / 1000u);
  const double overhead = gasnett_tick_overheadus(), granularity = gasnett_tick_granularityus();
  CHECK(overhead > 0.0 && overhead < 1000.0);
  CHECK(granularity > 0.0 && granularity < 1000.0);
  CHECK(gasnett_timer_overheadus() == overhead && gasnett_timer_granularityus() == granularity);
}

/* ---- Atomics, single-threaded: each operation's result and the value it leaves. */

static void check_atomic_default(int f) {
  gasnett_atomic_t a = gasnett_atomic_init(5);
  CHECK(gasnett_atomic_read(&a, f) == 5);
  gasnett_atomic_set(&a, 7, f);
  CHECK(gasnett_atomic_read(&a, f) == 7);
  gasnett_atomic_increment(&a, f);
  CHECK(gasnett_atomic_read(&a, f) == 8);
  gasnett_atomic_decrement(&a, f);
  CHECK(gasnett_atomic_read(&a, f) == 7);
  CHECK(gasnett_atomic_add(&a, 10, f) == 17 && gasnett_atomic_read(&a, f) == 17);
  CHECK(gasnett_atomic_subtract(&a, 7, f) == 10 && gasnett_atomic_read(&a, f) == 10);
  CHECK(gasnett_atomic_swap(&a, 3, f) == 10 && gasnett_atomic_read(&a, f) == 3);
  CHECK(gasnett_atomic_compare_and_swap(&a, 3, 4, f) != 0 && gasnett_atomic_read(&a, f) == 4);
  CHECK(gasnett_atomic_compare_and_swap(&a, 3, 9, f) == 0 && gasnett_atomic_read(&a, f) == 4);
  gasnett_atomic_set(&a, 2, f);
  CHECK(gasnett_atomic_decrement_and_test(&a, f) == 0 && gasnett_atomic_read(&a, f) == 1);
  CHECK(gasnett_atomic_decrement_and_test(&a, f) != 0 && gasnett_atomic_read(&a, f) == 0);
  /* Wraparound at 0 and at GASNETT_ATOMIC_MAX = 0xFFFFFFFF. */
  CHECK(GASNETT_ATOMIC_MAX == 0xFFFFFFFFu);
  gasnett_atomic_decrement(&a, f);
  CHECK(gasnett_atomic_read(&a, f) == GASNETT_ATOMIC_MAX);
  gasnett_atomic_increment(&a, f);
  CHECK(gasnett_atomic_read(&a, f) == 0);
  CHECK(gasnett_atomic_subtract(&a, 1, f) == 0xFFFFFFFFu);
  CHECK(gasnett_atomic_add(&a, 1, f) == 0);
  gasnett_atomic_set(&a, 0xFFFFFFF0u, f);
  CHECK(gasnett_atomic_add(&a, 0x20, f) == 0x10);
  CHECK(gasnett_atomic_subtract(&a, 0x20, f) == 0xFFFFFFF0u);
  gasnett_atomic_set(&a, GASNETT_ATOMIC_MAX, f);
  CHECK(gasnett_atomic_decrement_and_test(&a, f) == 0 && gasnett_atomic_read(&a, f) == 0xFFFFFFFEu);
  gasnett_atomic_set(&a, (gasnett_atomic_val_t)-1, f); /* set wraps */
  CHECK(gasnett_atomic_read(&a, f) == GASNETT_ATOMIC_MAX);
  CHECK(gasnett_atomic_compare_and_swap(&a, (gasnett_atomic_val_t)-1, 0, f) && gasnett_atomic_read(&a, f) == 0);
  /* Signed view. */
  CHECK(gasnett_atomic_signed(gasnett_atomic_subtract(&a, 5, f)) == -5);
  CHECK(gasnett_atomic_signed(GASNETT_ATOMIC_MAX) == -1);
  CHECK(gasnett_atomic_signed(0x80000000u) == GASNETT_ATOMIC_SIGNED_MIN);
  CHECK(gasnett_atomic_signed(0x7FFFFFFFu) == GASNETT_ATOMIC_SIGNED_MAX);
  CHECK(gasnett_atomic_signed(0) == 0 && gasnett_atomic_signed(1) == 1);
  CHECK(GASNETT_ATOMIC_SIGNED_MIN == INT32_MIN && GASNETT_ATOMIC_SIGNED_MAX == INT32_MAX);
  gasnett_atomic_t minus_one = gasnett_atomic_init(-1); /* init wraps */
  CHECK(gasnett_atomic_read(&minus_one, f) == GASNETT_ATOMIC_MAX);
  /* Strong atomics: the same operations. */
  gasnett_strongatomic_t s = gasnett_strongatomic_init(1);
  gasnett_strongatomic_increment(&s, f);
  CHECK(gasnett_strongatomic_read(&s, f) == 2);
  gasnett_strongatomic_decrement(&s, f);
  gasnett_strongatomic_set(&s, 1, f);
  CHECK(gasnett_strongatomic_decrement_and_test(&s, f));
  CHECK(gasnett_strongatomic_compare_and_swap(&s, 0, 6, f) && gasnett_strongatomic_swap(&s, 1, f) == 6);
  CHECK(gasnett_strongatomic_add(&s, 2, f) == 3 && gasnett_strongatomic_subtract(&s, 4, f) == GASNETT_ATOMIC_MAX);
  CHECK(gasnett_strongatomic_signed(gasnett_strongatomic_read(&s, f)) == -1);
}

static void check_atomic32(int f) {
  gasnett_atomic32_t a = gasnett_atomic32_init(0xFFFFFFFEu);
  CHECK(sizeof a == 4);
  gasnett_atomic32_increment(&a, f);
  CHECK(gasnett_atomic32_read(&a, f) == 0xFFFFFFFFu);
  gasnett_atomic32_increment(&a, f);
  CHECK(gasnett_atomic32_read(&a, f) == 0);
  gasnett_atomic32_decrement(&a, f);
  CHECK(gasnett_atomic32_read(&a, f) == 0xFFFFFFFFu);
  CHECK(gasnett_atomic32_add(&a, 2, f) == 1 && gasnett_atomic32_subtract(&a, 3, f) == 0xFFFFFFFEu);
  CHECK(gasnett_atomic32_swap(&a, 1, f) == 0xFFFFFFFEu);
  CHECK(gasnett_atomic32_compare_and_swap(&a, 1, 0x80000000u, f) && gasnett_atomic32_read(&a, f) == 0x80000000u);
  CHECK(!gasnett_atomic32_compare_and_swap(&a, 1, 2, f) && gasnett_atomic32_read(&a, f) == 0x80000000u);
  gasnett_atomic32_set(&a, 1, f);
  CHECK(gasnett_atomic32_decrement_and_test(&a, f) && !gasnett_atomic32_decrement_and_test(&a, f));
  CHECK(gasnett_atomic32_read(&a, f) == 0xFFFFFFFFu);
}

static void check_atomic64(int f) {
  const uint64_t big = UINT64_C(0x100000000); /* 2^32 */
  gasnett_atomic64_t a = gasnett_atomic64_init(0xFFFFFFFFu);
  CHECK(sizeof a == 8);
  gasnett_atomic64_increment(&a, f); /* carries into bit 32: no 32-bit wrap */
  CHECK(gasnett_atomic64_read(&a, f) == big);
  gasnett_atomic64_decrement(&a, f);
  CHECK(gasnett_atomic64_read(&a, f) == 0xFFFFFFFFu);
  CHECK(gasnett_atomic64_add(&a, big, f) == big + 0xFFFFFFFFu);
  CHECK(gasnett_atomic64_subtract(&a, 0xFFFFFFFFu, f) == big);
  /* CAS above 2^32: values that agree in the low 32 bits must not compare equal. */
  CHECK(!gasnett_atomic64_compare_and_swap(&a, 2 * big, 7, f) && gasnett_atomic64_read(&a, f) == big);
  CHECK(!gasnett_atomic64_compare_and_swap(&a, 0, 7, f) && gasnett_atomic64_read(&a, f) == big);
  CHECK(gasnett_atomic64_compare_and_swap(&a, big, 3 * big + 5, f) && gasnett_atomic64_read(&a, f) == 3 * big + 5);
  CHECK(gasnett_atomic64_swap(&a, UINT64_MAX, f) == 3 * big + 5);
  gasnett_atomic64_increment(&a, f);
  CHECK(gasnett_atomic64_read(&a, f) == 0);
  CHECK(gasnett_atomic64_subtract(&a, 1, f) == UINT64_MAX && gasnett_atomic64_add(&a, 2, f) == 1);
  CHECK(gasnett_atomic64_decrement_and_test(&a, f) && gasnett_atomic64_read(&a, f) == 0);
  gasnett_atomic64_set(&a, big, f);
  CHECK(!gasnett_atomic64_decrement_and_test(&a, f) && gasnett_atomic64_read(&a, f) == 0xFFFFFFFFu);
}

/* The fixed-width strong atomics: the same operations, the same wrapping. */
static void check_strongatomic_fixed(int f) {
  gasnett_strongatomic32_t a = gasnett_strongatomic32_init(0xFFFFFFFFu);
  CHECK(sizeof a == 4);
  gasnett_strongatomic32_increment(&a, f);
  CHECK(gasnett_strongatomic32_read(&a, f) == 0);
  gasnett_strongatomic32_decrement(&a, f);
  CHECK(gasnett_strongatomic32_read(&a, f) == 0xFFFFFFFFu);
  CHECK(gasnett_strongatomic32_add(&a, 3, f) == 2 && gasnett_strongatomic32_subtract(&a, 1, f) == 1);
  CHECK(gasnett_strongatomic32_decrement_and_test(&a, f) && !gasnett_strongatomic32_decrement_and_test(&a, f));
  gasnett_strongatomic32_set(&a, 77, f);
  CHECK(gasnett_strongatomic32_swap(&a, 5, f) == 77);
  CHECK(!gasnett_strongatomic32_compare_and_swap(&a, 4, 9, f) && gasnett_strongatomic32_read(&a, f) == 5);
  CHECK(gasnett_strongatomic32_compare_and_swap(&a, 5, 9, f) && gasnett_strongatomic32_read(&a, f) == 9);
  const uint64_t big = UINT64_C(0x100000000);
  gasnett_strongatomic64_t b = gasnett_strongatomic64_init(0xFFFFFFFFu);
  CHECK(sizeof b == 8);
  gasnett_strongatomic64_increment(&b, f);
  CHECK(gasnett_strongatomic64_read(&b, f) == big);
  gasnett_strongatomic64_decrement(&b, f);
  CHECK(gasnett_strongatomic64_add(&b, big, f) == 2 * big - 1 && gasnett_strongatomic64_subtract(&b, big, f) == big - 1);
  gasnett_strongatomic64_set(&b, 1, f);
  CHECK(gasnett_strongatomic64_decrement_and_test(&b, f) && !gasnett_strongatomic64_decrement_and_test(&b, f));
  CHECK(gasnett_strongatomic64_read(&b, f) == UINT64_MAX && gasnett_strongatomic64_swap(&b, 3 * big, f) == UINT64_MAX);
  CHECK(!gasnett_strongatomic64_compare_and_swap(&b, 3, 1, f) && gasnett_strongatomic64_read(&b, f) == 3 * big);
  CHECK(gasnett_strongatomic64_compare_and_swap(&b, 3 * big, 1, f) && gasnett_strongatomic64_read(&b, f) == 1);
}

static void check_barriers(void) {
  /* Each must compile as a statement and run; their ordering is the hardware's to show. */
  gasnett_compiler_fence();
  gasnett_local_wmb();
  gasnett_local_rmb();
  gasnett_local_mb();
  gasnett_weak_wmb();
  gasnett_weak_rmb();
  gasnett_weak_mb();
  gasnett_spinloop_hint();
}

/* ---- Threads: counters, locks, condition variables, thread keys */

enum { kThreads = 4, kIters = 100000 };

static gasnett_atomic_t counter_atomic = gasnett_atomic_init(0);
static gasnett_atomic64_t counter_atomic64 = gasnett_atomic64_init(0);
static gasnett_mutex_t counter_mutex = GASNETT_MUTEX_INITIALIZER;
static uint64_t counter_mutexed;
static gasnett_spinlock_t counter_spin = GASNETT_SPINLOCK_INITIALIZER;
static uint64_t counter_spinned;
static gasnett_rwlock_t counter_rw = GASNETT_RWLOCK_INITIALIZER;
static uint64_t counter_rwlocked;
static gasnett_atomic_t started = gasnett_atomic_init(0);
static int key_slot[kThreads], key_c_slot[kThreads]; /* what each thread stores in the keys */
static int key_initially_null[kThreads], key_kept[kThreads];

static void *counting_thread(void *arg) {
  const int id = (int)(intptr_t)arg;
  /* Thread keys: NULL in a new thread without any init call. */
  key_initially_null[id] = gasnett_threadkey_get(gt_key_cxx) == NULL && gt_cxx_key_get() == NULL &&
                           gasnett_threadkey_get(gt_key_c) == NULL && gt_cxx_key_c_get() == NULL;
  gasnett_threadkey_set(gt_key_cxx, &key_slot[id]);
  gasnett_threadkey_init(gt_key_c);
  gasnett_threadkey_set_noinit(gt_key_c, &key_c_slot[id]);
  /* All threads start counting together, so that every lock and key below is contended. */
  gasnett_atomic_increment(&started, GASNETT_ATOMIC_REL);
  while (gasnett_atomic_read(&started, GASNETT_ATOMIC_ACQ) != kThreads)
    gasnett_spinloop_hint();
  for (int i = 0; i < kIters; ++i) {
    gasnett_atomic_increment(&counter_atomic, GASNETT_ATOMIC_NONE);
    gasnett_atomic64_add(&counter_atomic64, 3, GASNETT_ATOMIC_NONE);
    gasnett_mutex_lock(&counter_mutex);
    gasnett_mutex_assertlocked(&counter_mutex);
    ++counter_mutexed;
    gasnett_mutex_unlock(&counter_mutex);
    gasnett_spinlock_lock(&counter_spin);
    ++counter_spinned;
    gasnett_spinlock_unlock(&counter_spin);
    if (i % 16 == 0) {
      gasnett_rwlock_wrlock(&counter_rw);
      ++counter_rwlocked;
      gasnett_rwlock_unlock(&counter_rw);
    } else {
      gasnett_rwlock_rdlock(&counter_rw);
      const uint64_t seen = counter_rwlocked;
      gasnett_rwlock_unlock(&counter_rw);
      (void)seen;
    }
    if (i % 4096 == 0)
      (void)gasnett_sched_yield();
  }
  /* Each key still holds this thread's own value after the others set theirs, seen from C and C++. */
  key_kept[id] = gasnett_threadkey_get_noinit(gt_key_cxx) == &key_slot[id] && gt_cxx_key_get() == &key_slot[id] &&
                 gasnett_threadkey_get(gt_key_c) == &key_c_slot[id] && gt_cxx_key_c_get() == &key_c_slot[id];
  gasnett_set_affinity(id); /* only this thread is pinned, and it ends here */
  return NULL;
}

static void check_threads(void) {
  int main_value = -1;
  gasnett_threadkey_set(gt_key_cxx, &main_value);
  pthread_t threads[kThreads];
  for (int t = 0; t < kThreads; ++t)
    CHECK(pthread_create(&threads[t], NULL, counting_thread, (void *)(intptr_t)t) == 0);
  for (int t = 0; t < kThreads; ++t)
    CHECK(pthread_join(threads[t], NULL) == 0);
  CHECK(gasnett_atomic_read(&counter_atomic, 0) == (gasnett_atomic_val_t)kThreads * kIters);
  CHECK(gasnett_atomic64_read(&counter_atomic64, 0) == 3u * kThreads * kIters);
  CHECK(counter_mutexed == (uint64_t)kThreads * kIters);
  CHECK(counter_spinned == (uint64_t)kThreads * kIters);
  CHECK(counter_rwlocked == (uint64_t)kThreads * (kIters / 16 + (kIters % 16 != 0)));
  for (int t = 0; t < kThreads; ++t)
    CHECK(key_initially_null[t] && key_kept[t]);
  /* The main thread's value survived the workers', and a C++ write is seen from C. */
  CHECK(gasnett_threadkey_get(gt_key_cxx) == &main_value && gt_cxx_key_get() == &main_value);
  CHECK(gasnett_threadkey_get(gt_key_c) == NULL);
  gt_cxx_key_set(NULL);
  CHECK(gasnett_threadkey_get(gt_key_cxx) == NULL);
}

/* Locks held by another thread: trylock must say EBUSY, not block. */
static gasnett_mutex_t held_mutex;
static gasnett_spinlock_t held_spin;
static gasnett_rwlock_t held_rw;
static void *try_from_other_thread(void *arg) {
  int *results = (int *)arg;
  if ((results[0] = gasnett_mutex_trylock(&held_mutex)) == 0)
    gasnett_mutex_unlock(&held_mutex);
  if ((results[1] = gasnett_spinlock_trylock(&held_spin)) == 0)
    gasnett_spinlock_unlock(&held_spin);
  if ((results[2] = gasnett_rwlock_tryrdlock(&held_rw)) == 0)
    gasnett_rwlock_unlock(&held_rw);
  if ((results[3] = gasnett_rwlock_trywrlock(&held_rw)) == 0)
    gasnett_rwlock_unlock(&held_rw);
  return NULL;
}

static void check_trylocks(void) {
  gasnett_mutex_init(&held_mutex);
  CHECK(gasnett_spinlock_init(&held_spin) == 0);
  gasnett_rwlock_init(&held_rw);
  /* Spinlock: 0 when free, EBUSY while held (also by the holder), 0 again after unlock. */
  CHECK(gasnett_spinlock_trylock(&held_spin) == 0);
  CHECK(gasnett_spinlock_trylock(&held_spin) == EBUSY);
  CHECK(gasnett_spinlock_unlock(&held_spin) == 0);
  CHECK(gasnett_spinlock_trylock(&held_spin) == 0);
  CHECK(gasnett_spinlock_unlock(&held_spin) == 0);
  /* Held here: the other thread gets EBUSY from each trylock, but may share the read lock. */
  CHECK(gasnett_spinlock_lock(&held_spin) == 0);
  CHECK(gasnett_mutex_trylock(&held_mutex) == 0);
  gasnett_rwlock_rdlock(&held_rw);
  int results[4] = {-1, -1, -1, -1};
  pthread_t other;
  CHECK(pthread_create(&other, NULL, try_from_other_thread, results) == 0);
  CHECK(pthread_join(other, NULL) == 0);
  CHECK(results[0] == EBUSY && results[1] == EBUSY && results[2] == 0 && results[3] == EBUSY);
  gasnett_rwlock_unlock(&held_rw);
  gasnett_mutex_unlock(&held_mutex);
  gasnett_mutex_assertunlocked(&held_mutex);
  CHECK(gasnett_spinlock_unlock(&held_spin) == 0);
  /* Released: every trylock succeeds. */
  CHECK(pthread_create(&other, NULL, try_from_other_thread, results) == 0);
  CHECK(pthread_join(other, NULL) == 0);
  CHECK(results[0] == 0 && results[1] == 0 && results[2] == 0 && results[3] == 0);
  gasnett_rwlock_destroy(&held_rw);
  CHECK(gasnett_spinlock_destroy(&held_spin) == 0);
  gasnett_mutex_destroy(&held_mutex);
  gasnett_mutex_t scratch = GASNETT_MUTEX_INITIALIZER;
  CHECK(gasnett_mutex_destroy_ignoreerr(&scratch) == 0);
}

/* Condition handshake: main -> worker (signal), worker -> main (broadcast). */
static gasnett_mutex_t hs_lock = GASNETT_MUTEX_INITIALIZER;
static gasnett_cond_t hs_cond = GASNETT_COND_INITIALIZER;
static int hs_stage;
static void *handshake_thread(void *arg) {
  (void)arg;
  gasnett_mutex_lock(&hs_lock);
  while (hs_stage != 1)
    gasnett_cond_wait(&hs_cond, &hs_lock);
  hs_stage = 2;
  gasnett_cond_broadcast(&hs_cond);
  gasnett_mutex_unlock(&hs_lock);
  return NULL;
}

static void check_condition(void) {
  gasnett_cond_t scratch;
  gasnett_cond_init(&scratch);
  gasnett_cond_signal(&scratch); /* no waiter: a no-op */
  gasnett_cond_destroy(&scratch);
  pthread_t worker;
  CHECK(pthread_create(&worker, NULL, handshake_thread, NULL) == 0);
  gasnett_mutex_lock(&hs_lock);
  hs_stage = 1;
  gasnett_cond_signal(&hs_cond);
  while (hs_stage != 2)
    gasnett_cond_wait(&hs_cond, &hs_lock);
  gasnett_mutex_unlock(&hs_lock);
  CHECK(pthread_join(worker, NULL) == 0);
  CHECK(hs_stage == 2);
}

/* ---- Environment */

/* Runs fn in a child process and checks that it died with SIGABRT after printing `expect` to stderr. */
static void check_fatal(void (*fn)(void), const char *expect) {
  int pipefd[2];
  CHECK(pipe(pipefd) == 0);
  gasnett_flush_streams();
  const pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    close(pipefd[0]);
    dup2(pipefd[1], 2);
    signal(SIGABRT, SIG_DFL);
    fn();
    _exit(0); /* fn returned: the parent sees exit code 0, a failure */
  }
  close(pipefd[1]);
  char text[4096];
  size_t got = 0;
  ssize_t n;
  while ((n = read(pipefd[0], text + got, sizeof text - 1 - got)) > 0)
    got += (size_t)n;
  text[got] = '\0';
  close(pipefd[0]);
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid);
  if (!(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT && strstr(text, expect)))
    fprintf(stderr, "child status %d, stderr: %s\n", status, text);
  CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
  CHECK(strstr(text, expect) != NULL);
}

static void fatal_direct(void) { gasnett_fatalerror("boom %d %s", 42, "now"); }
static void fatal_yesno(void) { (void)gasnett_getenv_yesno_withdefault("GT_BAD_YESNO", 0); }
static void fatal_int(void) { (void)gasnett_getenv_int_withdefault("GT_BAD_INT", 0, 0); }
static void fatal_memsize(void) { (void)gasnett_getenv_int_withdefault("GT_BAD_MEM", 0, 1); }

static int64_t env_int(const char *value, uint64_t mem_size_multiplier) {
  CHECK(setenv("GT_INT", value, 1) == 0);
  return gasnett_getenv_int_withdefault("GT_INT", -999, mem_size_multiplier);
}

static void check_environment(void) {
  CHECK(unsetenv("GT_UNSET") == 0);
  CHECK(gasnett_getenv("GT_UNSET") == NULL);
  const char *dflt = "fallback";
  CHECK(gasnett_getenv_withdefault("GT_UNSET", dflt) == dflt);
  CHECK(setenv("GT_STR", "value", 1) == 0);
  CHECK(strcmp(gasnett_getenv("GT_STR"), "value") == 0);
  CHECK(strcmp(gasnett_getenv_withdefault("GT_STR", dflt), "value") == 0);
  /* yes/no */
  static const char *const yes[] = {"yes", "YES", "Yes", "y", "Y", "1"};
  static const char *const no[] = {"no", "NO", "nO", "n", "N", "0"};
  for (size_t i = 0; i < sizeof yes / sizeof yes[0]; ++i) {
    CHECK(setenv("GT_YN", yes[i], 1) == 0);
    CHECK(gasnett_getenv_yesno_withdefault("GT_YN", 0) == 1);
    CHECK(setenv("GT_YN", no[i], 1) == 0);
    CHECK(gasnett_getenv_yesno_withdefault("GT_YN", 1) == 0);
  }
  CHECK(gasnett_getenv_yesno_withdefault("GT_UNSET", 1) == 1 && gasnett_getenv_yesno_withdefault("GT_UNSET", 0) == 0);
  /* integers and memory sizes */
  CHECK(gasnett_getenv_int_withdefault("GT_UNSET", 77, 0) == 77);
  CHECK(gasnett_getenv_int_withdefault("GT_UNSET", -5, 1) == -5);
  CHECK(env_int("123", 0) == 123 && env_int("-42", 0) == -42 && env_int("0x10", 0) == 16);
  CHECK(env_int(" 9223372036854775807 ", 0) == INT64_MAX && env_int("010", 0) == 10);
  CHECK(env_int("7", 1) == 7 && env_int("7", 1024) == 7 * 1024);
  CHECK(env_int("4K", 1) == 4096 && env_int("4k", 1) == 4096 && env_int("4KB", 1) == 4096);
  CHECK(env_int("3M", 1) == 3 * 1024 * 1024 && env_int("3mb", 1) == 3 * 1024 * 1024);
  CHECK(env_int("2G", 1) == INT64_C(2) * 1024 * 1024 * 1024 && env_int("1T", 1) == INT64_C(1) << 40);
  CHECK(env_int("1.5K", 1) == 1536 && env_int("64B", 1024) == 64 && env_int("0.5M", 1) == 512 * 1024);
  CHECK(setenv("GT_BAD_YESNO", "maybe", 1) == 0 && setenv("GT_BAD_INT", "12abc", 1) == 0);
  CHECK(setenv("GT_BAD_MEM", "4Q", 1) == 0);
  check_fatal(fatal_direct, "*** FATAL ERROR: boom 42 now");
  check_fatal(fatal_yesno, "*** FATAL ERROR: environment variable GT_BAD_YESNO");
  check_fatal(fatal_int, "*** FATAL ERROR: environment variable GT_BAD_INT");
  check_fatal(fatal_memsize, "*** FATAL ERROR: environment variable GT_BAD_MEM");
  CHECK(setenv("GT_BAD_INT", "4K", 1) == 0); /* a suffix only where memory sizes are asked for */
  check_fatal(fatal_int, "GT_BAD_INT='4K'");
}

/* ---- System utilities */

/* Zero bytes of v counted one byte at a time. */
static int naive_count0s(const void *v, size_t n) {
  int zeros = 0;
  for (size_t i = 0; i < n; ++i)
    zeros += ((const unsigned char *)v)[i] == 0;
  return zeros;
}

static void check_count0s(void) {
  /* Values with every byte pattern that trips word tricks: 0x00, 0x01, 0x7F, 0x80, 0xFF. */
  static const unsigned char kBytes[] = {0x00, 0x01, 0x7F, 0x80, 0xFF};
  for (unsigned code = 0; code < 5 * 5 * 5 * 5; ++code) {
    uint32_t x32 = 0;
    unsigned c = code;
    for (int b = 0; b < 4; ++b, c /= 5)
      x32 |= (uint32_t)kBytes[c % 5] << (8 * b);
    CHECK(gasnett_count0s_uint32_t(x32) == naive_count0s(&x32, 4));
    const uint64_t x64 = ((uint64_t)x32 << 32) | (x32 ^ 0x00FF00FFu);
    CHECK(gasnett_count0s_uint64_t(x64) == naive_count0s(&x64, 8));
    const uintptr_t xp = (uintptr_t)x64;
    CHECK(gasnett_count0s_uintptr_t(xp) == naive_count0s(&xp, sizeof xp));
  }
  CHECK(gasnett_count0s_uint32_t(0) == 4 && gasnett_count0s_uint64_t(0) == 8);
  CHECK(gasnett_count0s_uintptr_t(0) == (int)sizeof(uintptr_t) && gasnett_count0s_uint32_t(UINT32_MAX) == 0);
  for (int i = 0; i < 64; ++i) {
    CHECK(gasnett_count0s_uint64_t(UINT64_C(1) << i) == 7);
    if (i < 32)
      CHECK(gasnett_count0s_uint32_t(UINT32_C(1) << i) == 3);
  }
  /* Blocks at every alignment and length, against the byte count; the copy touches only dst. */
  unsigned char srcbuf[96], dstbuf[96 + 16];
  for (size_t i = 0; i < sizeof srcbuf; ++i)
    srcbuf[i] = (i % 3 == 0 || i % 7 == 0) ? 0 : (unsigned char)(i | 1);
  for (size_t so = 0; so < 8; ++so)
    for (size_t dof = 0; dof < 8; ++dof)
      for (size_t n = 0; n + so <= 80; ++n) {
        memset(dstbuf, 0xEE, sizeof dstbuf);
        unsigned char *dst = dstbuf + 8 + dof;
        const size_t want = (size_t)naive_count0s(srcbuf + so, n);
        CHECK(gasnett_count0s(srcbuf + so, n) == want);
        CHECK(gasnett_count0s_copy(dst, srcbuf + so, n) == want && memcmp(dst, srcbuf + so, n) == 0);
        CHECK(dst[-1] == 0xEE && dst[n] == 0xEE);
      }
}

static void check_system(void) {
  CHECK(gasnett_cpu_count() >= 1);
  const char *host = gasnett_gethostname();
  CHECK(host != NULL && host[0] != '\0');
  char expect[256] = {0};
  CHECK(gethostname(expect, sizeof expect - 1) == 0);
  CHECK(strcmp(host, expect) == 0 && gasnett_gethostname() == host);
  CHECK(gasnett_getpid() == (int)getpid());
  CHECK(gasnett_sched_yield() == 0);
  gasnett_flush_streams();
  /* The backtrace goes to a pipe and must name at least one frame. */
  int pipefd[2];
  CHECK(pipe(pipefd) == 0);
  CHECK(gasnett_print_backtrace(pipefd[1]) == 0);
  close(pipefd[1]);
  char text[256];
  CHECK(read(pipefd[0], text, sizeof text) > 0);
  close(pipefd[0]);
  /* count0s */
  const unsigned char src[8] = {0, 1, 0, 2, 3, 0, 0, 4};
  unsigned char dst[8] = {9, 9, 9, 9, 9, 9, 9, 9};
  CHECK(gasnett_count0s(src, sizeof src) == 4 && gasnett_count0s(src, 0) == 0);
  CHECK(gasnett_count0s_copy(dst, src, sizeof src) == 4 && memcmp(dst, src, sizeof src) == 0);
  check_count0s();
  /* Physical memory: what sysconf reports, and plausible. */
  const uint64_t mem = gasnett_getPhysMemSz(1);
  CHECK(mem == (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE));
  CHECK(mem >= (UINT64_C(1) << 24) && mem < (UINT64_C(1) << 50) && gasnett_getPhysMemSz(0) == mem);
  /* Wall-clock microseconds: between two time() readings. */
  const time_t before = time(NULL);
  const uint64_t now_us = gasnett_gettimeofday_us();
  const time_t after = time(NULL);
  CHECK(now_us / 1000000u >= (uint64_t)before && now_us / 1000000u <= (uint64_t)after);
  CHECK(gasnett_gettimeofday_us() >= now_us);
}

/* ---- Tracing and statistics: statements that never evaluate their arguments */

static int evaluations;
static int count_evaluation(void) { return ++evaluations; }

static void check_tracing(void) {
  const char *file = "x";
  unsigned line = 7;
  int only_traced = 5; /* used only inside a tracing macro: no unused-variable warning */
  GASNETT_TRACE_PRINTF("traced %d %d", count_evaluation(), only_traced);
  GASNETT_TRACE_PRINTF("plain");
  GASNETT_TRACE_PRINTF_FORCE("forced %d", ++evaluations);
  GASNETT_STATS_PRINTF("stats %d", count_evaluation());
  GASNETT_TRACE_SETMASK(count_evaluation() ? "ABC" : "");
  GASNETT_STATS_SETMASK(count_evaluation() ? "ABC" : "");
  GASNETT_TRACE_SET_TRACELOCAL(count_evaluation());
  GASNETT_STATS_INIT(count_evaluation);
  GASNETT_STATS_DUMP(count_evaluation());
  GASNETT_TRACE_SETSOURCELINE(count_evaluation() ? "f.c" : "", count_evaluation());
  GASNETT_TRACE_FREEZESOURCELINE();
  GASNETT_TRACE_UNFREEZESOURCELINE();
  GASNETT_TRACE_GETSOURCELINE(&file, &line);
  CHECK(file == NULL && line == 0);
  CHECK(strcmp(GASNETT_TRACE_GETMASK(), "") == 0 && strcmp(GASNETT_STATS_GETMASK(), "") == 0);
  CHECK(GASNETT_TRACE_GET_TRACELOCAL() == 0);
  if (evaluations == 0) /* usable as the body of an if */
    GASNETT_TRACE_PRINTF("x");
  else
    GASNETT_STATS_PRINTF("y");
  CHECK(evaluations == 0);
}

int main(void) {
  check_annotations();
  check_config();
  check_timers();
  for (size_t i = 0; i < NFLAGS; ++i) {
    check_atomic_default(kFlags[i]);
    check_atomic32(kFlags[i]);
    check_atomic64(kFlags[i]);
    check_strongatomic_fixed(kFlags[i]);
  }
  check_barriers();
  check_threads();
  check_trylocks();
  check_condition();
  check_environment();
  check_system();
  check_tracing();
  gt_lib_checks();
  const int cxx_line = gt_cxx_checks();
  if (cxx_line != 0) {
    fprintf(stderr, "gasnet_tools: FAILED test_gasnet_tools_cxx.cpp:%d\n", cxx_line);
    return 1;
  }
  printf("gasnet_tools: OK\n");
  return 0;
}
