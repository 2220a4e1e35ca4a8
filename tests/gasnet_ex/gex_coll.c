/* GASNet-EX teams and collectives on every path: gex_TM_Split (even/odd colors, reversed keys, a
 * rank passing no new_tm_p, a split of a split, the scratch size query) with the rank translations,
 * RMA and AMs addressed by a split team's ranks, barriers, broadcasts from every root (0, 1,
 * 4096+3 and more than a reduce slot's bytes), and reductions to one and to all for every GEX_DT_*
 * x GEX_OP_* pair, GEX_OP_USER on a user data type and GEX_OP_USER_NC (a 2x2 matrix product, which
 * does not commute) with counts 0, 1, 37 and more than a reduce slot holds, each checked against
 * the answer computed here serially; many collectives are outstanding before one wait. Teams are
 * destroyed and split again more often than there are team slots.
 *
 * With an argument it runs one fatal scene instead (CMakeLists.txt checks the message):
 *   badroot: a reduction to a root out of the team;  badop: GEX_OP_AND on GEX_DT_FLT;
 *   badbcast: a broadcast from a root out of the team; bcastwrap, reducewrap: buffers whose size
 *   wraps around the address space; badevent: a test of a value no call returned; staleevent: a
 *   test of a barrier's event after its wait, while a newer barrier is in flight; endregion: an
 *   access region ended that was never begun; crossed: members that issue a broadcast and a
 *   reduction in opposite orders (erroneous; fatal on every member, before, silently wrong data). */
#define GASNET_PAR 1
#include <gasnetex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gex_check.h"

#define BIG 9001u /* elements: more than one 32 KiB reduce slot holds, of any type */
#define MAXEV 512
#define SEG_SIZE (1u << 20)

static gex_Client_t client;
static gex_EP_t ep;
static gex_TM_t world;
static gex_Segment_t seg;
static gex_Rank_t me, n;

static void wait_all(gex_Event_t *ev, size_t count) { gex_Event_WaitAll(ev, count, 0); }
static void barrier(gex_TM_t tm) { gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)); }

/* ---- data: element i of job rank j, for every type */
static uint64_t mix(gex_Rank_t j, size_t i) {
  uint64_t x = (uint64_t)(i + 1) * 0x9E3779B97F4A7C15ull ^ (uint64_t)(j + 1) * 0xC2B2AE3D27D4EB4Full;
  return x ^ (x >> 29);
}
static double small(gex_Rank_t j, size_t i) { /* exact in float: sums, products of 16 and comparisons */
  return (double)((int)((i * 7 + j * 3 + 1) % 7) - 3);
}

static size_t dt_size(gex_DT_t dt) { return dt == GEX_DT_I32 || dt == GEX_DT_U32 || dt == GEX_DT_FLT ? 4 : 8; }
static void fill(gex_DT_t dt, void *buf, gex_Rank_t j, size_t cnt) {
  for (size_t i = 0; i < cnt; ++i) {
    switch (dt) {
    case GEX_DT_I32:
      ((int32_t *)buf)[i] = (int32_t)(uint32_t)mix(j, i);
      break;
    case GEX_DT_U32:
      ((uint32_t *)buf)[i] = (uint32_t)mix(j, i);
      break;
    case GEX_DT_I64:
      ((int64_t *)buf)[i] = (int64_t)mix(j, i);
      break;
    case GEX_DT_U64:
      ((uint64_t *)buf)[i] = mix(j, i);
      break;
    case GEX_DT_FLT:
      ((float *)buf)[i] = (float)small(j, i);
      break;
    case GEX_DT_DBL:
      ((double *)buf)[i] = small(j, i);
      break;
    }
  }
}
#define FOLD_INT(T, UT)                                                                                                \
  do {                                                                                                                 \
    T *a = (T *)acc;                                                                                                   \
    const T *b = (const T *)other;                                                                                     \
    for (size_t i = 0; i < cnt; ++i)                                                                                   \
      switch (op) {                                                                                                    \
      case GEX_OP_ADD:                                                                                                 \
        a[i] = (T)((UT)a[i] + (UT)b[i]);                                                                               \
        break;                                                                                                         \
      case GEX_OP_MULT:                                                                                                \
        a[i] = (T)((UT)a[i] * (UT)b[i]);                                                                               \
        break;                                                                                                         \
      case GEX_OP_MIN:                                                                                                 \
        a[i] = a[i] < b[i] ? a[i] : b[i];                                                                              \
        break;                                                                                                         \
      case GEX_OP_MAX:                                                                                                 \
        a[i] = a[i] > b[i] ? a[i] : b[i];                                                                              \
        break;                                                                                                         \
      case GEX_OP_AND:                                                                                                 \
        a[i] &= b[i];                                                                                                  \
        break;                                                                                                         \
      case GEX_OP_OR:                                                                                                  \
        a[i] |= b[i];                                                                                                  \
        break;                                                                                                         \
      case GEX_OP_XOR:                                                                                                 \
        a[i] ^= b[i];                                                                                                  \
        break;                                                                                                         \
      }                                                                                                                \
  } while (0)
#define FOLD_FLT(T)                                                                                                    \
  do {                                                                                                                 \
    T *a = (T *)acc;                                                                                                   \
    const T *b = (const T *)other;                                                                                     \
    for (size_t i = 0; i < cnt; ++i)                                                                                   \
      switch (op) {                                                                                                    \
      case GEX_OP_ADD:                                                                                                 \
        a[i] = a[i] + b[i];                                                                                            \
        break;                                                                                                         \
      case GEX_OP_MULT:                                                                                                \
        a[i] = a[i] * b[i];                                                                                            \
        break;                                                                                                         \
      case GEX_OP_MIN:                                                                                                 \
        a[i] = a[i] < b[i] ? a[i] : b[i];                                                                              \
        break;                                                                                                         \
      case GEX_OP_MAX:                                                                                                 \
        a[i] = a[i] > b[i] ? a[i] : b[i];                                                                              \
        break;                                                                                                         \
      }                                                                                                                \
  } while (0)
static void fold(gex_DT_t dt, gex_OP_t op, void *acc, const void *other, size_t cnt) {
  switch (dt) {
  case GEX_DT_I32:
    FOLD_INT(int32_t, uint32_t);
    break;
  case GEX_DT_U32:
    FOLD_INT(uint32_t, uint32_t);
    break;
  case GEX_DT_I64:
    FOLD_INT(int64_t, uint64_t);
    break;
  case GEX_DT_U64:
    FOLD_INT(uint64_t, uint64_t);
    break;
  case GEX_DT_FLT:
    FOLD_FLT(float);
    break;
  case GEX_DT_DBL:
    FOLD_FLT(double);
    break;
  }
}

/* ---- user operations */
static int cdata_tag;
/* GEX_DT_USER: {sum, max, count} of int64, commutative. */
typedef struct {
  int64_t sum, max, count;
} Stat;
static void stat_op(const void *arg1, void *arg2_and_out, size_t count, const void *cdata) {
  CHECK(cdata == &cdata_tag);
  const Stat *x = (const Stat *)arg1;
  Stat *y = (Stat *)arg2_and_out;
  for (size_t i = 0; i < count; ++i) {
    y[i].sum += x[i].sum;
    y[i].max = x[i].max > y[i].max ? x[i].max : y[i].max;
    y[i].count += x[i].count;
  }
}
static Stat stat_of(gex_Rank_t j, size_t i) {
  Stat s = {(int64_t)(mix(j, i) % 1000), (int64_t)(mix(j, i) % 777), 1};
  return s;
}
/* GEX_OP_USER_NC: 2x2 matrices of uint64 (wrapping), y = x * y: associative, not commutative. */
typedef struct {
  uint64_t m[4];
} Mat;
static void mat_op(const void *arg1, void *arg2_and_out, size_t count, const void *cdata) {
  CHECK(cdata == &cdata_tag);
  const Mat *x = (const Mat *)arg1;
  Mat *y = (Mat *)arg2_and_out;
  for (size_t i = 0; i < count; ++i) {
    Mat r;
    r.m[0] = x[i].m[0] * y[i].m[0] + x[i].m[1] * y[i].m[2];
    r.m[1] = x[i].m[0] * y[i].m[1] + x[i].m[1] * y[i].m[3];
    r.m[2] = x[i].m[2] * y[i].m[0] + x[i].m[3] * y[i].m[2];
    r.m[3] = x[i].m[2] * y[i].m[1] + x[i].m[3] * y[i].m[3];
    y[i] = r;
  }
}
static Mat mat_of(gex_Rank_t j, size_t i) {
  Mat a = {{mix(j, i) % 5 + 1, mix(j, i + 1) % 3, mix(j, i + 2) % 4, j + 2}};
  return a;
}
/* GEX_OP_USER on a built-in type: an I32 sum by the client's hand. */
static void add_i32(const void *arg1, void *arg2_and_out, size_t count, const void *cdata) {
  CHECK(cdata == &cdata_tag);
  for (size_t i = 0; i < count; ++i)
    ((int32_t *)arg2_and_out)[i] =
        (int32_t)((uint32_t)((const int32_t *)arg1)[i] + (uint32_t)((int32_t *)arg2_and_out)[i]);
}

/* ---- reductions: one case is (dt, op, count, root or all) over a team */
typedef struct {
  gex_DT_t dt;
  gex_OP_t op;
  size_t dt_sz, cnt;
  int to_one;
  gex_Rank_t root;
  void *src, *dst;
} Case;

static void fill_case(const Case *c, void *buf, gex_Rank_t j) {
  if (c->dt == GEX_DT_USER && c->op == GEX_OP_USER)
    for (size_t i = 0; i < c->cnt; ++i)
      ((Stat *)buf)[i] = stat_of(j, i);
  else if (c->dt == GEX_DT_USER)
    for (size_t i = 0; i < c->cnt; ++i)
      ((Mat *)buf)[i] = mat_of(j, i);
  else
    fill(c->dt, buf, j, c->cnt);
}

static gex_Event_t start_case(gex_TM_t tm, Case *c) {
  size_t bytes = c->dt_sz * c->cnt;
  c->src = malloc(bytes + 1);
  c->dst = malloc(bytes + 1);
  memset(c->dst, 0xEE, bytes + 1);
  fill_case(c, c->src, me);
  gex_Coll_ReduceFn_t fn = NULL;
  if (c->op == GEX_OP_USER)
    fn = c->dt == GEX_DT_USER ? stat_op : add_i32;
  else if (c->op == GEX_OP_USER_NC)
    fn = mat_op;
  if (c->to_one)
    return gex_Coll_ReduceToOneNB(tm, c->root, c->dst, c->src, c->dt, c->dt_sz, c->cnt, c->op, fn, &cdata_tag, 0);
  return gex_Coll_ReduceToAllNB(tm, c->dst, c->src, c->dt, c->dt_sz, c->cnt, c->op, fn, &cdata_tag, 0);
}

/* The serial answer: team rank 0's data (op) team rank 1's ... in team-rank order. */
static void check_case(gex_TM_t tm, const Case *c) {
  size_t bytes = c->dt_sz * c->cnt;
  gex_Rank_t size = gex_TM_QuerySize(tm);
  char *acc = malloc(bytes + 1), *other = malloc(bytes + 1);
  fill_case(c, acc, gex_TM_TranslateRankToJobrank(tm, 0));
  for (gex_Rank_t r = 1; r < size; ++r) {
    fill_case(c, other, gex_TM_TranslateRankToJobrank(tm, r));
    if (c->op == GEX_OP_USER && c->dt == GEX_DT_USER)
      stat_op(acc, other, c->cnt, &cdata_tag), memcpy(acc, other, bytes);
    else if (c->op == GEX_OP_USER_NC)
      mat_op(acc, other, c->cnt, &cdata_tag), memcpy(acc, other, bytes);
    else
      fold(c->dt, c->op == GEX_OP_USER ? GEX_OP_ADD : c->op, acc, other, c->cnt);
  }
  if (!c->to_one || gex_TM_QueryRank(tm) == c->root) {
    if (memcmp(acc, c->dst, bytes) != 0) {
      fprintf(stderr, "[%u] reduction dt %#x op %#x count %zu %s%u differs\n", (unsigned)me, (unsigned)c->dt,
              (unsigned)c->op, c->cnt, c->to_one ? "to root " : "to all", c->to_one ? (unsigned)c->root : 0u);
      CHECK(0);
    }
  } else {
    for (size_t i = 0; i < bytes; ++i) /* a non-root's dst is left alone */
      CHECK(((unsigned char *)c->dst)[i] == 0xEE);
  }
  CHECK(((unsigned char *)c->dst)[bytes] == 0xEE); /* nothing past the end */
  free(acc);
  free(other);
  free(c->src);
  free(c->dst);
}

static const gex_DT_t kDts[] = {GEX_DT_I32, GEX_DT_U32, GEX_DT_I64, GEX_DT_U64, GEX_DT_FLT, GEX_DT_DBL};
static const gex_OP_t kOps[] = {GEX_OP_ADD, GEX_OP_MULT, GEX_OP_MIN, GEX_OP_MAX, GEX_OP_AND, GEX_OP_OR, GEX_OP_XOR};

/* Every dt x op x count, to all and to a rotating root; each data type's cases all initiated
 * before one wait for all of them. `counts` lists the counts to run. */
static void test_reductions(gex_TM_t tm, const size_t *counts, size_t ncounts) {
  static Case cases[MAXEV];
  static gex_Event_t ev[MAXEV];
  gex_Rank_t size = gex_TM_QuerySize(tm);
  unsigned turn = 0;
  for (size_t d = 0; d < sizeof kDts / sizeof kDts[0]; ++d) {
    size_t k = 0;
    for (size_t o = 0; o < sizeof kOps / sizeof kOps[0]; ++o) {
      int is_float = kDts[d] == GEX_DT_FLT || kDts[d] == GEX_DT_DBL;
      if (is_float && (kOps[o] == GEX_OP_AND || kOps[o] == GEX_OP_OR || kOps[o] == GEX_OP_XOR))
        continue;
      for (size_t ci = 0; ci < ncounts; ++ci)
        for (int to_one = 0; to_one < 2; ++to_one) {
          Case c = {kDts[d], kOps[o], dt_size(kDts[d]), counts[ci], to_one, (gex_Rank_t)(turn++ % size), 0, 0};
          cases[k] = c;
          ev[k] = start_case(tm, &cases[k]);
          ++k;
        }
    }
    if (kDts[d] == GEX_DT_I32) /* GEX_OP_USER on a built-in type */
      for (size_t ci = 0; ci < ncounts; ++ci) {
        Case c = {GEX_DT_I32, GEX_OP_USER, 4, counts[ci], (int)(ci % 2), (gex_Rank_t)(turn++ % size), 0, 0};
        cases[k] = c;
        ev[k] = start_case(tm, &cases[k]);
        ++k;
      }
    wait_all(ev, k);
    for (size_t i = 0; i < k; ++i)
      check_case(tm, &cases[i]);
  }
  /* User data types: a commutative and a non-commutative operation. */
  size_t k = 0;
  for (size_t ci = 0; ci < ncounts; ++ci)
    for (int to_one = 0; to_one < 2; ++to_one) {
      Case s = {GEX_DT_USER, GEX_OP_USER, sizeof(Stat), counts[ci], to_one, (gex_Rank_t)(turn++ % size), 0, 0};
      cases[k] = s;
      ev[k] = start_case(tm, &cases[k]);
      ++k;
      Case m = {GEX_DT_USER, GEX_OP_USER_NC, sizeof(Mat), counts[ci], to_one, (gex_Rank_t)(turn++ % size), 0, 0};
      cases[k] = m;
      ev[k] = start_case(tm, &cases[k]);
      ++k;
    }
  for (size_t i = 0; i < k; ++i) /* waited one by one, in reverse: the later ones drive the earlier */
    gex_Event_Wait(ev[k - 1 - i]);
  for (size_t i = 0; i < k; ++i)
    check_case(tm, &cases[i]);
}

/* ---- broadcast: every root, several sizes, all outstanding at once; src == dst at the root too */
static unsigned char pattern(gex_Rank_t root, size_t i) { return (unsigned char)(root * 53u + i * 13u + (i >> 8) + 1); }
static void test_broadcast(gex_TM_t tm) {
  static const size_t sizes[] = {0, 1, 4096 + 3, 100003};
  enum { NS = sizeof sizes / sizeof sizes[0] };
  gex_Rank_t size = gex_TM_QuerySize(tm), tr = gex_TM_QueryRank(tm);
  for (int in_place = 0; in_place < 2; ++in_place) {
    gex_Event_t ev[MAXEV];
    unsigned char *src[MAXEV], *dst[MAXEV];
    size_t k = 0;
    for (gex_Rank_t root = 0; root < size; ++root)
      for (size_t s = 0; s < NS; ++s) {
        src[k] = malloc(sizes[s] + 1);
        dst[k] = in_place && tr == root ? src[k] : malloc(sizes[s] + 1);
        for (size_t i = 0; i < sizes[s]; ++i)
          src[k][i] = tr == root ? pattern(root, i) : 0x5A;
        if (dst[k] != src[k])
          memset(dst[k], 0xEE, sizes[s] + 1);
        else
          src[k][sizes[s]] = 0xEE;
        ev[k] = gex_Coll_BroadcastNB(tm, root, dst[k], tr == root ? src[k] : NULL, sizes[s], 0);
        ++k;
      }
    if (in_place)
      wait_all(ev, k);
    else
      for (size_t i = 0; i < k; ++i)
        while (gex_Event_Test(ev[i]) != GASNET_OK) {
        }
    k = 0;
    for (gex_Rank_t root = 0; root < size; ++root)
      for (size_t s = 0; s < NS; ++s, ++k) {
        for (size_t i = 0; i < sizes[s]; ++i)
          if (dst[k][i] != pattern(root, i)) {
            fprintf(stderr, "[%u] broadcast root %u size %zu byte %zu: %u\n", (unsigned)me, (unsigned)root, sizes[s], i,
                    dst[k][i]);
            CHECK(0);
          }
        CHECK(dst[k][sizes[s]] == 0xEE);
        if (dst[k] != src[k])
          free(dst[k]);
        free(src[k]);
      }
  }
}

/* ---- RMA and AMs by a team's ranks: each member writes to, and sends to, the next team rank */
static volatile int got_am;
static volatile gex_AM_Arg_t am_arg, am_src;
static void am_handler(gex_Token_t t, gex_AM_Arg_t a0) {
  gex_Token_Info_t info;
  gex_Token_Info(t, &info, GEX_TI_SRCRANK);
  am_arg = a0;
  am_src = (gex_AM_Arg_t)info.gex_srcrank;
  __atomic_fetch_add(&got_am, 1, __ATOMIC_SEQ_CST);
}
static gex_AM_Entry_t am_entry = {0,        (gex_AM_Fn_t)am_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL,
                                  "coll_am"};

static void test_addressing(gex_TM_t tm) {
  gex_Rank_t size = gex_TM_QuerySize(tm), tr = gex_TM_QueryRank(tm);
  gex_Rank_t next = (gex_Rank_t)((tr + 1) % size), prev = (gex_Rank_t)((tr + size - 1) % size);
  gex_Rank_t prev_job = gex_TM_TranslateRankToJobrank(tm, prev);
  char *mine = (char *)gex_Segment_QueryAddr(seg);
  void *owner = NULL;
  memset(mine, 0, 64);
  barrier(tm);
  OK(gex_Segment_QueryBound(tm, next, &owner, NULL, NULL));
  uint64_t v = 0xC0FFEE00u + me;
  gex_RMA_PutBlocking(tm, next, owner, &v, sizeof v, 0);
  got_am = 0;
  barrier(tm);
  gex_AM_RequestShort1(tm, next, am_entry.gex_index, 0, (gex_AM_Arg_t)me);
  GASNET_BLOCKUNTIL(__atomic_load_n(&got_am, __ATOMIC_SEQ_CST) >= 1);
  uint64_t got;
  memcpy(&got, mine, sizeof got);
  CHECK(got == 0xC0FFEE00u + prev_job);
  CHECK(am_arg == (gex_AM_Arg_t)prev_job && am_src == (gex_AM_Arg_t)prev_job);
  barrier(tm);
  CHECK(got_am == 1);
  /* and a get from the previous team rank's segment */
  OK(gex_Segment_QueryBound(tm, prev, &owner, NULL, NULL));
  uint64_t back = 0;
  gex_RMA_GetBlocking(tm, &back, prev, owner, sizeof back, 0);
  gex_Rank_t prev2_job = gex_TM_TranslateRankToJobrank(tm, (gex_Rank_t)((prev + size - 1) % size));
  CHECK(back == 0xC0FFEE00u + prev2_job);
  barrier(tm);
}

/* ---- teams */
static void check_team(gex_TM_t tm, const gex_Rank_t *jobs, gex_Rank_t size) {
  CHECK(gex_TM_QuerySize(tm) == size);
  int found = 0;
  for (gex_Rank_t r = 0; r < size; ++r) {
    CHECK(gex_TM_TranslateRankToJobrank(tm, r) == jobs[r]);
    CHECK(gex_TM_TranslateJobrankToRank(tm, jobs[r]) == r);
    if (jobs[r] == me) {
      CHECK(gex_TM_QueryRank(tm) == r);
      found = 1;
    }
  }
  CHECK(found);
  for (gex_Rank_t j = 0; j < n; ++j) {
    int member = 0;
    for (gex_Rank_t r = 0; r < size; ++r)
      member |= jobs[r] == j;
    if (!member)
      CHECK(gex_TM_TranslateJobrankToRank(tm, j) == GEX_RANK_INVALID);
  }
  CHECK(gex_TM_QueryClient(tm) == client && gex_TM_QueryEP(tm) == ep);
}

static void test_teams(void) {
  static const size_t counts[] = {37, BIG};
  gex_Rank_t jobs[64];
  gex_Rank_t k;
  /* The scratch size query creates nothing and answers 0. */
  gex_TM_t untouched = (gex_TM_t)&untouched;
  CHECK(gex_TM_Split(&untouched, world, 0, 0, NULL, 0, GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED) == 0);
  CHECK(untouched == (gex_TM_t)&untouched);

  /* even and odd job ranks, in job order */
  gex_TM_t parity;
  gex_TM_Split(&parity, world, (int)(me % 2), (int)me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
  k = 0;
  for (gex_Rank_t j = me % 2; j < n; j += 2)
    jobs[k++] = j;
  check_team(parity, jobs, k);

  /* every rank, keys reversed */
  gex_TM_t rev;
  gex_TM_Split(&rev, world, 7, -(int)me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
  for (k = 0; k < n; ++k)
    jobs[k] = (gex_Rank_t)(n - 1 - k);
  check_team(rev, jobs, n);

  /* the last rank does not take part; equal keys keep the parent's order */
  gex_TM_t most = GEX_TM_INVALID;
  gex_TM_Split(me == n - 1 && n > 1 ? NULL : &most, world, 3, 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
  if (me != n - 1 || n == 1) {
    gex_Rank_t size = n > 1 ? n - 1 : 1;
    for (k = 0; k < size; ++k)
      jobs[k] = k;
    check_team(most, jobs, size);
  } else {
    CHECK(most == GEX_TM_INVALID);
  }

  /* a split of the reversed team into pairs of its ranks, the pair's order reversed again */
  gex_TM_t pairs;
  gex_Rank_t rr = gex_TM_QueryRank(rev);
  gex_TM_Split(&pairs, rev, (int)(rr / 2), -(int)rr, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
  k = 0;
  for (gex_Rank_t r = rr / 2 * 2; r < rr / 2 * 2 + 2 && r < n; ++r)
    jobs[k++] = r;
  /* rev's ranks r, r+1 (job n-1-r, n-2-r), reversed: job n-2-r first */
  for (gex_Rank_t i = 0; i < k; ++i)
    jobs[i] = (gex_Rank_t)(n - 1 - (rr / 2 * 2 + (k - 1 - i)));
  check_team(pairs, jobs, k);

  /* collectives on each; the teams' collectives interleave with the world's */
  gex_TM_t teams[4] = {parity, rev, most, pairs};
  for (int t = 0; t < 4; ++t) {
    if (teams[t] == GEX_TM_INVALID) { /* the world's two barriers of this round, as the members */
      barrier(world);
      barrier(world);
      continue;
    }
    gex_Event_t ev[2] = {gex_Coll_BarrierNB(teams[t], 0), gex_Coll_BarrierNB(world, 0)};
    wait_all(ev, 2);
    test_reductions(teams[t], counts, 2);
    test_broadcast(teams[t]);
    test_addressing(teams[t]);
    barrier(world);
  }

  OK(gex_TM_Destroy(pairs, NULL, 0));
  OK(gex_TM_Destroy(rev, NULL, 0));
  if (most != GEX_TM_INVALID)
    OK(gex_TM_Destroy(most, NULL, 0));
  OK(gex_TM_Destroy(parity, NULL, 0));

  /* more splits than there are team slots at once: destroyed teams give theirs back */
  for (int i = 0; i < 80; ++i) {
    gex_TM_t t;
    gex_TM_Split(&t, world, (int)(me % 3), (int)me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    int32_t one = 1, sum = 0;
    gex_Event_Wait(gex_Coll_ReduceToAllNB(t, &sum, &one, GEX_DT_I32, 4, 1, GEX_OP_ADD, NULL, NULL, 0));
    CHECK(sum == (int32_t)gex_TM_QuerySize(t));
    OK(gex_TM_Destroy(t, NULL, i % 2 ? GEX_FLAG_GLOBALLY_QUIESCED : 0));
    if (i % 2)
      barrier(world);
  }
}

int main(int argc, char **argv) {
  const char *scene = argc > 1 ? argv[1] : "";
  OK(gex_Client_Init(&client, &ep, &world, "GEXCOLL", &argc, &argv, 0));
  me = gex_System_QueryJobRank();
  n = gex_System_QueryJobSize();
  CHECK(n <= 64);
  OK(gex_EP_RegisterHandlers(ep, &am_entry, 1));
  OK(gex_Segment_Attach(&seg, world, SEG_SIZE));
  if (strcmp(scene, "crossed") == 0) {
    /* Even ranks issue a broadcast, then a reduction of the same size; odd ranks the reverse. */
    int64_t src = 42, got = -1, mine = me, sum = 0;
    gex_Event_t e[2];
    if (me % 2 == 0) {
      e[0] = gex_Coll_BroadcastNB(world, 0, &got, &src, 8, 0);
      e[1] = gex_Coll_ReduceToAllNB(world, &sum, &mine, GEX_DT_I64, 8, 1, GEX_OP_ADD, NULL, NULL, 0);
    } else {
      e[0] = gex_Coll_ReduceToAllNB(world, &sum, &mine, GEX_DT_I64, 8, 1, GEX_OP_ADD, NULL, NULL, 0);
      e[1] = gex_Coll_BroadcastNB(world, 0, &got, &src, 8, 0);
    }
    gex_Event_WaitAll(e, 2, 0);
    printf("no fatal error: broadcast %lld, sum %lld\n", (long long)got, (long long)sum);
    return 1;
  }
  if (strcmp(scene, "") != 0) {
    if (strcmp(scene, "staleevent") == 0 && me != 0)
      barrier(world); /* rank 0's first barrier */
    if (me == 0) {
      float f = 1, g;
      if (strcmp(scene, "badroot") == 0)
        gex_Coll_ReduceToOneNB(world, n, &g, &f, GEX_DT_FLT, 4, 1, GEX_OP_ADD, NULL, NULL, 0);
      else if (strcmp(scene, "badop") == 0)
        gex_Coll_ReduceToAllNB(world, &g, &f, GEX_DT_FLT, 4, 1, GEX_OP_AND, NULL, NULL, 0);
      else if (strcmp(scene, "badbcast") == 0)
        gex_Coll_BroadcastNB(world, n + 3, &g, &f, 4, 0);
      else if (strcmp(scene, "bcastwrap") == 0)
        gex_Coll_BroadcastNB(world, 0, &g, &f, SIZE_MAX, 0);
      else if (strcmp(scene, "reducewrap") == 0)
        gex_Coll_ReduceToAllNB(world, &g, &f, GEX_DT_FLT, 4, SIZE_MAX / 4, GEX_OP_ADD, NULL, NULL, 0);
      else if (strcmp(scene, "badevent") == 0)
        gex_Event_Test((gex_Event_t)(uintptr_t)0x1234);
      else if (strcmp(scene, "staleevent") == 0) {
        /* An event synchronised already, while a newer collective is in flight (its operation and its
         * table entry may be the first one's, reused): fatal, not the newer one's answer. */
        gex_Event_t first = gex_Coll_BarrierNB(world, 0);
        gex_Event_Wait(first);
        gex_Event_t second = gex_Coll_BarrierNB(world, 0);
        (void)second;
        gex_Event_Test(first);
      } else if (strcmp(scene, "endregion") == 0)
        gex_NBI_EndAccessRegion(0);
      printf("no fatal error\n");
      return 1;
    }
    barrier(world);
    return 0;
  }
  static const size_t counts[] = {0, 1, 37, BIG};
  barrier(world);
  test_reductions(world, counts, 4);
  test_broadcast(world);
  test_addressing(world);
  test_teams();
  barrier(world);
  if (me == 0) {
    printf("SUCCESS gex_coll\n");
    fflush(stdout);
  }
  gasnet_exit(0);
  return 0;
}
