/* gasnet_tools.h: GASNet 1.x's portable tools API (GASNet's README-tools, "the tools spec",
 * version 1.9): timers, memory barriers, atomics, spinlocks, pthread wrappers, thread-specific
 * data, environment queries, backtraces and system utilities. Written here from the documented
 * behaviour; it does not include gasnet.h. The small and hot tools are inline here; the rest
 * (environment, backtraces, signals, checksums, rlimits: the gasnett_* functions declared extern
 * below) live in libhygaspi, so a tools client links -lhygaspi (pkg-config hygaspi, or GASNET_LIBS).
 *
 * Only names with the gasnett_ / GASNETT_ prefix are API; names ending in '_' are internal. A few
 * more names exist because GASNet's own test harness uses them: GASNETT_BEGIN_EXTERNC,
 * GASNETT_END_EXTERNC, GASNETT_EXTERNC, _STRINGIFY, _CONCAT, GASNETI_UNUSED, if_pf, if_pt.
 * As the spec says, include this header before any system header. A strict C (-std=c11) client
 * that includes a libc header first hides POSIX from glibc and gets an #error below; such a
 * client compiles with -D_POSIX_C_SOURCE=200809L (or -D_GNU_SOURCE) instead.
 *
 * Differences from GASNet, all allowed by the spec: the mutex, condition and atomic wrappers are
 * real (locking, atomic) even without GASNETT_THREAD_SAFE, as with GASNETT_USE_TRUE_MUTEXES=1;
 * tracing and statistics are compiled out; gasnett_set_affinity pins only where the C library
 * exposes CPU sets (_GNU_SOURCE, always the case in C++). */
#ifndef GASNET_TOOLS_H
#define GASNET_TOOLS_H

/* Strict ISO C hides POSIX; ask for it while no libc header has been read yet. */
#if !defined(__cplusplus) && defined(__STRICT_ANSI__) && !defined(_POSIX_C_SOURCE) && !defined(_XOPEN_SOURCE) &&       \
    !defined(_GNU_SOURCE) && !defined(_DEFAULT_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <gasnet_portable_platform.h>

#if !defined(CLOCK_MONOTONIC) || !defined(PTHREAD_RWLOCK_INITIALIZER)
#error "gasnet_tools.h needs POSIX.1-2008: include it before any system header, or build with -D_POSIX_C_SOURCE=200809L"
#endif

/* Brackets declarations that need C linkage in C++ (empty in C); GASNETT_EXTERNC prefixes one. */
#ifdef __cplusplus
#define GASNETT_BEGIN_EXTERNC extern "C" {
#define GASNETT_END_EXTERNC }
#define GASNETT_EXTERNC extern "C"
#else
#define GASNETT_BEGIN_EXTERNC
#define GASNETT_END_EXTERNC
#define GASNETT_EXTERNC extern
#endif
/* The text of a macro argument after expansion (_STRINGIFY(__LINE__) is "42"), and the token made of
 * two expanded arguments. GASNet's headers provide both, and its test harness relies on them. */
#ifndef _STRINGIFY
#define _STRINGIFY_HELPER(x) #x
#define _STRINGIFY(x) _STRINGIFY_HELPER(x)
#endif
#ifndef _CONCAT
#define _CONCAT_HELPER(a, b) a##b
#define _CONCAT(a, b) _CONCAT_HELPER(a, b)
#endif

GASNETT_BEGIN_EXTERNC

/* ---- Versions and configuration ------------------------------------------------------------ */

/* The tools specification this header implements (README-tools of GASNet 1.28.2: version 1.9). */
#define GASNETT_SPEC_VERSION_MAJOR 1
#define GASNETT_SPEC_VERSION_MINOR 9
/* The GASNet-1 release whose tools API this header mirrors (GASNet 1.28.2's gasnet_tools.h). */
#define GASNETT_RELEASE_VERSION_MAJOR 1
#define GASNETT_RELEASE_VERSION_MINOR 28
#define GASNETT_RELEASE_VERSION_PATCH 2

/* 1 when the client asked for thread safety: GASNETT_THREAD_SAFE, _REENTRANT (-pthread), or
 * gasnet.h's GASNET_PAR / GASNET_PARSYNC. Left undefined otherwise (test it with #if or #ifdef). */
#if defined(GASNETT_THREAD_SAFE) || defined(_REENTRANT) || defined(GASNET_PAR) || defined(GASNET_PARSYNC)
#undef GASNETT_THREAD_SAFE
#define GASNETT_THREAD_SAFE 1
#define GASNETT_THREAD_MODEL_STR_ "PAR"
#else
#define GASNETT_THREAD_MODEL_STR_ "SEQ"
#endif

/* Human-readable target tuple (informational). */
#if defined(__x86_64__)
#define GASNETT_ARCH_STR_ "x86_64"
#elif defined(__aarch64__)
#define GASNETT_ARCH_STR_ "aarch64"
#elif defined(__powerpc64__)
#define GASNETT_ARCH_STR_ "powerpc64"
#elif defined(__i386__)
#define GASNETT_ARCH_STR_ "i386"
#else
#define GASNETT_ARCH_STR_ "unknown"
#endif
#define GASNETT_SYSTEM_TUPLE GASNETT_ARCH_STR_ "-unknown-linux-gnu"

/* Name of the timer implementation (POSIX CLOCK_MONOTONIC, nanosecond ticks). */
#define GASNETT_TIMER_CONFIG "timers_posix_monotonic"

/* Configuration string, as embedded by GASNet for version checks. */
#if defined(__SIZEOF_POINTER__) && __SIZEOF_POINTER__ == 4
#define GASNETT_PTR_STR_ "32bit"
#else
#define GASNETT_PTR_STR_ "64bit"
#endif
#define GASNETT_CONFIG_STRING                                                                                          \
  "RELEASE=1.28.2,SPEC=hygaspi-tools,PTR=" GASNETT_PTR_STR_ ",nodebug,notrace,nostats,tools" GASNETT_THREAD_MODEL_STR_ \
  "," GASNETT_TIMER_CONFIG ",membars_compiler,atomics_compiler"

/* Estimated cache line shared between CPUs (bytes); conservative where lines are long. */
#if defined(__x86_64__) || defined(__i386__)
#define GASNETT_CACHE_LINE_BYTES 64
#else
#define GASNETT_CACHE_LINE_BYTES 128
#endif
/* Virtual memory page size (bytes) and its log2. */
#define GASNETT_PAGESIZE 4096
#define GASNETT_PAGESHIFT 12
/* Most threads per process a GASNet client is expected to use (GASNet's configure default). */
#ifndef GASNETT_MAX_THREADS
#define GASNETT_MAX_THREADS 256
#endif

/* ---- Compiler annotations ------------------------------------------------------------------ */

/* Each annotation is a GCC attribute (GCC and Clang accept them all). As the spec's "feature
 * control" allows, a client that defines GASNETT_USE_GCC_ATTRIBUTE_<KIND> to 0 before including
 * this header gets the safe, unannotated form of that kind instead. */
#if !defined(GASNETT_USE_GCC_ATTRIBUTE_ALWAYSINLINE) || GASNETT_USE_GCC_ATTRIBUTE_ALWAYSINLINE
#define GASNETT_ALWAYSINLINE_ __attribute__((__always_inline__))
#else
#define GASNETT_ALWAYSINLINE_
#endif
#if !defined(GASNETT_USE_GCC_ATTRIBUTE_NOINLINE) || GASNETT_USE_GCC_ATTRIBUTE_NOINLINE
#define GASNETT_NOINLINE_ __attribute__((__noinline__))
#else
#define GASNETT_NOINLINE_
#endif
#if !defined(GASNETT_USE_GCC_ATTRIBUTE_USED) || GASNETT_USE_GCC_ATTRIBUTE_USED
#define GASNETT_USED __attribute__((__used__))
#else
#define GASNETT_USED
#endif

/* Forceful inlining: GASNETT_INLINE(fn) int fn(int x) { ... } (errors where inlining is impossible). */
#define GASNETT_INLINE(fnname) static inline GASNETT_ALWAYSINLINE_
/* Inline if possible: GASNETT_PLEASE_INLINE(fn) int fn(int x) { ... }. A client may supply its own
 * expansion as GASNETT_USE_PLEASE_INLINE(fnname). */
#ifdef GASNETT_USE_PLEASE_INLINE
#define GASNETT_PLEASE_INLINE(fnname) GASNETT_USE_PLEASE_INLINE(fnname)
#else
#define GASNETT_PLEASE_INLINE(fnname) static inline
#endif
/* Never inline: GASNETT_NEVER_INLINE(fn, static int fn(int x)) { ... }. */
#define GASNETT_NEVER_INLINE(fnname, declarator) GASNETT_NOINLINE_ declarator

/* C99 restrict, also in C++ (GCC's __restrict__), or the client's GASNETT_USE_RESTRICT. The header
 * itself never qualifies typedef'd arguments, so GASNETT_USE_RESTRICT_ON_TYPEDEFS changes nothing. */
#ifdef GASNETT_USE_RESTRICT
#define GASNETT_RESTRICT GASNETT_USE_RESTRICT
#else
#define GASNETT_RESTRICT __restrict__
#endif

/* printf-like function: GASNETT_FORMAT_PRINTF(fn, fmtarg, firstvararg, static void fn(const char *f, ...))
 * followed by ';' or the body; fmtarg and firstvararg count arguments from 1. The _FUNCPTR form
 * annotates a declared pointer to such a function: GASNETT_FORMAT_PRINTF_FUNCPTR(p, 1, 2, void (*p)(const char *,
 * ...)). */
#if !defined(GASNETT_USE_GCC_ATTRIBUTE_FORMAT) || GASNETT_USE_GCC_ATTRIBUTE_FORMAT
#define GASNETT_FORMAT_PRINTF(fnname, fmtarg, firstvararg, declarator)                                                 \
  __attribute__((__format__(__printf__, fmtarg, firstvararg))) declarator
#else
#define GASNETT_FORMAT_PRINTF(fnname, fmtarg, firstvararg, declarator) declarator
#endif
#if !defined(GASNETT_USE_GCC_ATTRIBUTE_FORMAT_FUNCPTR) || GASNETT_USE_GCC_ATTRIBUTE_FORMAT_FUNCPTR
#define GASNETT_FORMAT_PRINTF_FUNCPTR(fnname, fmtarg, firstvararg, declarator)                                         \
  declarator __attribute__((__format__(__printf__, fmtarg, firstvararg)))
#else
#define GASNETT_FORMAT_PRINTF_FUNCPTR(fnname, fmtarg, firstvararg, declarator) declarator
#endif

/* The function never returns; GASNETT_NORETURN goes before or after the declarator. The P forms
 * (GASNETT_NORETURNP(fn), GASNETT_MALLOCP(fn), GASNETT_PUREP(fn), GASNETT_CONSTP(fn)) are for
 * compilers that annotate with a pragma after the declaration; with attributes they are empty. */
#if !defined(GASNETT_USE_GCC_ATTRIBUTE_NORETURN) || GASNETT_USE_GCC_ATTRIBUTE_NORETURN
#define GASNETT_NORETURN __attribute__((__noreturn__))
#else
#define GASNETT_NORETURN
#endif
#define GASNETT_NORETURNP(fnname)
/* Returns new memory that aliases nothing else (as malloc). */
#if !defined(GASNETT_USE_GCC_ATTRIBUTE_MALLOC) || GASNETT_USE_GCC_ATTRIBUTE_MALLOC
#define GASNETT_MALLOC __attribute__((__malloc__))
#else
#define GASNETT_MALLOC
#endif
#define GASNETT_MALLOCP(fnname)
/* Pure: no effect but the result, which depends only on the arguments and global memory. */
#if !defined(GASNETT_USE_GCC_ATTRIBUTE_PURE) || GASNETT_USE_GCC_ATTRIBUTE_PURE
#define GASNETT_PURE __attribute__((__pure__))
#else
#define GASNETT_PURE
#endif
#define GASNETT_PUREP(fnname)
/* Const: pure, and the result depends on the argument values only (no memory is read). */
#if !defined(GASNETT_USE_GCC_ATTRIBUTE_CONST) || GASNETT_USE_GCC_ATTRIBUTE_CONST
#define GASNETT_CONST __attribute__((__const__))
#else
#define GASNETT_CONST
#endif
#define GASNETT_CONSTP(fnname)
/* Called often / seldom. */
#define GASNETT_HOT __attribute__((__hot__))
#define GASNETT_COLD __attribute__((__cold__))
/* Calls warn: the function is to be removed. */
#if !defined(GASNETT_USE_GCC_ATTRIBUTE_DEPRECATED) || GASNETT_USE_GCC_ATTRIBUTE_DEPRECATED
#define GASNETT_DEPRECATED __attribute__((__deprecated__))
#else
#define GASNETT_DEPRECATED
#endif
/* Calls that ignore the result warn. */
#if !defined(GASNETT_USE_GCC_ATTRIBUTE_WARNUNUSEDRESULT) || GASNETT_USE_GCC_ATTRIBUTE_WARNUNUSEDRESULT
#define GASNETT_WARN_UNUSED_RESULT __attribute__((__warn_unused_result__))
#else
#define GASNETT_WARN_UNUSED_RESULT
#endif
/* The declared entity may be unused (GASNETI_UNUSED: the spelling GASNet's test harness uses). */
#if !defined(GASNETT_USE_GCC_ATTRIBUTE_UNUSED) || GASNETT_USE_GCC_ATTRIBUTE_UNUSED
#define GASNETT_UNUSED __attribute__((__unused__))
#else
#define GASNETT_UNUSED
#endif
#ifndef GASNETI_UNUSED
#define GASNETI_UNUSED GASNETT_UNUSED
#endif

/* Branch hints: the truth value (0 or 1) of e, expected true / false. */
#define GASNETT_PREDICT_TRUE(e) __builtin_expect(!!(e), 1)
#define GASNETT_PREDICT_FALSE(e) __builtin_expect(!!(e), 0)
/* Short spellings of the branch hints. */
#define GASNETT_LIKELY(e) GASNETT_PREDICT_TRUE(e)
#define GASNETT_UNLIKELY(e) GASNETT_PREDICT_FALSE(e)
/* `if` with a hint: if_pf(c) S; expects c false, if_pt(c) S; expects it true (the spec's text pairs
 * them the other way round by mistake; its names say "predict false" and "predict true"). */
#ifndef if_pf
#define if_pf(cond) if (GASNETT_PREDICT_FALSE(cond))
#endif
#ifndef if_pt
#define if_pt(cond) if (GASNETT_PREDICT_TRUE(cond))
#endif
/* 1 when expr is a compile-time constant the compiler can see, else 0 (__builtin_constant_p). */
#define gasnett_constant_p(expr) __builtin_constant_p(expr)

/* The enclosing function's name (const char *). */
#define GASNETT_CURRENT_FUNCTION __func__
/* Embeds identText (ideally "$Name: text $", for ident(1)) in the binary; use at global scope. */
#define GASNETT_IDENT(identName, identText)                                                                            \
  extern const char identName[];                                                                                       \
  GASNETT_USED const char identName[] = identText

/* The out-of-line tools (libhygaspi) are exported although the library builds with hidden
 * visibility. */
#pragma GCC visibility push(default)

/* ---- Errors, streams, backtraces, debugger ------------------------------------------------- */

/* Flushes stdout and stderr, ignoring errors. */
static inline void gasnett_flush_streams(void) {
  (void)fflush(stdout);
  (void)fflush(stderr);
}
/* Closes stdin, stdout and stderr (after flushing), ignoring errors: for the end of a program. */
static inline void gasnett_close_streams(void) {
  gasnett_flush_streams();
  (void)fclose(stdin);
  (void)fclose(stdout);
  (void)fclose(stderr);
}

/* Prints "*** FATAL ERROR: <printf-formatted msg>" to stderr, then freezes for a debugger if
 * GASNET_FREEZE_ON_ERROR is set, prints a backtrace if GASNET_BACKTRACE is set (through
 * gasnett_print_backtrace_ifenabled), and abort()s. */
GASNETT_NORETURN GASNETT_FORMAT_PRINTF(gasnett_fatalerror, 1, 2, void gasnett_fatalerror(const char *msg, ...));

/* A backtrace mechanism: its name (as GASNET_BACKTRACE_TYPE lists it), a function that writes the
 * calling thread's backtrace to fd and returns 0 (nonzero: it failed, try the next mechanism), and
 * whether it works in a multi-threaded program. */
typedef struct {
  const char *name;
  int (*fnp)(int fd);
  int threadsupport;
} gasnett_backtrace_type_t;
/* A client may define this (non-static, at global scope) to add its own mechanism, named by
 * .name, ahead of the built-in EXECINFO (glibc backtrace()) in the default GASNET_BACKTRACE_TYPE
 * list. The library refers to it weakly: a program that does not define it still links. */
extern gasnett_backtrace_type_t gasnett_backtrace_user;
/* Call early, with argv[0], in programs that want backtraces; reads the settings. Optional here:
 * the backtrace functions initialize themselves on first use. */
void gasnett_backtrace_init(const char *exename);
/* Writes this thread's backtrace to fd now, trying the mechanisms of GASNET_BACKTRACE_TYPE (a
 * comma-separated list, default "<user>,EXECINFO") in order; 0 once one succeeds, else nonzero. */
int gasnett_print_backtrace(int fd);
/* Called on every fatal error: prints a backtrace to fd iff GASNET_BACKTRACE is yes, and returns
 * 0 when it printed one. A client may point it at its own function (e.g. one that demangles). */
extern int (*gasnett_print_backtrace_ifenabled)(int fd);

/* Freezes the calling process until *flag becomes 0 (set by a debugger: the message names
 * flagsymname) or the process gets SIGCONT; sets *flag to 1 first. */
void gasnett_freezeForDebuggerNow(volatile int *flag, const char *flagsymname);
/* gasnett_freezeForDebuggerNow iff GASNET_FREEZE_ON_ERROR is yes (fatal errors call it). */
void gasnett_freezeForDebuggerErr(void);

/* A malloc'ed "function at file:line" naming where it is written, for error messages (free it). */
#define gasnett_current_loc gasnett_current_loc_(__FILE__, __LINE__, GASNETT_CURRENT_FUNCTION)
GASNETT_MALLOC char *gasnett_current_loc_(const char *file, int line, const char *function);

/* Ends the calling process and all its threads at once with exitcode, running no atexit handler
 * and flushing no stdio buffer (_exit). */
GASNETT_NORETURN void gasnett_killmyprocess(int exitcode);

/* A signal handler; gasnett_reghandler installs fp (or SIG_DFL / SIG_IGN) for sigtocatch and returns
 * the previous handler (SIG_ERR, with errno, if sigtocatch cannot be caught). */
typedef void (*gasnett_sighandlerfn_t)(int);
gasnett_sighandlerfn_t gasnett_reghandler(int sigtocatch, gasnett_sighandlerfn_t fp);

/* ---- Memory barriers ----------------------------------------------------------------------- */

/* The barriers are C11 fences. GCC's -fsanitize=thread warns that it does not model fences
 * (-Wtsan); TSan builds pass -Wno-tsan, as HyGASPI's own does. */
/* Compiler-only barrier: no memory reference moves across it. */
#define gasnett_compiler_fence() __atomic_signal_fence(__ATOMIC_SEQ_CST)
/* Orders this thread's earlier stores before its later ones (and is a compiler fence). */
#define gasnett_local_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
/* Orders this thread's earlier loads before its later ones (and is a compiler fence). */
#define gasnett_local_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
/* Full barrier: every earlier load and store completes before any later one. */
#define gasnett_local_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
/* The gasnett_local_* barriers in thread-safe builds, compiler fences otherwise. */
#ifdef GASNETT_THREAD_SAFE
#define gasnett_weak_wmb() gasnett_local_wmb()
#define gasnett_weak_rmb() gasnett_local_rmb()
#define gasnett_weak_mb() gasnett_local_mb()
#else
#define gasnett_weak_wmb() gasnett_compiler_fence()
#define gasnett_weak_rmb() gasnett_compiler_fence()
#define gasnett_weak_mb() gasnett_compiler_fence()
#endif
/* Relaxes the CPU inside a spin loop. */
#if defined(__x86_64__) || defined(__i386__)
#define gasnett_spinloop_hint() __builtin_ia32_pause()
#else
#define gasnett_spinloop_hint() gasnett_compiler_fence()
#endif

/* ---- Atomics ------------------------------------------------------------------------------- */

/* Fence flags of every atomic operation (OR them); the implementation may fence more, never less. */
#define GASNETT_ATOMIC_NONE 0x00              /* no fence */
#define GASNETT_ATOMIC_RMB_PRE 0x01           /* read fence before the operation */
#define GASNETT_ATOMIC_WMB_PRE 0x02           /* write fence before the operation */
#define GASNETT_ATOMIC_MB_PRE 0x03            /* full fence before the operation */
#define GASNETT_ATOMIC_RMB_POST 0x04          /* read fence after the operation */
#define GASNETT_ATOMIC_WMB_POST 0x08          /* write fence after the operation */
#define GASNETT_ATOMIC_MB_POST 0x0C           /* full fence after the operation */
#define GASNETT_ATOMIC_RMB_POST_IF_TRUE 0x10  /* read fence after a boolean op that returns true */
#define GASNETT_ATOMIC_RMB_POST_IF_FALSE 0x20 /* read fence after a boolean op that returns false */
/* Release: fence earlier writes before the operation. */
#define GASNETT_ATOMIC_REL GASNETT_ATOMIC_WMB_PRE
/* Acquire: fence later reads after the operation. */
#define GASNETT_ATOMIC_ACQ GASNETT_ATOMIC_RMB_POST
/* Acquire only when the boolean operation succeeds / fails. */
#define GASNETT_ATOMIC_ACQ_IF_TRUE GASNETT_ATOMIC_RMB_POST_IF_TRUE
#define GASNETT_ATOMIC_ACQ_IF_FALSE GASNETT_ATOMIC_RMB_POST_IF_FALSE
/* gasnett_atomic_{compare_and_swap,swap} and gasnett_atomic_{add,subtract} exist. */
#define GASNETT_HAVE_ATOMIC_CAS 1
#define GASNETT_HAVE_ATOMIC_ADD_SUB 1

/* A locked read-modify-write is a full hardware fence on x86 (and the seq_cst builtin is one for
 * the compiler), so the RMW operations need no extra fence there. */
#if defined(__x86_64__) || defined(__i386__)
#define GASNETT_RMW_IS_FULL_FENCE_ 1
#else
#define GASNETT_RMW_IS_FULL_FENCE_ 0
#endif

/* The fence that `flags` asks for before an operation (is_rmw: the operation is an RMW). */
static inline void gasnett_fence_pre_(int flags, int is_rmw) {
  if (is_rmw && GASNETT_RMW_IS_FULL_FENCE_)
    return;
  if ((flags & GASNETT_ATOMIC_MB_PRE) == GASNETT_ATOMIC_MB_PRE)
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
  else if (flags & GASNETT_ATOMIC_RMB_PRE)
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
  else if (flags & GASNETT_ATOMIC_WMB_PRE)
    __atomic_thread_fence(__ATOMIC_RELEASE);
}

/* The fence that `flags` asks for after an operation; `result` selects the _IF_TRUE/_IF_FALSE part. */
static inline void gasnett_fence_post_(int flags, int is_rmw, int result) {
  if (is_rmw && GASNETT_RMW_IS_FULL_FENCE_)
    return;
  if ((result && (flags & GASNETT_ATOMIC_RMB_POST_IF_TRUE)) || (!result && (flags & GASNETT_ATOMIC_RMB_POST_IF_FALSE)))
    flags |= GASNETT_ATOMIC_RMB_POST;
  if ((flags & GASNETT_ATOMIC_MB_POST) == GASNETT_ATOMIC_MB_POST)
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
  else if (flags & GASNETT_ATOMIC_RMB_POST)
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
  else if (flags & GASNETT_ATOMIC_WMB_POST)
    __atomic_thread_fence(__ATOMIC_RELEASE);
}

/* Defines PFX_{read,set,compare_and_swap,swap,add,subtract,increment,decrement,decrement_and_test}
 * on struct type T holding a V, with the GASNet semantics:
 *   V    read(p, f)                    the value of *p
 *   void set(p, v, f)                  *p = v
 *   int  compare_and_swap(p, o, n, f)  if *p == o: *p = n, return nonzero; else return 0
 *   V    swap(p, v, f)                 *p = v, return the old value
 *   V    add(p, v, f), subtract(p, v, f)  *p += v / *p -= v (wrapping), return the NEW value
 *   void increment(p, f), decrement(p, f)  *p += 1 / *p -= 1 (wrapping)
 *   int  decrement_and_test(p, f)      *p -= 1, return nonzero iff *p became 0
 * Every operation is a seq_cst __atomic builtin, plus the fences that f asks for. */
#define GASNETT_DEFINE_ATOMIC_OPS_(PFX, T, V)                                                                          \
  static inline V PFX##_read(const T *p, int flags) {                                                                  \
    gasnett_fence_pre_(flags, 0);                                                                                      \
    const V v = __atomic_load_n(&p->ctr_, __ATOMIC_SEQ_CST);                                                           \
    gasnett_fence_post_(flags, 0, 1);                                                                                  \
    return v;                                                                                                          \
  }                                                                                                                    \
  static inline void PFX##_set(T *p, V v, int flags) {                                                                 \
    gasnett_fence_pre_(flags, 0);                                                                                      \
    __atomic_store_n(&p->ctr_, v, __ATOMIC_SEQ_CST);                                                                   \
    gasnett_fence_post_(flags, 0, 1);                                                                                  \
  }                                                                                                                    \
  static inline int PFX##_compare_and_swap(T *p, V oldval, V newval, int flags) {                                      \
    gasnett_fence_pre_(flags, 1);                                                                                      \
    const int ok = __atomic_compare_exchange_n(&p->ctr_, &oldval, newval, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);      \
    gasnett_fence_post_(flags, 1, ok);                                                                                 \
    return ok;                                                                                                         \
  }                                                                                                                    \
  static inline V PFX##_swap(T *p, V v, int flags) {                                                                   \
    gasnett_fence_pre_(flags, 1);                                                                                      \
    const V old = __atomic_exchange_n(&p->ctr_, v, __ATOMIC_SEQ_CST);                                                  \
    gasnett_fence_post_(flags, 1, 1);                                                                                  \
    return old;                                                                                                        \
  }                                                                                                                    \
  static inline V PFX##_add(T *p, V v, int flags) {                                                                    \
    gasnett_fence_pre_(flags, 1);                                                                                      \
    const V now = __atomic_add_fetch(&p->ctr_, v, __ATOMIC_SEQ_CST);                                                   \
    gasnett_fence_post_(flags, 1, 1);                                                                                  \
    return now;                                                                                                        \
  }                                                                                                                    \
  static inline V PFX##_subtract(T *p, V v, int flags) {                                                               \
    gasnett_fence_pre_(flags, 1);                                                                                      \
    const V now = __atomic_sub_fetch(&p->ctr_, v, __ATOMIC_SEQ_CST);                                                   \
    gasnett_fence_post_(flags, 1, 1);                                                                                  \
    return now;                                                                                                        \
  }                                                                                                                    \
  static inline void PFX##_increment(T *p, int flags) { (void)PFX##_add(p, 1, flags); }                                \
  static inline void PFX##_decrement(T *p, int flags) { (void)PFX##_subtract(p, 1, flags); }                           \
  static inline int PFX##_decrement_and_test(T *p, int flags) {                                                        \
    gasnett_fence_pre_(flags, 1);                                                                                      \
    const int zero = __atomic_sub_fetch(&p->ctr_, 1, __ATOMIC_SEQ_CST) == 0;                                           \
    gasnett_fence_post_(flags, 1, zero);                                                                               \
    return zero;                                                                                                       \
  }

/* Unsigned value of the default atomic type (32 bits, wraps like two's complement). */
typedef uint32_t gasnett_atomic_val_t;
/* Signed view of gasnett_atomic_val_t. */
typedef int32_t gasnett_atomic_sval_t;
/* The default atomic counter; touch it only through gasnett_atomic_* (the field is private). */
typedef struct {
  gasnett_atomic_val_t ctr_;
} gasnett_atomic_t;
/* Largest gasnett_atomic_val_t; the smallest is 0. */
#define GASNETT_ATOMIC_MAX ((gasnett_atomic_val_t)0xFFFFFFFFu)
/* Range of gasnett_atomic_signed(). */
#define GASNETT_ATOMIC_SIGNED_MIN ((gasnett_atomic_sval_t)INT32_MIN)
#define GASNETT_ATOMIC_SIGNED_MAX ((gasnett_atomic_sval_t)INT32_MAX)
/* Static initializer to value v (wrapped to the type's range). */
#define gasnett_atomic_init(v)                                                                                         \
  { (gasnett_atomic_val_t)(v) }
GASNETT_DEFINE_ATOMIC_OPS_(gasnett_atomic, gasnett_atomic_t, gasnett_atomic_val_t)

/* Two's-complement signed value of v (no implementation-defined conversion). */
static inline gasnett_atomic_sval_t gasnett_atomic_signed_(gasnett_atomic_val_t v) {
  return v <= (gasnett_atomic_val_t)INT32_MAX ? (gasnett_atomic_sval_t)v : -(gasnett_atomic_sval_t)(~v) - 1;
}
/* A value read from a gasnett_atomic_t, as gasnett_atomic_sval_t. */
#define gasnett_atomic_signed(v) gasnett_atomic_signed_((gasnett_atomic_val_t)(v))

/* Fixed-width atomics: exactly the storage of a uint32_t / uint64_t. */
typedef struct {
  uint32_t ctr_;
} gasnett_atomic32_t;
typedef struct {
  uint64_t ctr_;
} gasnett_atomic64_t;
/* Static initializers of the fixed-width atomics. */
#define gasnett_atomic32_init(v)                                                                                       \
  { (uint32_t)(v) }
#define gasnett_atomic64_init(v)                                                                                       \
  { (uint64_t)(v) }
GASNETT_DEFINE_ATOMIC_OPS_(gasnett_atomic32, gasnett_atomic32_t, uint32_t)
GASNETT_DEFINE_ATOMIC_OPS_(gasnett_atomic64, gasnett_atomic64_t, uint64_t)

/* Strong atomics (atomic even in single-threaded builds, signal-safe): the same as gasnett_atomic_*. */
typedef gasnett_atomic_t gasnett_strongatomic_t;
#define gasnett_strongatomic_init(v) gasnett_atomic_init(v)
#define gasnett_strongatomic_read(p, f) gasnett_atomic_read(p, f)
#define gasnett_strongatomic_set(p, v, f) gasnett_atomic_set(p, v, f)
#define gasnett_strongatomic_compare_and_swap(p, o, n, f) gasnett_atomic_compare_and_swap(p, o, n, f)
#define gasnett_strongatomic_swap(p, v, f) gasnett_atomic_swap(p, v, f)
#define gasnett_strongatomic_add(p, v, f) gasnett_atomic_add(p, v, f)
#define gasnett_strongatomic_subtract(p, v, f) gasnett_atomic_subtract(p, v, f)
#define gasnett_strongatomic_increment(p, f) gasnett_atomic_increment(p, f)
#define gasnett_strongatomic_decrement(p, f) gasnett_atomic_decrement(p, f)
#define gasnett_strongatomic_decrement_and_test(p, f) gasnett_atomic_decrement_and_test(p, f)
#define gasnett_strongatomic_signed(v) gasnett_atomic_signed(v)
/* Fixed-width strong atomics: the fixed-width atomics, which are lock-free (hence signal-safe). So
 * GASNETT_STRONGATOMIC_NOT_SIGNALSAFE, GASNETT_STRONGATOMIC32_NOT_SIGNALSAFE and
 * GASNETT_STRONGATOMIC64_NOT_SIGNALSAFE stay undefined. */
typedef gasnett_atomic32_t gasnett_strongatomic32_t;
typedef gasnett_atomic64_t gasnett_strongatomic64_t;
#define gasnett_strongatomic32_init(v) gasnett_atomic32_init(v)
#define gasnett_strongatomic32_read(p, f) gasnett_atomic32_read(p, f)
#define gasnett_strongatomic32_set(p, v, f) gasnett_atomic32_set(p, v, f)
#define gasnett_strongatomic32_compare_and_swap(p, o, n, f) gasnett_atomic32_compare_and_swap(p, o, n, f)
#define gasnett_strongatomic32_swap(p, v, f) gasnett_atomic32_swap(p, v, f)
#define gasnett_strongatomic32_add(p, v, f) gasnett_atomic32_add(p, v, f)
#define gasnett_strongatomic32_subtract(p, v, f) gasnett_atomic32_subtract(p, v, f)
#define gasnett_strongatomic32_increment(p, f) gasnett_atomic32_increment(p, f)
#define gasnett_strongatomic32_decrement(p, f) gasnett_atomic32_decrement(p, f)
#define gasnett_strongatomic32_decrement_and_test(p, f) gasnett_atomic32_decrement_and_test(p, f)
#define gasnett_strongatomic64_init(v) gasnett_atomic64_init(v)
#define gasnett_strongatomic64_read(p, f) gasnett_atomic64_read(p, f)
#define gasnett_strongatomic64_set(p, v, f) gasnett_atomic64_set(p, v, f)
#define gasnett_strongatomic64_compare_and_swap(p, o, n, f) gasnett_atomic64_compare_and_swap(p, o, n, f)
#define gasnett_strongatomic64_swap(p, v, f) gasnett_atomic64_swap(p, v, f)
#define gasnett_strongatomic64_add(p, v, f) gasnett_atomic64_add(p, v, f)
#define gasnett_strongatomic64_subtract(p, v, f) gasnett_atomic64_subtract(p, v, f)
#define gasnett_strongatomic64_increment(p, f) gasnett_atomic64_increment(p, f)
#define gasnett_strongatomic64_decrement(p, f) gasnett_atomic64_decrement(p, f)
#define gasnett_strongatomic64_decrement_and_test(p, f) gasnett_atomic64_decrement_and_test(p, f)

/* ---- Spinlocks ----------------------------------------------------------------------------- */

/* gasnett_spinlock_* exist. */
#define GASNETT_HAVE_SPINLOCK 1
/* A test-and-test-and-set lock; for very short critical sections. */
typedef struct {
  uint32_t held_;
} gasnett_spinlock_t;
/* Static initializer (unlocked). */
#define GASNETT_SPINLOCK_INITIALIZER                                                                                   \
  { 0 }
/* Initializes / destroys a spinlock; return 0. */
static inline int gasnett_spinlock_init(gasnett_spinlock_t *l) {
  __atomic_store_n(&l->held_, 0, __ATOMIC_RELEASE);
  return 0;
}
static inline int gasnett_spinlock_destroy(gasnett_spinlock_t *l) {
  (void)l;
  return 0;
}
/* Takes the lock without blocking: 0 on success, EBUSY when it is held. */
static inline int gasnett_spinlock_trylock(gasnett_spinlock_t *l) {
  return __atomic_exchange_n(&l->held_, 1, __ATOMIC_ACQUIRE) ? EBUSY : 0;
}
/* Takes the lock, spinning (and yielding now and then) while it is held; returns 0. */
static inline int gasnett_spinlock_lock(gasnett_spinlock_t *l) {
  while (__atomic_exchange_n(&l->held_, 1, __ATOMIC_ACQUIRE)) {
    for (unsigned spins = 1; __atomic_load_n(&l->held_, __ATOMIC_RELAXED); ++spins) {
      gasnett_spinloop_hint();
      if (spins % 1024 == 0)
        (void)sched_yield();
    }
  }
  return 0;
}
/* Releases the lock; returns 0. */
static inline int gasnett_spinlock_unlock(gasnett_spinlock_t *l) {
  __atomic_store_n(&l->held_, 0, __ATOMIC_RELEASE);
  return 0;
}

/* ---- Mutexes, condition variables, reader-writer locks (pthread) ---------------------------- */

/* Fatal error naming the failed pthread call. */
static inline void gasnett_pthread_check_(int rc, const char *what) {
  if (GASNETT_PREDICT_FALSE(rc != 0))
    gasnett_fatalerror("%s failed: %s", what, strerror(rc));
}
/* Defines `void NAME(T *x)`: pthread CALL(x) (or CALL(x, NULL) for _INIT_), fatal error on failure. */
#define GASNETT_PTHREAD_WRAP_(NAME, T, CALL)                                                                           \
  static inline void NAME(T *x) { gasnett_pthread_check_(CALL(x), #CALL); }
#define GASNETT_PTHREAD_WRAP_INIT_(NAME, T, CALL)                                                                      \
  static inline void NAME(T *x) { gasnett_pthread_check_(CALL(x, NULL), #CALL); }

/* A mutex; each operation behaves as the pthread_mutex_* of the same name. */
typedef pthread_mutex_t gasnett_mutex_t;
/* Static initializer (unlocked). */
#define GASNETT_MUTEX_INITIALIZER PTHREAD_MUTEX_INITIALIZER
/* Dynamic initialization / destruction, lock / unlock (all: fatal error on failure). */
GASNETT_PTHREAD_WRAP_INIT_(gasnett_mutex_init, gasnett_mutex_t, pthread_mutex_init)
GASNETT_PTHREAD_WRAP_(gasnett_mutex_destroy, gasnett_mutex_t, pthread_mutex_destroy)
GASNETT_PTHREAD_WRAP_(gasnett_mutex_lock, gasnett_mutex_t, pthread_mutex_lock)
GASNETT_PTHREAD_WRAP_(gasnett_mutex_unlock, gasnett_mutex_t, pthread_mutex_unlock)
/* Destruction that returns the pthread error instead of failing. */
static inline int gasnett_mutex_destroy_ignoreerr(gasnett_mutex_t *m) { return pthread_mutex_destroy(m); }
/* Non-blocking lock: 0 on success, EBUSY when it is held. */
static inline int gasnett_mutex_trylock(gasnett_mutex_t *m) { return pthread_mutex_trylock(m); }
/* Debug-build assertions that the caller holds / does not hold m; no-ops here. */
#define gasnett_mutex_assertlocked(m) ((void)(m))
#define gasnett_mutex_assertunlocked(m) ((void)(m))

/* A condition variable used with a gasnett_mutex_t. */
typedef pthread_cond_t gasnett_cond_t;
/* Static initializer. */
#define GASNETT_COND_INITIALIZER PTHREAD_COND_INITIALIZER
/* Dynamic initialization / destruction. */
GASNETT_PTHREAD_WRAP_INIT_(gasnett_cond_init, gasnett_cond_t, pthread_cond_init)
GASNETT_PTHREAD_WRAP_(gasnett_cond_destroy, gasnett_cond_t, pthread_cond_destroy)
/* Wakes at least one / every waiter; call with the associated mutex held. */
GASNETT_PTHREAD_WRAP_(gasnett_cond_signal, gasnett_cond_t, pthread_cond_signal)
GASNETT_PTHREAD_WRAP_(gasnett_cond_broadcast, gasnett_cond_t, pthread_cond_broadcast)
/* Releases m (held), sleeps until signalled or a spurious wakeup, retakes m. Recheck the condition. */
static inline void gasnett_cond_wait(gasnett_cond_t *c, gasnett_mutex_t *m) {
  gasnett_pthread_check_(pthread_cond_wait(c, m), "pthread_cond_wait");
}

/* A reader-writer lock: many readers or one writer. */
typedef pthread_rwlock_t gasnett_rwlock_t;
/* Static initializer (unlocked). */
#define GASNETT_RWLOCK_INITIALIZER PTHREAD_RWLOCK_INITIALIZER
/* Dynamic initialization / destruction. */
GASNETT_PTHREAD_WRAP_INIT_(gasnett_rwlock_init, gasnett_rwlock_t, pthread_rwlock_init)
GASNETT_PTHREAD_WRAP_(gasnett_rwlock_destroy, gasnett_rwlock_t, pthread_rwlock_destroy)
/* Takes the lock shared (reader) / exclusive (writer); releases a read or write hold. */
GASNETT_PTHREAD_WRAP_(gasnett_rwlock_rdlock, gasnett_rwlock_t, pthread_rwlock_rdlock)
GASNETT_PTHREAD_WRAP_(gasnett_rwlock_wrlock, gasnett_rwlock_t, pthread_rwlock_wrlock)
GASNETT_PTHREAD_WRAP_(gasnett_rwlock_unlock, gasnett_rwlock_t, pthread_rwlock_unlock)
/* Non-blocking forms: 0 on success, EBUSY when not available. */
static inline int gasnett_rwlock_tryrdlock(gasnett_rwlock_t *l) { return pthread_rwlock_tryrdlock(l); }
static inline int gasnett_rwlock_trywrlock(gasnett_rwlock_t *l) { return pthread_rwlock_trywrlock(l); }
/* Debug-build assertions that the caller holds l for reading / writing / either, or not at all;
 * no-ops here. */
#define gasnett_rwlock_assertrdlocked(l) ((void)(l))
#define gasnett_rwlock_assertwrlocked(l) ((void)(l))
#define gasnett_rwlock_assertlocked(l) ((void)(l))
#define gasnett_rwlock_assertunlocked(l) ((void)(l))

/* ---- Thread-specific data ------------------------------------------------------------------ */

/* A thread-specific void * (native TLS: each key is its own thread-local slot, NULL in every new
 * thread). Declare keys only with the macros below; C and C++ translation units share them. */
typedef void *gasnett_threadkey_t;
#ifdef __cplusplus
#define GASNETT_TLS_ __thread /* no dynamic initialization, so no C++ TLS wrapper: C-compatible */
#define GASNETT_THREADKEY_DECLARE(key) extern "C" GASNETT_TLS_ gasnett_threadkey_t key
#else
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define GASNETT_TLS_ _Thread_local
#else
#define GASNETT_TLS_ __thread
#endif
#define GASNETT_THREADKEY_DECLARE(key) extern GASNETT_TLS_ gasnett_threadkey_t key
#endif
/* Defines key, in exactly one translation unit at global scope; no initialization call needed. */
#define GASNETT_THREADKEY_DEFINE(key)                                                                                  \
  GASNETT_THREADKEY_DECLARE(key);                                                                                      \
  GASNETT_TLS_ gasnett_threadkey_t key = NULL
/* Optional initialization (may be called any number of times, from any thread). */
#define gasnett_threadkey_init(key) ((void)&(key))
/* This thread's value of key (NULL until set). */
#define gasnett_threadkey_get(key) ((void *)(key))
/* Sets this thread's value of key. */
#define gasnett_threadkey_set(key, newval) ((void)((key) = (void *)(newval)))
/* The same after gasnett_threadkey_init (no initialization check to save). */
#define gasnett_threadkey_get_noinit(key) gasnett_threadkey_get(key)
#define gasnett_threadkey_set_noinit(key, newval) gasnett_threadkey_set(key, newval)

/* ---- Timers -------------------------------------------------------------------------------- */

/* Timer ticks: nanoseconds of CLOCK_MONOTONIC (so ticks compare across threads of a process). */
typedef uint64_t gasnett_tick_t;
/* Smallest and largest gasnett_tick_t. */
#define GASNETT_TICK_MIN ((gasnett_tick_t)0)
#define GASNETT_TICK_MAX ((gasnett_tick_t)UINT64_MAX)

/* The current tick count. */
static inline gasnett_tick_t gasnett_ticks_now(void) {
  struct timespec ts;
  (void)clock_gettime(CLOCK_MONOTONIC, &ts);
  return (gasnett_tick_t)ts.tv_sec * 1000000000u + (gasnett_tick_t)ts.tv_nsec;
}
/* Ticks to nanoseconds / microseconds (truncating). */
static inline uint64_t gasnett_ticks_to_ns(gasnett_tick_t t) { return t; }
static inline uint64_t gasnett_ticks_to_us(gasnett_tick_t t) { return t / 1000u; }

/* Mean cost of one gasnett_ticks_now() in microseconds (measured once per translation unit). */
static inline double gasnett_tick_overheadus(void) {
  static double cached = 0.0; /* 0: not measured yet */
  double us;
  __atomic_load(&cached, &us, __ATOMIC_RELAXED);
  if (us > 0.0)
    return us;
  const int calls = 10000;
  const gasnett_tick_t start = gasnett_ticks_now();
  gasnett_tick_t last = start;
  for (int i = 0; i < calls; ++i)
    last = gasnett_ticks_now();
  us = (double)(last - start) / calls / 1000.0;
  if (us <= 0.0)
    us = 0.001; /* below the clock's resolution: report 1 ns */
  __atomic_store(&cached, &us, __ATOMIC_RELAXED);
  return us;
}
/* Smallest nonzero interval between two readings, in microseconds (measured once per translation unit). */
static inline double gasnett_tick_granularityus(void) {
  static double cached = 0.0;
  double us;
  __atomic_load(&cached, &us, __ATOMIC_RELAXED);
  if (us > 0.0)
    return us;
  gasnett_tick_t best = GASNETT_TICK_MAX;
  for (int trial = 0; trial < 100; ++trial) {
    const gasnett_tick_t t0 = gasnett_ticks_now();
    gasnett_tick_t t1;
    while ((t1 = gasnett_ticks_now()) == t0) {
    }
    if (t1 - t0 < best)
      best = t1 - t0;
  }
  us = (double)best / 1000.0;
  __atomic_store(&cached, &us, __ATOMIC_RELAXED);
  return us;
}
/* Microseconds since the Epoch, from the wall clock (CLOCK_REALTIME). */
static inline uint64_t gasnett_gettimeofday_us(void) {
  struct timespec ts;
  (void)clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}
/* Older names of the two measurements above. */
#define gasnett_timer_overheadus() gasnett_tick_overheadus()
#define gasnett_timer_granularityus() gasnett_tick_granularityus()

/* ---- Environment --------------------------------------------------------------------------- */

/* Memory sizes in the functions below are numbers with an optional suffix B, K(B), M(B), G(B) or
 * T(B) in any case, powers of 1024, possibly fractional ("1.5K" is 1536); a number without a
 * suffix counts units of mem_size_multiplier. Plain integers are decimal, or hex with 0x. */

/* The raw value of environment variable keyname in this process, or NULL; nothing is reported. */
char *gasnett_getenv(const char *keyname);
/* The value of keyname, or defaultval when unset (the result must not be written). */
char *gasnett_getenv_withdefault(const char *keyname, const char *defaultval);
/* Yes/no setting: Y|YES|1 -> 1, N|NO|0 -> 0 (any case), unset or empty -> defaultval, else fatal. */
int gasnett_getenv_yesno_withdefault(const char *keyname, int defaultval);
/* Integer setting (mem_size_multiplier 0) or memory size (nonzero: bare numbers count units of
 * it, 1 = bytes); unset or empty -> defaultval; malformed -> fatal error. */
int64_t gasnett_getenv_int_withdefault(const char *keyname, int64_t defaultval, uint64_t mem_size_multiplier);
/* Floating-point setting: a number ("1.5", "-1e4") or a fraction ("3/8"); unset or empty ->
 * defaultval; malformed -> fatal error. */
double gasnett_getenv_dbl_withdefault(const char *keyname, double defaultval);
/* Each *_withdefault query above reports its first call for a key on stderr ("ENV parameter:
 * KEY = VALUE", "(default)" when it is), when gasnett_verboseenv() is true. */

/* str as an integer (mem_size_multiplier 0) or memory size (nonzero, the unit of a bare number);
 * 0 for NULL; a fatal error when str is not one. */
int64_t gasnett_parse_int(const char *str, uint64_t mem_size_multiplier);
/* Writes val into buf (at most bufsz bytes, always terminated) and returns buf: decimal, or, for
 * a memory size, in the largest of TB, GB, MB, KB that divides it exactly, else with B ("4MB",
 * "1536B"). gasnett_parse_int(buf, 1) gives val back. */
char *gasnett_format_number(int64_t val, char *buf, size_t bufsz, int is_mem_size);

/* Sets / removes an environment variable of this process only (a fatal error when it cannot). */
void gasnett_setenv(const char *key, const char *value);
void gasnett_unsetenv(const char *key);

/* 1 iff settings are reported: GASNET_VERBOSEENV is yes, and this is node 0 once gasnet_init has
 * run (before that, every process reports). */
int gasnett_verboseenv(void);
/* Report one setting iff gasnett_verboseenv(), once per key (the first report of a key wins). */
void gasnett_envint_display(const char *key, int64_t val, int is_dflt, int is_mem_size);
void gasnett_envstr_display(const char *key, const char *val, int is_dflt);
void gasnett_envdbl_display(const char *key, double val, int is_dflt);

/* ---- System properties and utilities ------------------------------------------------------- */

/* Number of online CPUs, or 0 if unknown. */
static inline int gasnett_cpu_count(void) {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 0;
}

/* Storage and one-time fill of gasnett_gethostname()'s result (one copy per translation unit). */
static inline char *gasnett_hostname_buf_(void) {
  static char name[sizeof(((struct utsname *)0)->nodename)];
  return name;
}
static inline void gasnett_hostname_fill_(void) {
  struct utsname u;
  char *name = gasnett_hostname_buf_();
  if (uname(&u) == 0)
    memcpy(name, u.nodename, sizeof u.nodename);
  name[sizeof u.nodename - 1] = '\0';
  if (!name[0])
    memcpy(name, "localhost", sizeof "localhost");
}
/* This machine's host name (static storage, never NULL). */
static inline const char *gasnett_gethostname(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  (void)pthread_once(&once, gasnett_hostname_fill_);
  return gasnett_hostname_buf_();
}

/* This process's id. */
static inline int gasnett_getpid(void) { return (int)getpid(); }
/* Yields the CPU to another thread; returns sched_yield's result. */
static inline int gasnett_sched_yield(void) { return sched_yield(); }

/* Pins the calling thread to processor rank % (number of CPUs); a no-op where CPU sets are hidden. */
static inline void gasnett_set_affinity(int rank) {
#if defined(CPU_SET) && defined(CPU_SETSIZE)
  const int ncpu = gasnett_cpu_count();
  if (ncpu <= 0 || rank < 0)
    return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET((size_t)(rank % ncpu) % CPU_SETSIZE, &set);
  (void)sched_setaffinity(0, sizeof set, &set);
#else
  (void)rank;
#endif
}

/* Number of zero bytes in the representation of x (a zero byte maps to 0x80 in the mask, any
 * other byte to 0, with no carry between bytes). */
static inline int gasnett_count0s_uint32_t(uint32_t x) {
  const uint32_t low7 = UINT32_C(0x7F7F7F7F);
  return __builtin_popcount(~(((x & low7) + low7) | x | low7));
}
static inline int gasnett_count0s_uint64_t(uint64_t x) {
  const uint64_t low7 = UINT64_C(0x7F7F7F7F7F7F7F7F);
  return __builtin_popcountll(~(((x & low7) + low7) | x | low7));
}
static inline int gasnett_count0s_uintptr_t(uintptr_t x) {
  return sizeof x == 8 ? gasnett_count0s_uint64_t((uint64_t)x) : gasnett_count0s_uint32_t((uint32_t)x);
}
/* Number of zero bytes in [p, p + n), 8 bytes at a time. */
static inline size_t gasnett_count0s(const void *p, size_t n) {
  const unsigned char *bytes = (const unsigned char *)p;
  size_t zeros = 0, i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t word;
    memcpy(&word, bytes + i, 8);
    zeros += (size_t)gasnett_count0s_uint64_t(word);
  }
  for (; i < n; ++i)
    zeros += bytes[i] == 0;
  return zeros;
}
/* Copies n bytes from src to dst (no overlap) and returns the number of zero bytes among them. */
static inline size_t gasnett_count0s_copy(void *GASNETT_RESTRICT dst, const void *GASNETT_RESTRICT src, size_t n) {
  memcpy(dst, src, n);
  return gasnett_count0s(dst, n);
}

/* A simple, fast, insecure 64-bit checksum of [p, p + numbytes): FNV-1a, so its values are those
 * published for that hash (the empty block gives 0xcbf29ce484222325). */
uint64_t gasnett_checksum(const void *p, int numbytes);

/* 1 iff the least significant byte of an integer is stored first. */
static inline int gasnett_isLittleEndian(void) {
  const uint32_t one = 1;
  unsigned char first;
  memcpy(&first, &one, 1);
  return first == 1;
}

/* Bytes of physical memory on this node; 0 if unknown, or a fatal error if failureIsFatal. */
static inline uint64_t gasnett_getPhysMemSz(int failureIsFatal) {
  const long pages = sysconf(_SC_PHYS_PAGES), pagesize = sysconf(_SC_PAGESIZE);
  if (pages > 0 && pagesize > 0)
    return (uint64_t)pages * (uint64_t)pagesize;
  if (failureIsFatal)
    gasnett_fatalerror("gasnett_getPhysMemSz: the physical memory size is unknown");
  return 0;
}

/* Raises the soft limit of resource res (an RLIMIT_* of <sys/resource.h>) to its hard limit, unless
 * GASNET_MAXIMIZE_<lim_desc> is no; nonzero on success (or when told not to). */
int gasnett_maximize_rlimit(int res, const char *lim_desc);
/* The same for CPU time and the in-memory limits (RLIMIT_CPU, _DATA, _RSS, _STACK, _AS), with
 * descriptions "RLIMIT_CPU" etc.; nonzero when all succeeded. */
int gasnett_maximize_rlimits(void);

/* The optional checking features this build has that slow it down ("" here: none, no debug, trace
 * or statistics build); GASNet clients print it before reporting performance. */
static inline const char *gasnett_performance_warning_str(void) { return ""; }

/* ---- Tracing and statistics (compiled out) -------------------------------------------------- */

/* Tracing / statistics support compiled in (test with #if). */
#define GASNETT_TRACE_ENABLED 0
#define GASNETT_STATS_ENABLED 0
/* The printf-style macros type-check their arguments but never evaluate them. */
#define GASNETT_TRACE_PRINTF(...) ((void)(0 && printf(__VA_ARGS__)))
#define GASNETT_TRACE_PRINTF_FORCE(...) ((void)(0 && printf(__VA_ARGS__)))
#define GASNETT_STATS_PRINTF(...) ((void)(0 && printf(__VA_ARGS__)))
/* Trace / statistics category masks (strings of category letters): always empty. */
#define GASNETT_TRACE_GETMASK() ("")
#define GASNETT_TRACE_SETMASK(mask) ((void)0)
#define GASNETT_STATS_GETMASK() ("")
#define GASNETT_STATS_SETMASK(mask) ((void)0)
/* Thread-local tracing switch: always 0. */
#define GASNETT_TRACE_GET_TRACELOCAL() (0)
#define GASNETT_TRACE_SET_TRACELOCAL(val) ((void)0)
/* Source-line tracking of trace records: *pfile = NULL, *pline = 0. */
#define GASNETT_TRACE_SETSOURCELINE(file, line) ((void)0)
#define GASNETT_TRACE_GETSOURCELINE(pfile, pline) ((void)(*(pfile) = NULL, *(pline) = 0))
#define GASNETT_TRACE_FREEZESOURCELINE() ((void)0)
#define GASNETT_TRACE_UNFREEZESOURCELINE() ((void)0)
/* Registers a client statistics callback / dumps statistics (optionally resetting): nothing. */
#define GASNETT_STATS_INIT(callbackfn) ((void)0)
#define GASNETT_STATS_DUMP(reset) ((void)0)

#pragma GCC visibility pop

GASNETT_END_EXTERNC

#endif /* GASNET_TOOLS_H */
