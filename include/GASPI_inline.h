/*
 * GASPI_inline.h -- HyGASPI
 *
 * The node path of the global atomics (gaspi_atomic_fetch_add, gaspi_atomic_compare_swap),
 * inlined into the client (included by GASPI.h), as gasnetex_inline.h inlines GASNet-EX's.
 *
 * On a node peer (or this rank) a global atomic is one seq_cst CPU atomic on a word of a segment
 * this process maps, the same instruction the library applies, so both paths share one atomicity
 * domain (spec §10.1). An uncontended one costs about 2 ns. As a library call, even one that only
 * makes the atomic, it cost 1.3x that on the CPUs we measured, and 1.6-1.8x with the checks
 * (bench/bench_atomics.cpp); inlined, the checks overlap the atomic.
 *
 * Each thread keeps the target of its last atomic that the library looked up (rank and segment,
 * where it is mapped, its size). The client applies the atomic itself only when
 *   - GASPI is initialised, in the same life as that lookup, and statistics are off (level 0:
 *     with counting on, every call goes to the library, which counts it);
 *   - the call names that rank and segment, val_old is not NULL, and the offset is 8-byte
 *     aligned and inside the segment;
 *   - the segment is still the one looked up (its owner's generation), and its owner is not dead.
 * Otherwise it calls the library, which applies the atomic, sends it to another node or reports
 * the bad input exactly as before, and looks the target up again. So nothing here can write
 * outside a segment.
 *
 * From before those checks until the atomic is done, the thread's `calls` is raised, so that
 * gaspi_proc_term in another thread waits for the atomic before it unmaps the segment (the
 * library's call gate: its term fences every thread, then waits until every `calls` is 0).
 *
 * Only GCC-compatible compilers get it (atomic builtins, __thread). Define HYGASPI_NO_INLINE before
 * GASPI.h to turn it off: a profiling tool (spec §14.2) that defines gaspi_atomic_fetch_add or
 * gaspi_atomic_compare_swap itself must, and its clients must too if the tool is to see their
 * atomics on a node.
 */
#ifndef HYGASPI_GASPI_INLINE_H
#define HYGASPI_GASPI_INLINE_H

#if defined(__GNUC__)
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* A thread's cached atomic target. Not an interface: its layout may change with the library's
 * version, and the exported names below carry the layout's number (_v2), so that a client built
 * against another layout fails to load instead of misreading it. */
typedef struct {
  unsigned long long key;               /* (life << 32) | (rank << 8) | segment; 0: empty */
  gaspi_atomic_value_t *words;          /* where this process maps the segment's data */
  unsigned long long last;              /* the offset of its last 8-byte word */
  unsigned long long mapped_generation; /* the segment's generation when it was mapped */
  const unsigned long long *generation; /* the owner's published generation of the segment */
  const unsigned int *state;            /* the owner's life: GASPI_HYG_DEAD_OWNER once dead */
  unsigned int calls;                   /* fast calls of this thread under way (only it writes) */
  unsigned int joined;                  /* the library knows where `calls` is */
} gaspi_hyg_atomic_target_t;
#define GASPI_HYG_DEAD_OWNER 3u

/* The life of GASPI (1 at the first gaspi_proc_init) while the inline path may run: GASPI is
 * initialised and statistics are off. 0 otherwise. */
extern unsigned int gaspi_hyg_atomic_life_v2;
/* initial-exec: the library holds it in the static TLS block, so a client built as a shared
 * library (-fPIC) reads it as an executable does, without a __tls_get_addr call. */
extern __thread gaspi_hyg_atomic_target_t gaspi_hyg_atomic_target_v2 __attribute__((tls_model("initial-exec")));

#pragma GCC visibility pop

/* The cache key of (rank, segment_id) in GASPI's life `life` (never 0: lives start at 1). */
static __inline__ unsigned long long gaspi_hyg_atomic_key(unsigned long long life, gaspi_rank_t rank,
                                                          gaspi_segment_id_t segment_id) {
  return (life << 32) | (rank * 256ull) | (segment_id + 0ull);
}

/* The thread's fast call begins: its count rises before anything of the library is read. A compiler
 * fence suffices here; gaspi_proc_term pays for the rest (membarrier). */
static __inline__ void gaspi_hyg_enter(void) {
  gaspi_hyg_atomic_target_t *t = &gaspi_hyg_atomic_target_v2;
  __atomic_store_n(&t->calls, t->calls + 1, __ATOMIC_RELAXED);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
}
/* ... and ends, after its last access to a segment. */
static __inline__ void gaspi_hyg_leave(void) {
  gaspi_hyg_atomic_target_t *t = &gaspi_hyg_atomic_target_v2;
  __atomic_store_n(&t->calls, t->calls - 1, __ATOMIC_RELEASE);
}

/* The mapped 8-byte word of an atomic on (rank, segment_id, offset), or NULL: go to the library.
 * Between gaspi_hyg_enter and gaspi_hyg_leave only. */
static __inline__ gaspi_atomic_value_t *gaspi_hyg_atomic_word(gaspi_segment_id_t segment_id, gaspi_offset_t offset,
                                                              gaspi_rank_t rank, const gaspi_atomic_value_t *val_old) {
  const gaspi_hyg_atomic_target_t *t = &gaspi_hyg_atomic_target_v2;
  const unsigned long long life = __atomic_load_n(&gaspi_hyg_atomic_life_v2, __ATOMIC_ACQUIRE);
  if (life == 0 || val_old == NULL || (offset & 7u) != 0 || t->key != gaspi_hyg_atomic_key(life, rank, segment_id) ||
      offset > t->last || __atomic_load_n(t->generation, __ATOMIC_ACQUIRE) != t->mapped_generation ||
      __atomic_load_n(t->state, __ATOMIC_ACQUIRE) == GASPI_HYG_DEAD_OWNER)
    return NULL;
  return t->words + offset / 8; /* no cast, so that a C++ client's -Wold-style-cast stays quiet */
}

#ifdef __cplusplus
}
#endif

#if !defined(HYGASPI_LIBRARY) && !defined(HYGASPI_NO_INLINE)

static __inline__ gaspi_return_t gaspi_hyg_atomic_fetch_add(gaspi_segment_id_t segment_id, gaspi_offset_t offset,
                                                            gaspi_rank_t rank, gaspi_atomic_value_t val_add,
                                                            gaspi_atomic_value_t *val_old, gaspi_timeout_t timeout) {
  gaspi_atomic_value_t *word;
  gaspi_hyg_enter();
  word = gaspi_hyg_atomic_word(segment_id, offset, rank, val_old);
  if (__builtin_expect(word == NULL, 0)) {
    gaspi_hyg_leave();
    return gaspi_atomic_fetch_add(segment_id, offset, rank, val_add, val_old, timeout);
  }
  *val_old = __atomic_fetch_add(word, val_add, __ATOMIC_SEQ_CST);
  gaspi_hyg_leave();
  return GASPI_SUCCESS;
}

/* spec §10.3: val_old is the value before the call, whether or not it was swapped. */
static __inline__ gaspi_return_t gaspi_hyg_atomic_compare_swap(gaspi_segment_id_t segment_id, gaspi_offset_t offset,
                                                               gaspi_rank_t rank, gaspi_atomic_value_t comparator,
                                                               gaspi_atomic_value_t val_new,
                                                               gaspi_atomic_value_t *val_old, gaspi_timeout_t timeout) {
  gaspi_atomic_value_t *word;
  gaspi_atomic_value_t expected = comparator;
  gaspi_hyg_enter();
  word = gaspi_hyg_atomic_word(segment_id, offset, rank, val_old);
  if (__builtin_expect(word == NULL, 0)) {
    gaspi_hyg_leave();
    return gaspi_atomic_compare_swap(segment_id, offset, rank, comparator, val_new, val_old, timeout);
  }
  (void)__atomic_compare_exchange_n(word, &expected, val_new, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  *val_old = expected;
  gaspi_hyg_leave();
  return GASPI_SUCCESS;
}

/* The name inside each expansion is the library's function (a macro does not expand itself). */
#define gaspi_atomic_fetch_add(segment_id, offset, rank, val_add, val_old, timeout)                                    \
  gaspi_hyg_atomic_fetch_add((segment_id), (offset), (rank), (val_add), (val_old), (timeout))
#define gaspi_atomic_compare_swap(segment_id, offset, rank, comparator, val_new, val_old, timeout)                     \
  gaspi_hyg_atomic_compare_swap((segment_id), (offset), (rank), (comparator), (val_new), (val_old), (timeout))

#endif /* the client's inline path */
#endif /* __GNUC__ */
#endif /* HYGASPI_GASPI_INLINE_H */
