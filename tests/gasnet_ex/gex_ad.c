/* GASNet-EX remote atomics (gex_AD_*) on every path: each rank targets the next rank's segment
 * (a node peer, or a rank of another node), and rank 0's words take every rank's operations.
 *  - serial: every opcode on every data type (bit-wise ones on integers), in the NB and NBI forms,
 *    against the same expression evaluated here: the fetched value is the word before, the word
 *    after (read back with GEX_OP_GET) is the expression, a non-fetching call leaves result_p alone;
 *  - hammer: every rank, two threads each, FADD (NB) and FINC (NBI) on one U64 word and FADD on one
 *    DBL word of rank 0: the totals are exact, and the old values of the U64 word, gathered at rank 0,
 *    are exactly 0 .. total-1 (no two operations saw the same value: one atomic sequence);
 *  - a counter incremented with FCAS loops (I64) ends exact; FMAX (I32) ends at the maximum;
 *  - SWAP tokens through one word: the old values and the final value are each token once;
 *  - a thread that ends with LEFT_OPS fetching NBI atomics unsynced, their results due in its own
 *    stack: every one is applied once at the target, and none writes into the dead thread's stack
 *    (across nodes, a reply that comes after the thread ended has nowhere to go but the library's
 *    own buffer; ASan watches it in the hybrid runs);
 *  - queries, client data, GEX_FLAG_RANK_IS_JOBRANK and _AD_MY_RANK, GEX_OP_TO_(NON)FETCHING, an
 *    atomic's event in gex_Event_WaitAll beside an RMA event, and NBI atomics in an access region.
 *
 * With an argument it runs one fatal scene instead (CMakeLists.txt checks the message): badop (an
 * opcode not in the domain), badalign (an unaligned target), badseg (a target past the segment),
 * baddt (a data type other than the domain's), badcreate (GEX_DT_USER), strayad and strayquery (a
 * handle that no gex_AD_Create returned), insidead (an address inside a domain's object). */
#define GASNET_PAR 1
#include <gasnetex.h>
#ifndef GEX_AD_NAME
#define GEX_AD_NAME "gex_ad" /* gex_ad_lib: built with GASNET_HYG_NO_INLINE */
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gex_check.h"

#define MAXR 16
#define THREADS 2
#define HAMMER 400 /* per thread: HAMMER FADD and HAMMER FINC on the U64 word */
#define CAS_OPS 100
#define SWAPS 100
/* Segment layout, every rank alike (offsets in bytes). */
#define SERIAL_OFF 0 /* 64 bytes per initiator: the words the serial test uses */
#define HOT_U64 4096 /* rank 0: the hammered words, each on its own line */
#define HOT_DBL (HOT_U64 + 128)
#define CAS_WORD (HOT_U64 + 256)
#define MAX_WORD (HOT_U64 + 384)
#define SWAP_WORD (HOT_U64 + 512)
#define LEFT_WORD (HOT_U64 + 640) /* rank 0: the atomics of threads that ended unsynced */
#define LEFT_OPS 64
#define OLDS_OFF 8192 /* rank 0: each rank's old values of the U64 word, then its SWAP olds */
#define OLDS_PER_RANK (THREADS * 2 * HAMMER)
#define SWAP_OLDS_OFF (OLDS_OFF + MAXR * OLDS_PER_RANK * 8)
#define SEG_SIZE (1u << 20)

static gex_Client_t client;
static gex_EP_t ep;
static gex_TM_t tm;
static gex_Segment_t seg;
static gex_Rank_t me, n;
static char *base[MAXR]; /* every rank's segment, as its owner addresses it */
static uintptr_t seg_size;

static void barrier(void) { gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)); }

/* ---- serial: one function per data type. The expected word after `op` on `v` with operands a, b
 * (C rules, in the type itself). */
#define BITWISE_CASES                                                                                                  \
  case GEX_OP_AND:                                                                                                     \
  case GEX_OP_FAND:                                                                                                    \
    return v & a;                                                                                                      \
  case GEX_OP_OR:                                                                                                      \
  case GEX_OP_FOR:                                                                                                     \
    return v | a;                                                                                                      \
  case GEX_OP_XOR:                                                                                                     \
  case GEX_OP_FXOR:                                                                                                    \
    return v ^ a;
#define BITS_I32 BITWISE_CASES
#define BITS_U32 BITWISE_CASES
#define BITS_I64 BITWISE_CASES
#define BITS_U64 BITWISE_CASES
#define BITS_FLT
#define BITS_DBL

static const gex_OP_t all_ops[] = {GEX_OP_GET,  GEX_OP_SET,  GEX_OP_SWAP, GEX_OP_CAS,  GEX_OP_FCAS,
                                   GEX_OP_ADD,  GEX_OP_FADD, GEX_OP_SUB,  GEX_OP_FSUB, GEX_OP_INC,
                                   GEX_OP_FINC, GEX_OP_DEC,  GEX_OP_FDEC, GEX_OP_MULT, GEX_OP_FMULT,
                                   GEX_OP_MIN,  GEX_OP_FMIN, GEX_OP_MAX,  GEX_OP_FMAX, GEX_OP_AND,
                                   GEX_OP_FAND, GEX_OP_OR,   GEX_OP_FOR,  GEX_OP_XOR,  GEX_OP_FXOR};
#define NOPS (sizeof all_ops / sizeof all_ops[0])
#define BITWISE (GEX_OP_AND | GEX_OP_FAND | GEX_OP_OR | GEX_OP_FOR | GEX_OP_XOR | GEX_OP_FXOR)
#define FETCHING                                                                                                       \
  (GEX_OP_GET | GEX_OP_SWAP | GEX_OP_FCAS | GEX_OP_FADD | GEX_OP_FSUB | GEX_OP_FINC | GEX_OP_FDEC | GEX_OP_FMULT |     \
   GEX_OP_FMIN | GEX_OP_FMAX | GEX_OP_FAND | GEX_OP_FOR | GEX_OP_FXOR)

/* Waits for an NBI operation of `op`: SET with the puts, GET with the gets, the rest as RMW. */
static void nbi_wait(gex_OP_t op) {
  gex_EC_t ec = op == GEX_OP_SET ? GEX_EC_PUT : op == GEX_OP_GET ? GEX_EC_GET : GEX_EC_RMW;
  if (me % 2 == 0) {
    while (gex_NBI_Test(ec, 0) != GASNET_OK)
      gasnet_AMPoll();
  } else {
    gex_NBI_Wait(ec, 0);
  }
}
static void event_wait(gex_Event_t e, int k) {
  if (k % 2 == 0) {
    gex_Event_Wait(e);
  } else {
    while (gex_Event_Test(e) != GASNET_OK)
      gasnet_AMPoll();
  }
}

#define DEFINE_SERIAL(NAME, TYPE, V0, V1, V2, V3, V4, V5)                                                              \
  static TYPE expect_##NAME(gex_OP_t op, TYPE v, TYPE a, TYPE b) {                                                     \
    switch (op) {                                                                                                      \
    case GEX_OP_GET:                                                                                                   \
      return v;                                                                                                        \
    case GEX_OP_SET:                                                                                                   \
    case GEX_OP_SWAP:                                                                                                  \
      return a;                                                                                                        \
    case GEX_OP_CAS:                                                                                                   \
    case GEX_OP_FCAS:                                                                                                  \
      return v == a ? b : v;                                                                                           \
    case GEX_OP_ADD:                                                                                                   \
    case GEX_OP_FADD:                                                                                                  \
      return (TYPE)(v + a);                                                                                            \
    case GEX_OP_SUB:                                                                                                   \
    case GEX_OP_FSUB:                                                                                                  \
      return (TYPE)(v - a);                                                                                            \
    case GEX_OP_INC:                                                                                                   \
    case GEX_OP_FINC:                                                                                                  \
      return (TYPE)(v + 1);                                                                                            \
    case GEX_OP_DEC:                                                                                                   \
    case GEX_OP_FDEC:                                                                                                  \
      return (TYPE)(v - 1);                                                                                            \
    case GEX_OP_MULT:                                                                                                  \
    case GEX_OP_FMULT:                                                                                                 \
      return (TYPE)(v * a);                                                                                            \
    case GEX_OP_MIN:                                                                                                   \
    case GEX_OP_FMIN:                                                                                                  \
      return v < a ? v : a;                                                                                            \
    case GEX_OP_MAX:                                                                                                   \
    case GEX_OP_FMAX:                                                                                                  \
      return v > a ? v : a;                                                                                            \
      BITS_##NAME                                                                                                      \
    }                                                                                                                  \
    CHECK(!"an opcode without an expression");                                                                         \
    return v;                                                                                                          \
  }                                                                                                                    \
  static long serial_##NAME(gex_DT_t dt, int is_float) {                                                               \
    static const TYPE vals[][3] = {{V0, V1, V2}, {V3, V4, V5}, {V1, V1, V2}, {V2, V0, V4}};                            \
    gex_OP_t ops = 0;                                                                                                  \
    gex_AD_t ad;                                                                                                       \
    gex_Rank_t tgt = (me + 1) % n;                                                                                     \
    TYPE *word = (TYPE *)(base[tgt] + SERIAL_OFF + 64 * me + 8);                                                       \
    long done = 0;                                                                                                     \
    size_t i, k;                                                                                                       \
    for (i = 0; i < NOPS; ++i)                                                                                         \
      if (!is_float || (all_ops[i] & BITWISE) == 0)                                                                    \
        ops |= all_ops[i];                                                                                             \
    gex_AD_Create(&ad, tm, dt, ops, 0);                                                                                \
    CHECK(gex_AD_QueryDT(ad) == dt && gex_AD_QueryOps(ad) == ops && gex_AD_QueryTM(ad) == tm);                         \
    for (i = 0; i < NOPS; ++i) {                                                                                       \
      gex_OP_t op = all_ops[i];                                                                                        \
      if ((ops & op) == 0)                                                                                             \
        continue;                                                                                                      \
      for (k = 0; k < sizeof vals / sizeof vals[0]; ++k) {                                                             \
        const TYPE v = vals[k][0], a = vals[k][1], b = vals[k][2];                                                     \
        const TYPE sentinel = (TYPE)77, want = expect_##NAME(op, v, a, b);                                             \
        TYPE result = sentinel, now = sentinel;                                                                        \
        gex_Event_Wait(gex_AD_OpNB_##NAME(ad, NULL, tgt, word, GEX_OP_SET, v, 0, 0));                                  \
        if ((i + k) % 2 == 0) {                                                                                        \
          event_wait(gex_AD_OpNB_##NAME(ad, &result, tgt, word, op, a, b, GEX_FLAG_AD_ACQ | GEX_FLAG_AD_REL), (int)k); \
        } else {                                                                                                       \
          OK(gex_AD_OpNBI_##NAME(ad, &result, tgt, word, op, a, b, 0));                                                \
          nbi_wait(op);                                                                                                \
        }                                                                                                              \
        if (op & FETCHING) {                                                                                           \
          CHECK(memcmp(&result, &v, sizeof v) == 0);                                                                   \
        } else {                                                                                                       \
          CHECK(memcmp(&result, &sentinel, sizeof v) == 0);                                                            \
        }                                                                                                              \
        OK(gex_AD_OpNBI_##NAME(ad, &now, tgt, word, GEX_OP_GET, 0, 0, 0));                                             \
        gex_NBI_Wait(GEX_EC_GET, 0);                                                                                   \
        if (memcmp(&now, &want, sizeof now) != 0) {                                                                    \
          fprintf(stderr, "[%u] %s op %#x on %g with %g, %g: %g, expected %g\n", (unsigned)me, #NAME, (unsigned)op,    \
                  (double)v, (double)a, (double)b, (double)now, (double)want);                                         \
          CHECK(0);                                                                                                    \
        }                                                                                                              \
        ++done;                                                                                                        \
      }                                                                                                                \
    }                                                                                                                  \
    gex_AD_Destroy(ad);                                                                                                \
    return done;                                                                                                       \
  }
DEFINE_SERIAL(I32, int32_t, -5, 7, 3, 123456789, -2, 11)
DEFINE_SERIAL(U32, uint32_t, 5u, 7u, 3u, 4294967295u, 2u, 12u)
DEFINE_SERIAL(I64, int64_t, -5, 7, 3, 1234567890123ll, -3, 11)
DEFINE_SERIAL(U64, uint64_t, 5u, 7u, 3u, 18446744073709551615ull, 2u, 12u)
DEFINE_SERIAL(FLT, float, 1.5f, 2.25f, -3.0f, -0.5f, 3.0f, 1e30f)
DEFINE_SERIAL(DBL, double, 1.5, 2.25, -3.0, -0.5, 3.0, 1e300)

static void test_serial(void) {
  long done = serial_I32(GEX_DT_I32, 0) + serial_U32(GEX_DT_U32, 0) + serial_I64(GEX_DT_I64, 0) +
              serial_U64(GEX_DT_U64, 0) + serial_FLT(GEX_DT_FLT, 1) + serial_DBL(GEX_DT_DBL, 1);
  CHECK(done == 4 * (4 * 25 + 2 * 19)); /* 4 operand sets; 25 opcodes on integers, 19 on floats */
  barrier();
}

/* ---- hammer: THREADS threads per rank on rank 0's words. */
static gex_AD_t ad_u64, ad_dbl;
static uint64_t olds[THREADS][2 * HAMMER];
static void *hammer(void *arg) {
  int t = (int)(intptr_t)arg, i;
  uint64_t *hot = (uint64_t *)(base[0] + HOT_U64);
  double *hot_d = (double *)(base[0] + HOT_DBL);
  for (i = 0; i < HAMMER; ++i) {
    gex_Event_t e[2];
    e[0] = gex_AD_OpNB_U64(ad_u64, &olds[t][2 * i], 0, hot, GEX_OP_FADD, 1, 0, 0);
    e[1] = gex_AD_OpNB_DBL(ad_dbl, NULL, 0, hot_d, GEX_OP_ADD, 1.0, 0, 0);
    gex_Event_WaitAll(e, 2, 0);
    CHECK(e[0] == GEX_EVENT_INVALID && e[1] == GEX_EVENT_INVALID);
    OK(gex_AD_OpNBI_U64(ad_u64, &olds[t][2 * i + 1], 0, hot, GEX_OP_FINC, 0, 0, GEX_FLAG_RANK_IS_JOBRANK));
    if (i % 7 == 0) /* several in flight at once, then all of them */
      gex_NBI_Wait(GEX_EC_RMW, 0);
  }
  gex_NBI_Wait(GEX_EC_ALL, 0);
  return NULL;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static void test_hammer(void) {
  pthread_t th[THREADS];
  int t;
  const uint64_t total = (uint64_t)n * THREADS * 2 * HAMMER;
  gex_AD_Create(&ad_u64, tm, GEX_DT_U64, GEX_OP_FADD | GEX_OP_FINC | GEX_OP_GET | GEX_OP_SET, GEX_FLAG_AD_FAVOR_REMOTE);
  gex_AD_Create(&ad_dbl, tm, GEX_DT_DBL, GEX_OP_ADD | GEX_OP_GET, 0);
  CHECK(gex_AD_QueryFlags(ad_u64) == GEX_FLAG_AD_FAVOR_REMOTE);
  if (me == 0) {
    memset(base[0] + HOT_U64, 0, 256);
  }
  barrier();
  for (t = 0; t < THREADS; ++t)
    CHECK(pthread_create(&th[t], NULL, hammer, (void *)(intptr_t)t) == 0);
  for (t = 0; t < THREADS; ++t)
    CHECK(pthread_join(th[t], NULL) == 0);
  /* Every rank's old values to rank 0, for the sequence check. */
  OK(gex_RMA_PutBlocking(tm, 0, base[0] + OLDS_OFF + (size_t)me * OLDS_PER_RANK * 8, olds, sizeof olds, 0));
  barrier();
  if (me == 0) {
    uint64_t got = 0, i;
    double got_d = 0;
    uint64_t *all = (uint64_t *)(base[0] + OLDS_OFF);
    gex_Event_Wait(gex_AD_OpNB_U64(ad_u64, &got, 0, base[0] + HOT_U64, GEX_OP_GET, 0, 0, GEX_FLAG_AD_MY_RANK));
    gex_Event_Wait(gex_AD_OpNB_DBL(ad_dbl, &got_d, 0, base[0] + HOT_DBL, GEX_OP_GET, 0, 0, 0));
    if (got != total || got_d != (double)(total / 2))
      fprintf(stderr, "hammer: %llu and %g of %llu\n", (unsigned long long)got, got_d, (unsigned long long)total);
    CHECK(got == total && got_d == (double)(total / 2)); /* one DBL ADD per two U64 operations */
    qsort(all, total, sizeof *all, cmp_u64);
    for (i = 0; i < total; ++i)
      CHECK(all[i] == i);
  }
  barrier();
  gex_AD_Destroy(ad_u64);
  gex_AD_Destroy(ad_dbl);
}

/* ---- a counter of FCAS loops, FMAX, SWAP tokens: on the last rank's and rank 0's words. */
static void test_cas_max_swap(void) {
  gex_AD_t ad_cas, ad_max, ad_swap;
  gex_Rank_t last = n - 1;
  int64_t *counter = (int64_t *)(base[last] + CAS_WORD);
  int32_t *maxw = (int32_t *)(base[0] + MAX_WORD);
  int64_t *swapw = (int64_t *)(base[0] + SWAP_WORD);
  int64_t swap_olds[SWAPS];
  int i;
  gex_AD_Create(&ad_cas, tm, GEX_DT_I64, GEX_OP_GET | GEX_OP_FCAS | GEX_OP_SET, 0);
  gex_AD_Create(&ad_max, tm, GEX_DT_I32, GEX_OP_FMAX | GEX_OP_SET | GEX_OP_GET, 0);
  gex_AD_Create(&ad_swap, tm, GEX_DT_I64, GEX_OP_SWAP | GEX_OP_SET | GEX_OP_GET, 0);
  if (me == 0) {
    gex_Event_Wait(gex_AD_OpNB_I64(ad_cas, NULL, last, counter, GEX_OP_SET, 0, 0, 0));
    gex_Event_Wait(gex_AD_OpNB_I32(ad_max, NULL, 0, maxw, GEX_OP_SET, -1000, 0, 0));
    gex_Event_Wait(gex_AD_OpNB_I64(ad_swap, NULL, 0, swapw, GEX_OP_SET, -1, 0, 0));
  }
  barrier();
  for (i = 0; i < CAS_OPS; ++i) {
    int64_t guess = 0, old = 0;
    gex_Event_Wait(gex_AD_OpNB_I64(ad_cas, &guess, last, counter, GEX_OP_GET, 0, 0, 0));
    for (;;) {
      gex_Event_Wait(gex_AD_OpNB_I64(ad_cas, &old, last, counter, GEX_OP_FCAS, guess, guess + 1, 0));
      if (old == guess)
        break;
      guess = old;
    }
    {
      int32_t before = 0, mine = (int32_t)(me * 1000 + i);
      gex_Event_Wait(gex_AD_OpNB_I32(ad_max, &before, 0, maxw, GEX_OP_FMAX, mine, 0, 0));
      CHECK(before >= -1000);
    }
    gex_Event_Wait(gex_AD_OpNB_I64(ad_swap, &swap_olds[i], 0, swapw, GEX_OP_SWAP, (int64_t)me * SWAPS + i, 0, 0));
  }
  OK(gex_RMA_PutBlocking(tm, 0, base[0] + SWAP_OLDS_OFF + (size_t)me * SWAPS * 8, swap_olds, sizeof swap_olds, 0));
  barrier();
  if (me == 0) {
    int64_t count = 0, final_swap = 0;
    int32_t max = 0;
    static int seen[MAXR * SWAPS + 1];
    int64_t *all = (int64_t *)(base[0] + SWAP_OLDS_OFF);
    gex_Rank_t r;
    gex_Event_Wait(gex_AD_OpNB_I64(ad_cas, &count, last, counter, GEX_OP_GET, 0, 0, 0));
    CHECK(count == (int64_t)n * CAS_OPS);
    gex_Event_Wait(gex_AD_OpNB_I32(ad_max, &max, 0, maxw, GEX_OP_GET, 0, 0, 0));
    CHECK(max == (int32_t)((n - 1) * 1000 + CAS_OPS - 1));
    gex_Event_Wait(gex_AD_OpNB_I64(ad_swap, &final_swap, 0, swapw, GEX_OP_GET, 0, 0, 0));
    /* The initial -1 and every token: each exactly once among the old values and the final one. */
    memset(seen, 0, sizeof seen);
    for (r = 0; r < n * SWAPS; ++r) {
      CHECK(all[r] >= -1 && all[r] < (int64_t)n * SWAPS);
      ++seen[all[r] + 1];
    }
    CHECK(final_swap >= 0 && final_swap < (int64_t)n * SWAPS);
    ++seen[final_swap + 1];
    for (r = 0; r <= n * SWAPS; ++r)
      CHECK(seen[r] == 1);
  }
  barrier();
  gex_AD_Destroy(ad_cas);
  gex_AD_Destroy(ad_max);
  gex_AD_Destroy(ad_swap);
}

/* ---- the rest: client data, a jobrank target, an atomic's event beside an RMA event. */
static void test_misc(void) {
  gex_AD_t ad;
  gex_Rank_t tgt = (me + 1) % n;
  uint32_t *word = (uint32_t *)(base[tgt] + SERIAL_OFF + 64 * me + 16);
  uint32_t old = 0, x = 0x01020304u;
  gex_Event_t e[2];
  int tag = 0;
  CHECK(GEX_OP_TO_FETCHING(GEX_OP_SET) == GEX_OP_SWAP && GEX_OP_TO_NONFETCHING(GEX_OP_SWAP) == GEX_OP_SET);
  CHECK(GEX_OP_TO_FETCHING(GEX_OP_ADD) == GEX_OP_FADD && GEX_OP_TO_NONFETCHING(GEX_OP_FCAS) == GEX_OP_CAS);
  gex_AD_Create(&ad, tm, GEX_DT_U32, GEX_OP_SET | GEX_OP_FXOR | GEX_OP_GET, GEX_FLAG_AD_FAVOR_MY_NBRHD);
  CHECK(gex_AD_QueryCData(ad) == NULL);
  gex_AD_SetCData(ad, &tag);
  CHECK(gex_AD_QueryCData(ad) == &tag);
  OK(gex_AD_OpNBI_U32(ad, NULL, tgt, word, GEX_OP_SET, 0xff, 0, GEX_FLAG_RANK_IS_JOBRANK));
  gex_NBI_Wait(GEX_EC_PUT, 0);
  e[0] = gex_RMA_PutNB(tm, tgt, base[tgt] + SERIAL_OFF + 64 * me + 32, &x, sizeof x, GEX_EVENT_DEFER, 0);
  e[1] = gex_AD_OpNB_U32(ad, &old, tgt, word, GEX_OP_FXOR, 0x0f, 0, 0);
  gex_Event_WaitAll(e, 2, 0);
  CHECK(old == 0xff);
  gex_Event_Wait(gex_AD_OpNB_U32(ad, &old, tgt, word, GEX_OP_GET, 0, 0, 0));
  CHECK(old == 0xf0);
  OK(gex_RMA_GetBlocking(tm, &old, tgt, base[tgt] + SERIAL_OFF + 64 * me + 32, sizeof old, 0));
  CHECK(old == x);
  /* NBI atomics inside an access region belong to the region's event, not to the NBI sets: once it
   * is complete, so are they, with their old values in place (in either order). */
  {
    uint32_t region_olds[2] = {0, 0};
    OK(gex_AD_OpNBI_U32(ad, NULL, tgt, word, GEX_OP_SET, 7, 0, 0));
    gex_NBI_Wait(GEX_EC_PUT, 0);
    gex_NBI_BeginAccessRegion(0);
    OK(gex_AD_OpNBI_U32(ad, &region_olds[0], tgt, word, GEX_OP_FXOR, 1, 0, 0));
    OK(gex_AD_OpNBI_U32(ad, &region_olds[1], tgt, word, GEX_OP_FXOR, 2, 0, 0));
    event_wait(gex_NBI_EndAccessRegion(0), me);
    CHECK((region_olds[0] == 7 && region_olds[1] == 6) || (region_olds[1] == 7 && region_olds[0] == 5));
    CHECK(gex_NBI_Test(GEX_EC_RMW, 0) == GASNET_OK);
    gex_Event_Wait(gex_AD_OpNB_U32(ad, &old, tgt, word, GEX_OP_GET, 0, 0, 0));
    CHECK(old == 4);
  }
  gex_AD_Destroy(ad);
  barrier();
}

/* A fatal scene: rank 0 makes the bad call, the others wait. */
static void scene(const char *name) {
  gex_AD_t ad;
  gex_Rank_t last = n - 1;
  gex_AD_Create(&ad, tm, GEX_DT_U64, GEX_OP_FADD | GEX_OP_GET, 0);
  if (me == 0) {
    uint64_t old = 0;
    if (strcmp(name, "badop") == 0) /* FINC is not in the domain */
      gex_Event_Wait(gex_AD_OpNB_U64(ad, &old, last, base[last] + 64, GEX_OP_FINC, 0, 0, 0));
    else if (strcmp(name, "badalign") == 0)
      gex_AD_OpNBI_U64(ad, &old, last, base[last] + 68, GEX_OP_FADD, 1, 0, 0);
    else if (strcmp(name, "badseg") == 0) /* the word right after the segment */
      gex_Event_Wait(gex_AD_OpNB_U64(ad, &old, last, base[last] + seg_size, GEX_OP_FADD, 1, 0, 0));
    else if (strcmp(name, "baddt") == 0) {
      int64_t o = 0;
      gex_Event_Wait(gex_AD_OpNB_I64(ad, &o, last, base[last] + 64, GEX_OP_FADD, 1, 0, 0));
    } else if (strcmp(name, "strayad") == 0) { /* no domain at all */
      gex_Event_Wait(gex_AD_OpNB_U64((gex_AD_t)(uintptr_t)0x1234, &old, last, base[last] + 64, GEX_OP_FADD, 1, 0, 0));
    } else if (strcmp(name, "insidead") == 0) { /* an address inside a domain */
      gex_AD_OpNBI_U64((gex_AD_t)(void *)((char *)ad + 8), &old, last, base[last] + 64, GEX_OP_FADD, 1, 0, 0);
    } else if (strcmp(name, "strayquery") == 0) {
      (void)gex_AD_QueryDT((gex_AD_t)(uintptr_t)0xdead0000);
    } else if (strcmp(name, "badcreate") == 0) {
      gex_AD_t bad;
      gex_AD_Create(&bad, tm, GEX_DT_USER, GEX_OP_FADD, 0);
    }
    printf("scene %s: no fatal error\n", name);
    fflush(stdout);
  }
  barrier();
}

/* ---- atomics a thread leaves unsynced when it ends. */
static void *leave_unsynced(void *arg) {
  uint64_t results[LEFT_OPS]; /* gone when the thread ends, before the replies come */
  int i;
  (void)arg;
  for (i = 0; i < LEFT_OPS; ++i)
    OK(gex_AD_OpNBI_U64(ad_u64, &results[i], 0, base[0] + LEFT_WORD, GEX_OP_FADD, 1, 0, 0));
  return NULL;
}

static void test_left_unsynced(void) {
  pthread_t th;
  uint64_t got = 0;
  const uint64_t total = (uint64_t)n * LEFT_OPS;
  gex_AD_Create(&ad_u64, tm, GEX_DT_U64, GEX_OP_FADD | GEX_OP_GET, 0);
  if (me == 0)
    memset(base[0] + LEFT_WORD, 0, 8);
  barrier();
  CHECK(pthread_create(&th, NULL, leave_unsynced, NULL) == 0);
  CHECK(pthread_join(th, NULL) == 0);
  /* Every rank's atomics arrive: the polls serve them at rank 0 and take in the abandoned
   * replies everywhere. A lost one hangs here (the test's timeout). */
  do {
    gasnet_AMPoll();
    gex_Event_Wait(gex_AD_OpNB_U64(ad_u64, &got, 0, base[0] + LEFT_WORD, GEX_OP_GET, 0, 0, 0));
  } while (got < total);
  CHECK(got == total);
  barrier();
  gex_AD_Destroy(ad_u64);
}

int main(int argc, char **argv) {
  gex_Rank_t r;
  OK(gex_Client_Init(&client, &ep, &tm, "GEXAD", &argc, &argv, 0));
  me = gex_TM_QueryRank(tm);
  n = gex_TM_QuerySize(tm);
  CHECK(n <= MAXR);
  OK(gex_Segment_Attach(&seg, tm, SEG_SIZE));
  for (r = 0; r < n; ++r) {
    void *owner = NULL;
    uintptr_t size = 0;
    OK(gex_Segment_QueryBound(tm, r, &owner, NULL, &size));
    base[r] = (char *)owner;
    seg_size = size;
  }
  if (argc > 1) {
    scene(argv[1]);
    return 0;
  }
  test_serial();
  test_hammer();
  test_cas_max_swap();
  test_left_unsynced();
  test_misc();
  barrier();
  if (me == 0) {
    printf("SUCCESS %s\n", GEX_AD_NAME);
    fflush(stdout);
  }
  gasnet_exit(0);
  return 0;
}
