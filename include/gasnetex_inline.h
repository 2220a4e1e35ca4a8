/* gasnetex_inline.h: the node path of the integer remote atomics (gex_AD_OpNB/NBI), inlined into
 * the client (included by gasnetex.h), as gasnet_inline.h inlines GASNet-1's puts and gets.
 *
 * On a node peer (or this rank) an atomic is one CPU atomic on a word this process maps. As a
 * library call (a call, a frame, the checks) a FADD cost 2.9x an inlined std::atomic fetch_add
 * (bench_atomics); here the client makes the library's checks itself and applies the same seq_cst
 * CPU atomic (the engine's, src/shm/atomics.hpp), so both paths are one atomicity domain:
 *   - the handle is one of the library's domain slots (gex_hyg_AD_pool_v1), the domain is live,
 *     its data type is the call's, the opcode is one of its operations (one
 *     bit) that are one instruction (not MULT, MIN, MAX), and its team is the primordial one;
 *   - the flags are among GEX_FLAG_IMMEDIATE, _AD_MY_NBRHD, _AD_ACQ and _AD_REL;
 *   - the word is aligned to its type and inside a segment this process maps, and the thread is
 *     not in a handler, a no-interrupt section or holding an HSL (gasnet_hyg_mapped);
 *   - a fetching opcode has a result_p.
 * When any of them fails the call goes to the library, which applies it, sends it to another node
 * or reports the bad input exactly as before. Floating-point types always call the library.
 *
 * Only GCC-compatible compilers get it; GASNET_HYG_NO_INLINE, defined before gasnetex.h, turns it
 * off. */
#ifndef GASNETEX_INLINE_H
#define GASNETEX_INLINE_H

/* The head of every atomic domain, which the library's object begins with. Not an interface: its
 * layout may change with the library's version. */
typedef struct {
  uint32_t magic; /* GEX_HYG_AD_LIVE while the domain exists */
  gex_DT_t dt;
  gex_OP_t inline_ops; /* its opcodes that the inline path applies */
  uint32_t identity;   /* non-zero: its team's ranks are the job's */
} gex_hyg_AD_head_t;
#define GEX_HYG_AD_LIVE 0x41444f4bu
/* Where the library keeps its atomic domains: GEX_HYG_AD_POOL_BYTES from gex_hyg_AD_pool_v1, in slots
 * of GEX_HYG_AD_SLOT bytes, never unmapped. A handle elsewhere, or not at a slot's start, is no
 * domain: the inline path leaves it to the library, which says so, instead of reading through it.
 * Both are powers of two, so one mask tests both. */
extern const void *const gex_hyg_AD_pool_v1;
#define GEX_HYG_AD_SLOT 64u
#define GEX_HYG_AD_POOL_BYTES ((uintptr_t)1 << 20)
#define GEX_HYG_AD_IN_POOL(ad)                                                                                         \
  ((((uintptr_t)(ad) - (uintptr_t)gex_hyg_AD_pool_v1) & ~(GEX_HYG_AD_POOL_BYTES - GEX_HYG_AD_SLOT)) == 0)
#define GEX_HYG_AD_INLINE_OPS                                                                                          \
  (GEX_OP_GET | GEX_OP_SET | GEX_OP_SWAP | GEX_OP_CAS | GEX_OP_FCAS | GEX_OP_ADD | GEX_OP_FADD | GEX_OP_SUB |          \
   GEX_OP_FSUB | GEX_OP_INC | GEX_OP_FINC | GEX_OP_DEC | GEX_OP_FDEC | GEX_OP_AND | GEX_OP_FAND | GEX_OP_OR |          \
   GEX_OP_FOR | GEX_OP_XOR | GEX_OP_FXOR)
#define GEX_HYG_AD_FETCHING                                                                                            \
  (GEX_OP_GET | GEX_OP_SWAP | GEX_OP_FCAS | GEX_OP_FADD | GEX_OP_FSUB | GEX_OP_FINC | GEX_OP_FDEC | GEX_OP_FMULT |     \
   GEX_OP_FMIN | GEX_OP_FMAX | GEX_OP_FAND | GEX_OP_FOR | GEX_OP_FXOR)
#define GEX_HYG_AD_INLINE_FLAGS (GEX_FLAG_IMMEDIATE | GEX_FLAG_AD_MY_NBRHD | GEX_FLAG_AD_ACQ | GEX_FLAG_AD_REL)

#if defined(__GNUC__) && !defined(GASNET_HYG_LIBRARY) && !defined(GASNET_HYG_NO_INLINE)

/* 1 when the operation was applied here (complete: result_p written for a fetching opcode). */
#define gex_hyg_AD_TRY(NAME, TYPE)                                                                                     \
  static __inline__ int gex_hyg_AD_try_##NAME(gex_AD_t ad, TYPE *result_p, gex_Rank_t rank, void *addr, gex_OP_t op,   \
                                              TYPE op1, TYPE op2, gex_Flags_t flags) {                                 \
    const gex_hyg_AD_head_t *h = (const gex_hyg_AD_head_t *)(const void *)ad;                                          \
    TYPE *w, old;                                                                                                      \
    if (!GEX_HYG_AD_IN_POOL(ad) || h->magic != GEX_HYG_AD_LIVE || h->dt != GEX_DT_##NAME || (op & (op - 1)) != 0 ||    \
        (op & h->inline_ops) == 0 || (flags & ~GEX_HYG_AD_INLINE_FLAGS) != 0 || h->identity == 0 ||                    \
        ((uintptr_t)addr & (sizeof(TYPE) - 1)) != 0 || ((op & GEX_HYG_AD_FETCHING) != 0 && result_p == NULL))          \
      return 0;                                                                                                        \
    w = (TYPE *)(void *)gasnet_hyg_mapped(rank, addr, sizeof(TYPE));                                                   \
    if (w == NULL)                                                                                                     \
      return 0;                                                                                                        \
    switch (op) {                                                                                                      \
    case GEX_OP_GET:                                                                                                   \
      old = __atomic_load_n(w, __ATOMIC_SEQ_CST);                                                                      \
      break;                                                                                                           \
    case GEX_OP_SET:                                                                                                   \
    case GEX_OP_SWAP:                                                                                                  \
      old = __atomic_exchange_n(w, op1, __ATOMIC_SEQ_CST);                                                             \
      break;                                                                                                           \
    case GEX_OP_CAS:                                                                                                   \
    case GEX_OP_FCAS:                                                                                                  \
      old = op1;                                                                                                       \
      (void)__atomic_compare_exchange_n(w, &old, op2, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                          \
      break;                                                                                                           \
    case GEX_OP_ADD:                                                                                                   \
    case GEX_OP_FADD:                                                                                                  \
      old = __atomic_fetch_add(w, op1, __ATOMIC_SEQ_CST);                                                              \
      break;                                                                                                           \
    case GEX_OP_SUB:                                                                                                   \
    case GEX_OP_FSUB:                                                                                                  \
      old = __atomic_fetch_sub(w, op1, __ATOMIC_SEQ_CST);                                                              \
      break;                                                                                                           \
    case GEX_OP_INC:                                                                                                   \
    case GEX_OP_FINC:                                                                                                  \
      old = __atomic_fetch_add(w, 1, __ATOMIC_SEQ_CST);                                                                \
      break;                                                                                                           \
    case GEX_OP_DEC:                                                                                                   \
    case GEX_OP_FDEC:                                                                                                  \
      old = __atomic_fetch_sub(w, 1, __ATOMIC_SEQ_CST);                                                                \
      break;                                                                                                           \
    case GEX_OP_AND:                                                                                                   \
    case GEX_OP_FAND:                                                                                                  \
      old = __atomic_fetch_and(w, op1, __ATOMIC_SEQ_CST);                                                              \
      break;                                                                                                           \
    case GEX_OP_OR:                                                                                                    \
    case GEX_OP_FOR:                                                                                                   \
      old = __atomic_fetch_or(w, op1, __ATOMIC_SEQ_CST);                                                               \
      break;                                                                                                           \
    case GEX_OP_XOR:                                                                                                   \
    case GEX_OP_FXOR:                                                                                                  \
      old = __atomic_fetch_xor(w, op1, __ATOMIC_SEQ_CST);                                                              \
      break;                                                                                                           \
    default:                                                                                                           \
      return 0;                                                                                                        \
    }                                                                                                                  \
    if ((op & GEX_HYG_AD_FETCHING) != 0)                                                                               \
      *result_p = old;                                                                                                 \
    return 1;                                                                                                          \
  }                                                                                                                    \
  static __inline__ gex_Event_t gex_hyg_AD_OpNB_##NAME(gex_AD_t ad, TYPE *result_p, gex_Rank_t rank, void *addr,       \
                                                       gex_OP_t op, TYPE op1, TYPE op2, gex_Flags_t flags) {           \
    if (__builtin_expect(gex_hyg_AD_try_##NAME(ad, result_p, rank, addr, op, op1, op2, flags), 1))                     \
      return GEX_EVENT_INVALID;                                                                                        \
    return gex_AD_OpNB_##NAME(ad, result_p, rank, addr, op, op1, op2, flags);                                          \
  }                                                                                                                    \
  static __inline__ int gex_hyg_AD_OpNBI_##NAME(gex_AD_t ad, TYPE *result_p, gex_Rank_t rank, void *addr, gex_OP_t op, \
                                                TYPE op1, TYPE op2, gex_Flags_t flags) {                               \
    if (__builtin_expect(gex_hyg_AD_try_##NAME(ad, result_p, rank, addr, op, op1, op2, flags), 1))                     \
      return 0;                                                                                                        \
    return gex_AD_OpNBI_##NAME(ad, result_p, rank, addr, op, op1, op2, flags);                                         \
  }
gex_hyg_AD_TRY(I32, int32_t) gex_hyg_AD_TRY(U32, uint32_t) gex_hyg_AD_TRY(I64, int64_t) gex_hyg_AD_TRY(U64, uint64_t)
#undef gex_hyg_AD_TRY

    /* An event that is GEX_EVENT_INVALID (every atomic completed inline) needs no library call. */
    static __inline__ void gex_hyg_Event_Wait(gex_Event_t e) {
  if (e != GEX_EVENT_INVALID)
    gex_Event_Wait(e);
}
static __inline__ int gex_hyg_Event_Test(gex_Event_t e) {
  return e == GEX_EVENT_INVALID ? GASNET_OK : gex_Event_Test(e);
}
#define gex_Event_Wait(e) gex_hyg_Event_Wait(e)
#define gex_Event_Test(e) gex_hyg_Event_Test(e)

/* The name inside each expansion is the inline function, which calls the library's. */
#define gex_AD_OpNB_I32(ad, res, rank, addr, op, op1, op2, fl)                                                         \
  gex_hyg_AD_OpNB_I32(ad, res, rank, addr, op, op1, op2, fl)
#define gex_AD_OpNB_U32(ad, res, rank, addr, op, op1, op2, fl)                                                         \
  gex_hyg_AD_OpNB_U32(ad, res, rank, addr, op, op1, op2, fl)
#define gex_AD_OpNB_I64(ad, res, rank, addr, op, op1, op2, fl)                                                         \
  gex_hyg_AD_OpNB_I64(ad, res, rank, addr, op, op1, op2, fl)
#define gex_AD_OpNB_U64(ad, res, rank, addr, op, op1, op2, fl)                                                         \
  gex_hyg_AD_OpNB_U64(ad, res, rank, addr, op, op1, op2, fl)
#define gex_AD_OpNBI_I32(ad, res, rank, addr, op, op1, op2, fl)                                                        \
  gex_hyg_AD_OpNBI_I32(ad, res, rank, addr, op, op1, op2, fl)
#define gex_AD_OpNBI_U32(ad, res, rank, addr, op, op1, op2, fl)                                                        \
  gex_hyg_AD_OpNBI_U32(ad, res, rank, addr, op, op1, op2, fl)
#define gex_AD_OpNBI_I64(ad, res, rank, addr, op, op1, op2, fl)                                                        \
  gex_hyg_AD_OpNBI_I64(ad, res, rank, addr, op, op1, op2, fl)
#define gex_AD_OpNBI_U64(ad, res, rank, addr, op, op1, op2, fl)                                                        \
  gex_hyg_AD_OpNBI_U64(ad, res, rank, addr, op, op1, op2, fl)

#endif /* the client's inline path */
#endif /* GASNETEX_INLINE_H */
