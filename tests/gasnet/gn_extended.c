/* Extended API [G1 §3] and the job queries around it [G1 §2.2]:
 * - after attach, the inline node path's table is published where this program reads it;
 * - before attach: gasnet_getMaxLocalSegmentSize / gasnet_getMaxGlobalSegmentSize (nonzero, page
 *   multiples, global <= local; node 0 asks once more than the others, which must not block it;
 *   the ranks of the host together get no more than 85% of its memory; every node gets the same
 *   global figure, checked after attach as a named barrier), gasnet_getenv (PATH as the spawner
 *   has it, unset names give NULL, a prefix of a name is not the name), gasnet_ErrorName / gasnet_ErrorDesc; gasnet_attach with
 *   a segsize that is no page multiple gives GASNET_ERR_BAD_ARG and may then be retried;
 * - gasnet_getSegmentInfo and gasnet_getNodeInfo (every node of my supernode is read through
 *   addr + offset; every node sees the same table);
 * - every node writes, into its own slot of every node's segment (itself included), pattern
 *   ranges with every put flavour (blocking, bulk, nb, nb_bulk, nbi, nbi_bulk, val, nb_val,
 *   nbi_val, access regions) and memset ranges (blocking, nb, nbi), synced by every sync call
 *   (wait/try, single/all/some with GASNET_INVALID_HANDLE mixed in, NBI puts/gets/all); after a
 *   barrier every node checks every byte of every slot it holds (written ranges and the untouched
 *   fill around them), then reads its slots and the owners' pattern regions back with every get
 *   flavour (get, get_bulk, nb, nb_bulk, nbi, nbi_bulk, val, nb_val), and with one access region
 *   over every node;
 * - under GASNET_PAR, two threads at once, each with its own handles and NBI set, write, sync and
 *   read back their own cells of every node;
 * - the try forms on many operations in flight at once (gets of every node, puts then gets of my
 *   cells): each handle's data is checked the moment a try_syncnb_some / try_syncnb_all /
 *   try_syncnb turns it into GASNET_INVALID_HANDLE, and an NBI try_syncnbi_gets that says OK has
 *   brought every byte; a try on a put that an earlier sync of its target already covered; the
 *   GASNET_ERR_NOT_READY answers seen (the MPI path, whose gets are MPI_Rget requests, can give
 *   them) are counted;
 * - a dead handle is fatal, naming the node and the call [G1 section 3.3.3.1]: a never-issued one,
 *   a valget handle synced twice, and (across nodes) an explicit handle synced twice; each in a
 *   forked copy of this process, which must die by SIGABRT with that message. */
#include "gn_util.h"

#include <limits.h>
#ifdef GASNET_PAR
#include <pthread.h>
#endif
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define SLOT ((size_t)4 << 20) /* one sender's slot of a segment, and the owner's pattern region */
#define FILL 0xEEu             /* what the owner puts in every slot before anyone writes */
#define GARBAGE 0x77           /* what a non-bulk source holds once its put returned */
#define MAX_RANGES 512
#define MAX_NODES 1024

static gasnet_seginfo_t g_seg[MAX_NODES + 1];
static unsigned me, nn;

/* The bytes of src's slot at dst, the owner's pattern region, and the memset values. None of the
 * pattern region's bytes is 0, so a value get that reads too far shows in the high bytes. */
static unsigned char pat(unsigned src, unsigned dst, size_t off) {
  return (unsigned char)(src * 37u + dst * 101u + off * 7u + (off >> 9) * 13u + (off >> 17) + 1u);
}
static unsigned char own(unsigned node, size_t off) {
  return (unsigned char)(1u + (node * 53u + off * 11u + (off >> 8) * 3u) % 255u);
}
static unsigned char mval(unsigned src, unsigned dst, unsigned k) {
  const unsigned char v = (unsigned char)(0x30u + src * 17u + dst * 5u + k * 29u);
  return v == FILL ? (unsigned char)(v ^ 1u) : v;
}

static char *slot_addr(unsigned node, unsigned src) { return (char *)g_seg[node].addr + (size_t)src * SLOT; }
static char *own_addr(unsigned node) { return (char *)g_seg[node].addr + (size_t)nn * SLOT; }
/* The scratch region after it: a cell per (sender, thread) for the threaded part. */
#define NTHREADS 2
static size_t cell_size(void) { return SLOT / ((size_t)nn * NTHREADS) / 8 * 8; }
static char *cell_addr(unsigned node, unsigned src, unsigned t) {
  return (char *)g_seg[node].addr + (size_t)(nn + 1) * SLOT + ((size_t)src * NTHREADS + t) * cell_size();
}

/* ---- the layout of a slot: ranges handed out in program order, the same for every pair. A gap
 * of at least 3 bytes of fill separates them, so a write past either end shows. */
typedef struct {
  size_t off, len;
  int mset; /* -1: pattern bytes; else the memset variant */
} range_t;
static range_t g_ranges[MAX_RANGES];
static int g_nranges;
static size_t g_cursor;
static unsigned g_mset_k;

static size_t alloc_range(size_t len, size_t align, int odd, int mset) {
  size_t o = g_cursor + 3;
  o = (o + align - 1) / align * align;
  if (odd && o % 2 == 0)
    ++o;
  GN_CHECK(o + len <= SLOT && g_nranges < MAX_RANGES);
  g_ranges[g_nranges].off = o;
  g_ranges[g_nranges].len = len;
  g_ranges[g_nranges].mset = mset;
  ++g_nranges;
  g_cursor = o + len;
  return o;
}

/* The sender's view of the current destination. */
static unsigned g_d;
static char *g_base;        /* slot[me] of g_d */
static unsigned char *g_sb; /* g_sb[o] == pat(me, g_d, o) */
static unsigned char *g_tmp[256];
static int g_ntmp;

static size_t P(size_t len, size_t align, int odd) { return alloc_range(len, align, odd, -1); }
static size_t M(size_t len, unsigned char *val) {
  const unsigned k = g_mset_k++;
  *val = mval(me, g_d, k);
  return alloc_range(len, 1, 0, (int)k);
}
/* A private copy of pattern bytes for a non-bulk put, overwritten once the put returns. */
static void *copy_src(size_t o, size_t len) {
  GN_CHECK(g_ntmp < 256);
  unsigned char *t = malloc(len ? len : 1);
  GN_CHECK(t != NULL);
  memcpy(t, g_sb + o, len);
  g_tmp[g_ntmp++] = t;
  return t;
}
static void scribble(void *t, size_t len) { memset(t, GARBAGE, len); }

/* The little-endian value of n pattern bytes at o, with non-zero junk above them. */
static gasnet_register_value_t val_of(size_t o, size_t nbytes) {
  gasnet_register_value_t v = 0;
  for (size_t i = 0; i < nbytes; ++i)
    v |= (gasnet_register_value_t)g_sb[o + i] << (8 * i);
  if (nbytes < 8)
    v |= UINT64_C(0xA5A5A5A5A5A5A5A5) & (~(gasnet_register_value_t)0 << (8 * nbytes));
  return v;
}
static size_t val_align(size_t nbytes) { return (nbytes & (nbytes - 1)) == 0 ? nbytes : 1; }

static size_t count_valid(const gasnet_handle_t *h, size_t k) {
  size_t c = 0;
  for (size_t i = 0; i < k; ++i)
    c += h[i] != GASNET_INVALID_HANDLE;
  return c;
}

#define SPIN_LIMIT 100000000L
static long g_not_ready; /* GASNET_ERR_NOT_READY answers of the try forms (this thread's and others') */

/* A turn of a try loop: poll, and give the core away (nodes share cores here). */
static void idle(void) {
  GN_OK(gasnet_AMPoll());
  sched_yield();
}

static void try_loop(gasnet_handle_t h) {
  int rc;
  long spins = 0;
  while ((rc = gasnet_try_syncnb(h)) != GASNET_OK) {
    GN_CHECK(rc == GASNET_ERR_NOT_READY);
    GN_CHECK(++spins < SPIN_LIMIT);
    __atomic_add_fetch(&g_not_ready, 1, __ATOMIC_RELAXED);
    idle();
  }
}

/* Syncs an array of handles in one of four ways; every entry is GASNET_INVALID_HANDLE after. */
static void sync_array(gasnet_handle_t *h, size_t k, int how) {
  long spins = 0;
  switch (how) {
  case 0:
    gasnet_wait_syncnb_all(h, k);
    break;
  case 1:
    for (;;) {
      const size_t before = count_valid(h, k);
      const int rc = gasnet_try_syncnb_all(h, k);
      GN_CHECK(count_valid(h, k) <= before);
      if (rc == GASNET_OK)
        break;
      GN_CHECK(rc == GASNET_ERR_NOT_READY && count_valid(h, k) > 0);
      GN_CHECK(++spins < SPIN_LIMIT);
      __atomic_add_fetch(&g_not_ready, 1, __ATOMIC_RELAXED);
      idle();
    }
    break;
  case 2:
    while (count_valid(h, k) > 0) {
      const size_t before = count_valid(h, k);
      gasnet_wait_syncnb_some(h, k);
      GN_CHECK(count_valid(h, k) < before); /* at least one completed */
    }
    gasnet_wait_syncnb_some(h, k); /* all invalid: returns at once */
    break;
  default:
    while (count_valid(h, k) > 0) {
      const size_t before = count_valid(h, k);
      const int rc = gasnet_try_syncnb_some(h, k);
      if (rc == GASNET_OK) {
        GN_CHECK(count_valid(h, k) < before);
      } else {
        GN_CHECK(rc == GASNET_ERR_NOT_READY && count_valid(h, k) == before);
        GN_CHECK(++spins < SPIN_LIMIT);
        __atomic_add_fetch(&g_not_ready, 1, __ATOMIC_RELAXED);
        idle();
      }
    }
    GN_OK(gasnet_try_syncnb_some(h, k)); /* all invalid: OK */
    break;
  }
  GN_CHECK(count_valid(h, k) == 0);
}

static void sync_nbi(int how, int gets) {
  long spins = 0;
  int rc;
  switch (how) {
  case 0:
    if (gets)
      gasnet_wait_syncnbi_gets();
    else
      gasnet_wait_syncnbi_puts();
    break;
  case 1:
    while ((rc = gets ? gasnet_try_syncnbi_gets() : gasnet_try_syncnbi_puts()) != GASNET_OK) {
      GN_CHECK(rc == GASNET_ERR_NOT_READY && ++spins < SPIN_LIMIT);
      __atomic_add_fetch(&g_not_ready, 1, __ATOMIC_RELAXED);
      idle();
    }
    break;
  case 2:
    gasnet_wait_syncnbi_all();
    break;
  default:
    while ((rc = gasnet_try_syncnbi_all()) != GASNET_OK) {
      GN_CHECK(rc == GASNET_ERR_NOT_READY && ++spins < SPIN_LIMIT);
      __atomic_add_fetch(&g_not_ready, 1, __ATOMIC_RELAXED);
      idle();
    }
    break;
  }
}

/* A local buffer that a get filled: the owner's pattern at [off, +len) of node's pattern region. */
static void check_own(unsigned node, size_t off, const unsigned char *buf, size_t len) {
  for (size_t j = 0; j < len; ++j)
    if (buf[j] != own(node, off + j)) {
      fprintf(stderr, "[%u] node %u pattern region +%zu: byte %zu of %zu is 0x%02x, not 0x%02x\n", me, node, off, j,
              len, buf[j], own(node, off + j));
      GN_CHECK(!"a get brought wrong bytes");
    }
}

/* ---- puts: every flavour into slot[me] of d */
static void send_all(unsigned d) {
  g_d = d;
  g_base = slot_addr(d, me);
  g_cursor = 0;
  g_nranges = 0;
  g_mset_k = 0;
  g_ntmp = 0;
  for (size_t o = 0; o < SLOT; ++o)
    g_sb[o] = pat(me, d, o);
  unsigned char v;
  size_t o;
  gasnet_handle_t h;

  /* Blocking put: aligned sizes at aligned offsets, odd sizes at odd offsets. */
  static const size_t aligned[] = {1, 2, 4, 8};
  for (size_t i = 0; i < sizeof aligned / sizeof aligned[0]; ++i) {
    const size_t len = aligned[i];
    o = P(len, len, 0);
    void *t = copy_src(o, len);
    gasnet_put(d, g_base + o, t, len);
    scribble(t, len);
  }
  static const size_t odd[] = {1, 3, 5, 7, 13, 127, 1000, 4097};
  for (size_t i = 0; i < sizeof odd / sizeof odd[0]; ++i) {
    const size_t len = odd[i];
    o = P(len, 1, 1);
    void *t = copy_src(o, len);
    gasnet_put(d, g_base + o, t, len);
    scribble(t, len);
  }
  /* Blocking bulk put: 0, 1, 64 KiB, 3 MiB. */
  static const size_t bulk[] = {0, 1, 65536, (size_t)3 << 20};
  for (size_t i = 0; i < sizeof bulk / sizeof bulk[0]; ++i) {
    o = P(bulk[i], 8, 0);
    gasnet_put_bulk(d, g_base + o, g_sb + o, bulk[i]);
  }
  /* Blocking memset (70001 bytes span more than one 64 KiB chunk). */
  static const size_t msz[] = {0, 1, 100, 70001};
  for (size_t i = 0; i < sizeof msz / sizeof msz[0]; ++i) {
    o = M(msz[i], &v);
    gasnet_memset(d, g_base + o, v, msz[i]);
  }
  /* memset_nb, synced by wait and by try. */
  o = M(5, &v);
  gasnet_wait_syncnb(gasnet_memset_nb(d, g_base + o, v, 5));
  o = M(65537, &v);
  try_loop(gasnet_memset_nb(d, g_base + o, v, 65537));
  /* put_nb and put_nb_bulk, one at a time. */
  o = P(8, 8, 0);
  {
    void *t = copy_src(o, 8);
    h = gasnet_put_nb(d, g_base + o, t, 8);
    scribble(t, 8); /* the source of a non-bulk put is free once the call returns [G1 §3.3.2.1] */
    gasnet_wait_syncnb(h);
  }
  o = P(5001, 1, 1);
  try_loop(gasnet_put_nb_bulk(d, g_base + o, g_sb + o, 5001));
  gasnet_wait_syncnb(GASNET_INVALID_HANDLE);
  GN_OK(gasnet_try_syncnb(GASNET_INVALID_HANDLE));
  /* Arrays that mix GASNET_INVALID_HANDLE with real handles, each synced a different way. */
  for (int how = 0; how < 4; ++how) {
    gasnet_handle_t hs[10];
    size_t k = 0;
    hs[k++] = GASNET_INVALID_HANDLE;
    o = P(16, 8, 0);
    {
      void *t = copy_src(o, 16);
      hs[k++] = gasnet_put_nb(d, g_base + o, t, 16);
      scribble(t, 16);
    }
    o = P(12345, 1, 1);
    hs[k++] = gasnet_put_nb_bulk(d, g_base + o, g_sb + o, 12345);
    hs[k++] = GASNET_INVALID_HANDLE;
    o = M(777, &v);
    hs[k++] = gasnet_memset_nb(d, g_base + o, v, 777);
    o = P(3, 1, 1);
    {
      void *t = copy_src(o, 3);
      hs[k++] = gasnet_put_nb(d, g_base + o, t, 3);
      scribble(t, 3);
    }
    o = P(65536 + 7, 8, 0);
    hs[k++] = gasnet_put_nb_bulk(d, g_base + o, g_sb + o, 65536 + 7);
    o = P(4, 4, 0);
    hs[k++] = gasnet_put_nb_val(d, g_base + o, val_of(o, 4), 4);
    hs[k++] = GASNET_INVALID_HANDLE;
    sync_array(hs, k, how);
  }
  /* Degenerate arrays: empty, and all invalid. */
  {
    gasnet_handle_t none[3] = {GASNET_INVALID_HANDLE, GASNET_INVALID_HANDLE, GASNET_INVALID_HANDLE};
    gasnet_wait_syncnb_all(none, 0);
    gasnet_wait_syncnb_some(none, 0);
    GN_OK(gasnet_try_syncnb_all(none, 0));
    GN_OK(gasnet_try_syncnb_some(none, 0));
    gasnet_wait_syncnb_all(none, 3);
    gasnet_wait_syncnb_some(none, 3);
    GN_OK(gasnet_try_syncnb_all(none, 3));
    GN_OK(gasnet_try_syncnb_some(none, 3));
    GN_CHECK(count_valid(none, 3) == 0);
  }
  /* NBI puts, each batch synced a different way. */
  GN_OK(gasnet_try_syncnbi_puts()); /* nothing outstanding */
  GN_OK(gasnet_try_syncnbi_all());
  for (int how = 0; how < 4; ++how) {
    o = P(16, 8, 0);
    void *t = copy_src(o, 16);
    gasnet_put_nbi(d, g_base + o, t, 16);
    scribble(t, 16);
    o = P(77, 1, 1);
    t = copy_src(o, 77);
    gasnet_put_nbi(d, g_base + o, t, 77);
    scribble(t, 77);
    o = P(10000 + (size_t)how, 1, 0);
    gasnet_put_nbi_bulk(d, g_base + o, g_sb + o, 10000 + (size_t)how);
    o = M(300, &v);
    gasnet_memset_nbi(d, g_base + o, v, 300);
    o = P(2, 2, 0);
    gasnet_put_nbi_val(d, g_base + o, val_of(o, 2), 2);
    sync_nbi(how, 0);
  }
  GN_OK(gasnet_try_syncnbi_puts());
  GN_OK(gasnet_try_syncnbi_all());

  /* Access regions: NBI operations inside become one explicit handle; an explicit-handle
   * operation inside stays on its own. */
  {
    unsigned char *gbuf = malloc(70000);
    GN_CHECK(gbuf != NULL);
    memset(gbuf, 0, 70000);
    gasnet_begin_nbi_accessregion();
    o = P(24, 8, 0);
    void *t = copy_src(o, 24);
    gasnet_put_nbi(d, g_base + o, t, 24);
    scribble(t, 24);
    o = P(4097, 1, 1);
    gasnet_put_nbi_bulk(d, g_base + o, g_sb + o, 4097);
    o = M(50, &v);
    gasnet_memset_nbi(d, g_base + o, v, 50);
    o = P(40, 8, 0);
    t = copy_src(o, 40);
    gasnet_handle_t h2 = gasnet_put_nb(d, g_base + o, t, 40);
    scribble(t, 40);
    gasnet_wait_syncnb(h2); /* explicit syncs are allowed inside a region */
    gasnet_get_nbi(gbuf, d, own_addr(d) + 999, 999);
    h = gasnet_end_nbi_accessregion();
    gasnet_wait_syncnb(h);
    check_own(d, 999, gbuf, 999);

    memset(gbuf, 0, 70000);
    gasnet_begin_nbi_accessregion();
    o = P(65536, 8, 0);
    gasnet_put_nbi_bulk(d, g_base + o, g_sb + o, 65536);
    gasnet_get_nbi_bulk(gbuf + 1, d, own_addr(d) + 3, 69999);
    h = gasnet_end_nbi_accessregion();
    try_loop(h);
    check_own(d, 3, gbuf + 1, 69999);
    GN_CHECK(gbuf[0] == 0);

    gasnet_begin_nbi_accessregion();
    o = P(8, 8, 0);
    gasnet_put_nbi_val(d, g_base + o, val_of(o, 8), 8);
    o = P(6, 2, 0);
    gasnet_put_nbi_val(d, g_base + o, val_of(o, 6), 6);
    gasnet_handle_t hs[3] = {GASNET_INVALID_HANDLE, gasnet_end_nbi_accessregion(), GASNET_INVALID_HANDLE};
    sync_array(hs, 3, 3);

    gasnet_begin_nbi_accessregion();
    GN_CHECK(gasnet_end_nbi_accessregion() == GASNET_INVALID_HANDLE); /* an empty region */
    GN_OK(gasnet_try_syncnbi_all()); /* region operations are not implicit-handle operations */
    free(gbuf);
  }

  /* Value puts, every size: the low nbytes bytes of the value, little-endian; the junk above them
   * must not land. */
  for (size_t k = 1; k <= 8; ++k) {
    o = P(k, val_align(k), 0);
    gasnet_put_val(d, g_base + o, val_of(o, k), k);
  }
  {
    gasnet_handle_t hs[8];
    for (size_t k = 1; k <= 8; ++k) {
      o = P(k, val_align(k), 0);
      hs[k - 1] = gasnet_put_nb_val(d, g_base + o, val_of(o, k), k);
    }
    gasnet_wait_syncnb_all(hs, 8);
    GN_CHECK(count_valid(hs, 8) == 0);
  }
  for (size_t k = 1; k <= 8; ++k) {
    o = P(k, 1, 1); /* unaligned too */
    gasnet_put_nbi_val(d, g_base + o, val_of(o, k), k);
  }
  gasnet_wait_syncnbi_puts();
  gasnet_wait_syncnbi_all();

  for (int i = 0; i < g_ntmp; ++i)
    free(g_tmp[i]);
  g_ntmp = 0;
}

/* What slot[src] of dst holds once src's send_all(dst) completed. */
static void build_expected(unsigned src, unsigned dst, unsigned char *img) {
  memset(img, FILL, SLOT);
  for (int r = 0; r < g_nranges; ++r) {
    const range_t *g = &g_ranges[r];
    if (g->mset < 0)
      for (size_t j = 0; j < g->len; ++j)
        img[g->off + j] = pat(src, dst, g->off + j);
    else
      memset(img + g->off, mval(src, dst, (unsigned)g->mset), g->len);
  }
}

static void compare_slot(const char *what, unsigned src, unsigned dst, const unsigned char *got,
                         const unsigned char *img) {
  if (memcmp(got, img, SLOT) == 0)
    return;
  for (size_t j = 0; j < SLOT; ++j)
    if (got[j] != img[j]) {
      int r = 0;
      while (r < g_nranges && !(j >= g_ranges[r].off && j < g_ranges[r].off + g_ranges[r].len))
        ++r;
      fprintf(stderr, "[%u] %s: slot of node %u at node %u: byte %zu is 0x%02x, not 0x%02x (range %d)\n", me, what, src,
              dst, j, got[j], img[j], r < g_nranges ? r : -1);
      break;
    }
  GN_CHECK(!"slot contents");
}

/* ---- gets: every flavour from node d */
static void get_all(unsigned d, unsigned char *rb, unsigned char *img) {
  /* My whole slot at d, 4 MiB in one bulk get. */
  build_expected(me, d, img);
  memset(rb, 0, SLOT);
  gasnet_get_bulk(rb, d, slot_addr(d, me), SLOT);
  compare_slot("gasnet_get_bulk", me, d, rb, img);

  const char *ob = own_addr(d);
  unsigned char buf[8192 + 16];
  /* Blocking get, aligned sizes into aligned locals, with canaries around. */
  static const size_t aligned[] = {1, 2, 4, 8};
  for (size_t i = 0; i < sizeof aligned / sizeof aligned[0]; ++i) {
    const size_t len = aligned[i], off = 4096 + 64 * i;
    memset(buf, 0xC3, 32);
    gasnet_get(buf + 8, d, (void *)(ob + off), len);
    check_own(d, off, buf + 8, len);
    GN_CHECK(buf[7] == 0xC3 && buf[8 + len] == 0xC3);
  }
  {
    uint64_t v64 = 0;
    uint32_t v32 = 0;
    uint16_t v16 = 0;
    gasnet_get(&v64, d, (void *)(ob + 8 * 100), 8);
    gasnet_get(&v32, d, (void *)(ob + 4 * 300), 4);
    gasnet_get(&v16, d, (void *)(ob + 2 * 700), 2);
    check_own(d, 800, (const unsigned char *)&v64, 8);
    check_own(d, 1200, (const unsigned char *)&v32, 4);
    check_own(d, 1400, (const unsigned char *)&v16, 2);
  }
  static const size_t odd[] = {1, 3, 5, 7, 13, 127, 1000, 4097};
  for (size_t i = 0; i < sizeof odd / sizeof odd[0]; ++i) {
    const size_t len = odd[i], off = 10001 + 8 * i;
    memset(buf, 0xC3, sizeof buf);
    gasnet_get(buf + 1, d, (void *)(ob + off), len);
    check_own(d, off, buf + 1, len);
    GN_CHECK(buf[0] == 0xC3 && buf[1 + len] == 0xC3);
  }
  /* Bulk gets: 0, 1, 64 KiB, 3 MiB. */
  static const size_t bulk[] = {0, 1, 65536, (size_t)3 << 20};
  static const size_t boff[] = {17, 3, 65539, 12345};
  for (size_t i = 0; i < sizeof bulk / sizeof bulk[0]; ++i) {
    memset(rb, 0xC3, bulk[i] + 2);
    gasnet_get_bulk(rb + 1, d, (void *)(ob + boff[i]), bulk[i]);
    check_own(d, boff[i], rb + 1, bulk[i]);
    GN_CHECK(rb[0] == 0xC3 && rb[1 + bulk[i]] == 0xC3);
  }
  /* get_nb and get_nb_bulk: single (wait, try) and arrays synced every way. */
  memset(rb, 0, 200000);
  gasnet_wait_syncnb(gasnet_get_nb(rb, d, (void *)(ob + 64), 64));
  check_own(d, 64, rb, 64);
  try_loop(gasnet_get_nb_bulk(rb + 101, d, (void *)(ob + 333), 100001));
  check_own(d, 333, rb + 101, 100001);
  for (int how = 0; how < 4; ++how) {
    memset(rb, 0, 300000);
    gasnet_handle_t hs[8];
    size_t k = 0;
    const size_t base = 1000 * (size_t)how;
    hs[k++] = GASNET_INVALID_HANDLE;
    hs[k++] = gasnet_get_nb(rb, d, (void *)(ob + base + 8), 8);
    hs[k++] = gasnet_get_nb(rb + 16, d, (void *)(ob + base + 101), 13);
    hs[k++] = GASNET_INVALID_HANDLE;
    hs[k++] = gasnet_get_nb_bulk(rb + 1001, d, (void *)(ob + base + 7), 65537);
    hs[k++] = gasnet_get_nb_bulk(rb + 100000, d, (void *)(ob + base + 200000), 150000);
    hs[k++] = GASNET_INVALID_HANDLE;
    sync_array(hs, k, how);
    check_own(d, base + 8, rb, 8);
    check_own(d, base + 101, rb + 16, 13);
    check_own(d, base + 7, rb + 1001, 65537);
    check_own(d, base + 200000, rb + 100000, 150000);
  }
  /* get_nbi and get_nbi_bulk, each batch synced a different way. */
  GN_OK(gasnet_try_syncnbi_gets());
  for (int how = 0; how < 4; ++how) {
    memset(rb, 0, 200000);
    const size_t base = 777 * (size_t)how;
    gasnet_get_nbi(rb, d, (void *)(ob + base + 16), 16);
    gasnet_get_nbi(rb + 33, d, (void *)(ob + base + 5), 77);
    gasnet_get_nbi_bulk(rb + 1000, d, (void *)(ob + base + 9), 100003);
    sync_nbi(how, 1);
    check_own(d, base + 16, rb, 16);
    check_own(d, base + 5, rb + 33, 77);
    check_own(d, base + 9, rb + 1000, 100003);
  }
  GN_OK(gasnet_try_syncnbi_gets());
  GN_OK(gasnet_try_syncnbi_all());

  /* Value gets: the nbytes bytes little-endian, zero-extended (no pattern byte is 0, so reading
   * more than nbytes shows). Aligned and unaligned. */
  for (size_t k = 1; k <= 8; ++k)
    for (size_t mis = 0; mis < 2; ++mis) {
      const size_t off = 8192 + 16 * k + mis * 3;
      gasnet_register_value_t want = 0;
      for (size_t i = 0; i < k; ++i)
        want |= (gasnet_register_value_t)own(d, off + i) << (8 * i);
      const gasnet_register_value_t got = gasnet_get_val(d, (void *)(ob + off), k);
      if (got != want)
        fprintf(stderr, "[%u] gasnet_get_val(%u, +%zu, %zu) = 0x%016llx, not 0x%016llx\n", me, d, off, k,
                (unsigned long long)got, (unsigned long long)want);
      GN_CHECK(got == want);
    }
  {
    gasnet_valget_handle_t vh[8];
    for (size_t k = 1; k <= 8; ++k)
      vh[k - 1] = gasnet_get_nb_val(d, (void *)(ob + 20000 + 9 * k), k);
    for (size_t k = 8; k >= 1; --k) { /* synced in the other order */
      gasnet_register_value_t want = 0;
      for (size_t i = 0; i < k; ++i)
        want |= (gasnet_register_value_t)own(d, 20000 + 9 * k + i) << (8 * i);
      GN_CHECK(gasnet_wait_syncnb_valget(vh[k - 1]) == want);
    }
  }
  /* A value read back from a slot: what my put_val ranges wrote (the last eight ranges). */
  for (int r = g_nranges - 8; r < g_nranges; ++r) {
    const range_t *g = &g_ranges[r];
    gasnet_register_value_t want = 0;
    for (size_t i = 0; i < g->len; ++i)
      want |= (gasnet_register_value_t)pat(me, d, g->off + i) << (8 * i);
    GN_CHECK(gasnet_get_val(d, slot_addr(d, me) + g->off, g->len) == want);
  }
}

/* A positive int that all nodes compute alike from the same bytes (FNV-1a): a named barrier on it
 * fails with a mismatch if any node saw something else. */
static int digest(const void *p, size_t len) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < len; ++i)
    h = (h ^ ((const unsigned char *)p)[i]) * 16777619u;
  return (int)(h & 0x7fffffffu);
}

/* An access region over every node at once: one handle for gets from all of them. */
static void region_all_nodes(unsigned char *rb) {
  const size_t len = 4099;
  for (int how = 0; how < 2; ++how) {
    memset(rb, 0, (size_t)nn * len);
    gasnet_begin_nbi_accessregion();
    for (unsigned k = 0; k < nn; ++k)
      gasnet_get_nbi_bulk(rb + (size_t)k * len, k, own_addr(k) + 31 * k + (size_t)how, len);
    gasnet_handle_t hs[2] = {gasnet_end_nbi_accessregion(), GASNET_INVALID_HANDLE};
    if (how == 0)
      gasnet_wait_syncnb(hs[0]);
    else
      sync_array(hs, 2, 1);
    for (unsigned k = 0; k < nn; ++k)
      check_own(k, 31 * k + (size_t)how, rb + (size_t)k * len, len);
  }
}

/* Threads [G1 §3.3.2, §3.3.5]: handles and the NBI set belong to the thread that made them.
 * NTHREADS threads each write their cell of every node with NBI and explicit-handle puts, sync
 * only their own, read it back with gets, three times over with a new pattern each time. */
static unsigned char tpat(unsigned src, unsigned t, unsigned dst, unsigned iter, size_t j) {
  return (unsigned char)(src * 29u + t * 71u + dst * 13u + iter * 101u + j * 5u + (j >> 10) + 3u);
}
#define ITERS 3
static void *thread_body(void *arg) {
  const unsigned t = (unsigned)(uintptr_t)arg;
  const size_t cs = cell_size(), half = cs / 2, chunk = 8192;
  unsigned char *src = malloc(cs), *back = malloc(cs);
  GN_CHECK(src != NULL && back != NULL);
  for (unsigned iter = 0; iter < ITERS; ++iter)
    for (unsigned k = 0; k < nn; ++k) {
      const unsigned d = (me + k) % nn;
      char *cell = cell_addr(d, me, t);
      for (size_t j = 0; j < cs; ++j)
        src[j] = tpat(me, t, d, iter, j);
      gasnet_put_nbi_bulk(d, cell, src, half); /* the first half: NBI */
      gasnet_handle_t hs[1024];
      size_t nh = 0;
      for (size_t o = half; o < cs; o += chunk) { /* the second half: explicit handles */
        GN_CHECK(nh < 1024);
        hs[nh++] = gasnet_put_nb_bulk(d, cell + o, src + o, cs - o < chunk ? cs - o : chunk);
      }
      gasnet_wait_syncnb_all(hs, nh);
      GN_CHECK(count_valid(hs, nh) == 0);
      gasnet_wait_syncnbi_puts();
      memset(back, 0, cs);
      gasnet_get_nbi_bulk(back, d, cell, half);
      gasnet_handle_t h = gasnet_get_nb_bulk(back + half, d, cell + half, cs - half);
      sync_nbi(3, 1);
      gasnet_wait_syncnb(h);
      if (memcmp(back, src, cs) != 0)
        GN_CHECK(!"a thread read back other bytes than it wrote");
    }
  free(src);
  free(back);
  return NULL;
}

static void threaded(void) {
#ifdef GASNET_PAR
  pthread_t th[NTHREADS];
  for (unsigned t = 0; t < NTHREADS; ++t)
    GN_CHECK(pthread_create(&th[t], NULL, thread_body, (void *)(uintptr_t)t) == 0);
  for (unsigned t = 0; t < NTHREADS; ++t)
    GN_CHECK(pthread_join(th[t], NULL) == 0);
#else
  for (unsigned t = 0; t < NTHREADS; ++t)
    thread_body((void *)(uintptr_t)t);
#endif
  GN_OK(gasnet_barrier(4, 0));
  /* Every cell of my scratch region holds its writer's last pattern. */
  const size_t cs = cell_size();
  for (unsigned s = 0; s < nn; ++s)
    for (unsigned t = 0; t < NTHREADS; ++t) {
      const unsigned char *cell = (const unsigned char *)cell_addr(me, s, t);
      for (size_t j = 0; j < cs; ++j)
        if (cell[j] != tpat(s, t, me, ITERS - 1, j)) {
          fprintf(stderr, "[%u] cell of node %u thread %u: byte %zu is 0x%02x\n", me, s, t, j, cell[j]);
          GN_CHECK(!"scratch cell contents");
        }
    }
}

/* ---- many operations in flight at once, synced by the try forms; each one's data is checked the
 * moment a try reports it complete. Before threaded(): it uses my cells at d. */
#define MANY 48
static void try_many(unsigned d, unsigned char *rb) {
  const char *ob = own_addr(d);
  gasnet_handle_t hs[MANY];
  size_t off[MANY], len[MANY], at[MANY];
  int checked[MANY];
  for (int how = 0; how < 3; ++how) {
    size_t pos = 0;
    memset(rb, 0, SLOT);
    for (int i = 0; i < MANY; ++i) {
      len[i] = 1 + ((size_t)i * 7919u + (size_t)how * 131u) % 81920u;
      off[i] = ((size_t)i * 4099u + (size_t)how) % (SLOT - len[i]);
      at[i] = pos;
      pos += len[i] + 1;
      checked[i] = 0;
      hs[i] = i % 2 ? gasnet_get_nb(rb + at[i], d, (void *)(ob + off[i]), len[i])
                    : gasnet_get_nb_bulk(rb + at[i], d, (void *)(ob + off[i]), len[i]);
    }
    GN_CHECK(pos <= SLOT);
    long spins = 0;
    while (count_valid(hs, MANY) > 0) {
      int rc = GASNET_ERR_NOT_READY;
      if (how == 0) {
        rc = gasnet_try_syncnb_some(hs, MANY);
      } else if (how == 1) {
        rc = gasnet_try_syncnb_all(hs, MANY);
      } else {
        for (int i = 0; i < MANY; ++i)
          if (hs[i] != GASNET_INVALID_HANDLE && gasnet_try_syncnb(hs[i]) == GASNET_OK) {
            hs[i] = GASNET_INVALID_HANDLE;
            rc = GASNET_OK;
          }
      }
      for (int i = 0; i < MANY; ++i)
        if (hs[i] == GASNET_INVALID_HANDLE && !checked[i]) {
          check_own(d, off[i], rb + at[i], len[i]);
          checked[i] = 1;
        }
      if (rc != GASNET_OK) {
        GN_CHECK(rc == GASNET_ERR_NOT_READY && ++spins < SPIN_LIMIT);
        __atomic_add_fetch(&g_not_ready, 1, __ATOMIC_RELAXED);
        idle();
      } else if (how == 1) {
        GN_CHECK(count_valid(hs, MANY) == 0);
      }
    }
    for (int i = 0; i < MANY; ++i) /* complete at initiation (a node peer): invalid from the start */
      if (!checked[i])
        check_own(d, off[i], rb + at[i], len[i]);
  }
  /* NBI gets: a try that says OK has brought every byte. */
  memset(rb, 0, SLOT);
  for (int i = 0; i < MANY; ++i)
    gasnet_get_nbi_bulk(rb + at[i], d, (void *)(ob + off[i]), len[i]);
  long spins = 0;
  while (gasnet_try_syncnbi_gets() != GASNET_OK) {
    GN_CHECK(++spins < SPIN_LIMIT);
    __atomic_add_fetch(&g_not_ready, 1, __ATOMIC_RELAXED);
    idle();
  }
  for (int i = 0; i < MANY; ++i)
    check_own(d, off[i], rb + at[i], len[i]);
  /* Puts into my two cells at d. The wait on the last one completes its target: the earlier ones
   * are then complete too, and the try forms find them so; read back, they hold the bytes. */
  char *cell = cell_addr(d, me, 0);
  const size_t chunk = 2 * cell_size() / MANY;
  GN_CHECK(chunk > 0);
  unsigned char *src = malloc(chunk * MANY);
  GN_CHECK(src != NULL);
  for (size_t j = 0; j < chunk * MANY; ++j)
    src[j] = (unsigned char)(me * 13u + d * 7u + j * 3u + (j >> 8) + 1u);
  for (int i = 0; i < MANY; ++i)
    hs[i] = gasnet_put_nb_bulk(d, cell + (size_t)i * chunk, src + (size_t)i * chunk, chunk);
  gasnet_wait_syncnb(hs[MANY - 1]);
  hs[MANY - 1] = GASNET_INVALID_HANDLE;
  GN_OK(gasnet_try_syncnb(hs[0]));
  hs[0] = GASNET_INVALID_HANDLE;
  spins = 0;
  while (gasnet_try_syncnb_all(hs, MANY) != GASNET_OK) {
    GN_CHECK(++spins < SPIN_LIMIT);
    __atomic_add_fetch(&g_not_ready, 1, __ATOMIC_RELAXED);
    idle();
  }
  GN_CHECK(count_valid(hs, MANY) == 0);
  memset(rb, 0, chunk * MANY);
  try_loop(gasnet_get_nb_bulk(rb, d, cell, chunk * MANY));
  GN_CHECK(memcmp(rb, src, chunk * MANY) == 0);
  free(src);
}

/* ---- dead handles: fatal [G1 section 3.3.3.1, section 1.6]. Each scene runs in a forked copy of
 * this process (only the calling thread, no MPI call before the check), which must die by SIGABRT
 * with "[node] call: fatal:" on stderr. */
static gasnet_handle_t g_dead;
static gasnet_valget_handle_t g_dead_val;
static void scene_never_issued(void) { gasnet_wait_syncnb((gasnet_handle_t)0xfffe000001000003ull); }
static void scene_wait_twice(void) { gasnet_wait_syncnb(g_dead); }
static void scene_try_twice(void) { (void)gasnet_try_syncnb(g_dead); }
static void scene_all_twice(void) {
  gasnet_handle_t hs[2] = {GASNET_INVALID_HANDLE, g_dead};
  gasnet_wait_syncnb_all(hs, 2);
}
static void scene_valget_twice(void) { (void)gasnet_wait_syncnb_valget(g_dead_val); }

static void expect_fatal(const char *call, void (*scene)(void)) {
  int fds[2];
  GN_CHECK(pipe(fds) == 0);
  fflush(stdout);
  fflush(stderr);
  const pid_t pid = fork();
  GN_CHECK(pid >= 0);
  if (pid == 0) {
    const struct rlimit no_core = {0, 0};
    (void)setrlimit(RLIMIT_CORE, &no_core);
    close(fds[0]);
    dup2(fds[1], 2);
    scene();
    _exit(0); /* not stopped */
  }
  close(fds[1]);
  char text[16384];
  size_t got = 0;
  ssize_t n;
  while (got < sizeof text - 1 && (n = read(fds[0], text + got, sizeof text - 1 - got)) > 0)
    got += (size_t)n;
  text[got] = '\0';
  close(fds[0]);
  int status = 0;
  GN_CHECK(waitpid(pid, &status, 0) == pid);
  char want[128];
  snprintf(want, sizeof want, "[%u] %s: fatal:", me, call);
  if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGABRT || strstr(text, want) == NULL) {
    fprintf(stderr, "[%u] %s on a dead handle: wait status 0x%x, stderr:\n%s\n", me, call, status, text);
    GN_CHECK(!"a dead handle was not fatal");
  }
}

static void dead_handles(void) {
  expect_fatal("gasnet_wait_syncnb", scene_never_issued);
  /* A value get synced twice (any path: a value-get handle is never invalid). */
  g_dead_val = gasnet_get_nb_val(me, own_addr(me), 8);
  (void)gasnet_wait_syncnb_valget(g_dead_val);
  expect_fatal("gasnet_wait_syncnb_valget", scene_valget_twice);
  /* An explicit handle synced twice: only operations across nodes have one. */
  static gasnet_nodeinfo_t info[MAX_NODES];
  GN_OK(gasnet_getNodeInfo(info, (int)nn));
  for (unsigned d = 0; d < nn; ++d) {
    if (info[d].supernode == info[me].supernode)
      continue;
    uint64_t v = 0;
    g_dead = gasnet_get_nb(&v, d, own_addr(d), 8);
    GN_CHECK(g_dead != GASNET_INVALID_HANDLE);
    gasnet_wait_syncnb(g_dead);
    check_own(d, 0, (const unsigned char *)&v, 8);
    expect_fatal("gasnet_wait_syncnb", scene_wait_twice);
    expect_fatal("gasnet_try_syncnb", scene_try_twice);
    /* Its entry now serves a new operation: the old handle stays dead. */
    gasnet_handle_t h = gasnet_get_nb(&v, d, own_addr(d) + 8, 8);
    GN_CHECK(h != GASNET_INVALID_HANDLE && h != g_dead);
    expect_fatal("gasnet_wait_syncnb_all", scene_all_twice);
    gasnet_wait_syncnb(h);
    check_own(d, 8, (const unsigned char *)&v, 8);
    break;
  }
}

static void dummy_handler(gasnet_token_t t) { (void)t; }

int main(int argc, char **argv) {
  GN_OK(gasnet_init(&argc, &argv));
  me = gasnet_mynode();
  nn = gasnet_nodes();
  GN_CHECK(nn >= 1 && nn <= MAX_NODES && me < nn);

  /* Error names and descriptions: fixed names, distinct non-empty descriptions. */
  {
    static const struct {
      int code;
      const char *name;
    } errs[] = {{GASNET_OK, "GASNET_OK"},
                {GASNET_ERR_NOT_INIT, "GASNET_ERR_NOT_INIT"},
                {GASNET_ERR_RESOURCE, "GASNET_ERR_RESOURCE"},
                {GASNET_ERR_BAD_ARG, "GASNET_ERR_BAD_ARG"},
                {GASNET_ERR_NOT_READY, "GASNET_ERR_NOT_READY"},
                {GASNET_ERR_BARRIER_MISMATCH, "GASNET_ERR_BARRIER_MISMATCH"}};
    const size_t ne = sizeof errs / sizeof errs[0];
    for (size_t i = 0; i < ne; ++i) {
      GN_CHECK(gasnet_ErrorName(errs[i].code) != NULL && strcmp(gasnet_ErrorName(errs[i].code), errs[i].name) == 0);
      GN_CHECK(gasnet_ErrorDesc(errs[i].code) != NULL && gasnet_ErrorDesc(errs[i].code)[0] != '\0');
      for (size_t j = 0; j < i; ++j)
        GN_CHECK(strcmp(gasnet_ErrorDesc(errs[i].code), gasnet_ErrorDesc(errs[j].code)) != 0);
    }
    GN_CHECK(gasnet_ErrorName(4242) != NULL && gasnet_ErrorDesc(4242) != NULL);
    GN_CHECK(GASNET_ERR_NOT_INIT != GASNET_OK && GASNET_ERR_RESOURCE != GASNET_ERR_BAD_ARG);
  }

  /* Between init and attach: the segment limits, which are queries [G1 §2.1.4] (any node, any
   * number of times), and the environment. The test's ranks all run on one host. */
  const uintptr_t local_max = gasnet_getMaxLocalSegmentSize();
  const uintptr_t global_max = gasnet_getMaxGlobalSegmentSize();
  if (me == 0)
    GN_CHECK(gasnet_getMaxGlobalSegmentSize() == global_max);
  GN_CHECK(local_max > 0 && global_max > 0);
  GN_CHECK(local_max % GASNET_PAGESIZE == 0 && global_max % GASNET_PAGESIZE == 0);
  GN_CHECK(global_max <= local_max);
  const unsigned long long host_bytes =
      (unsigned long long)sysconf(_SC_PHYS_PAGES) * (unsigned long long)sysconf(_SC_PAGESIZE);
  GN_CHECK((unsigned long long)local_max / 85 * nn <= host_bytes / 100);
  const uintptr_t segsize = (uintptr_t)(nn + 2) * SLOT;
  GN_CHECK(segsize <= global_max);

  const char *path = gasnet_getenv("PATH");
  GN_CHECK(path != NULL);
  if (me == 0)
    GN_CHECK(getenv("PATH") != NULL && strcmp(path, getenv("PATH")) == 0);
  GN_CHECK(gasnet_getenv("HYGASNET_TEST_SURELY_UNSET_VARIABLE_4711") == NULL);
  if (me == 0 && getenv("PAT") == NULL)
    GN_CHECK(gasnet_getenv("PAT") == NULL); /* a prefix of PATH is not PATH */
  GN_CHECK(gasnet_getenv("") == NULL);
  const int path_digest = digest(path, strlen(path));

  /* attach: a segsize that is no page multiple is an illegal argument; then attach properly. */
  gasnet_handlerentry_t table[] = {{0, (void (*)())dummy_handler}};
  GN_CHECK(gasnet_attach(table, 1, segsize + 1, 0) == GASNET_ERR_BAD_ARG);
  GN_CHECK(gasnet_attach(table, 1, segsize - GASNET_PAGESIZE / 2, 0) == GASNET_ERR_BAD_ARG);
  GN_OK(gasnet_attach(table, 1, segsize, 0));
  gasnet_barrier_notify((int)(global_max / GASNET_PAGESIZE), 0); /* a mismatch if any node's differs */
  GN_OK(gasnet_barrier_wait((int)(global_max / GASNET_PAGESIZE), 0));
  GN_CHECK(table[0].index == 128);
#ifndef GASNET_HYG_NO_INLINE
  /* The inline node path is open: the table this program reads (perhaps a copy of the library's
   * variable in the executable) is published, one entry per node. */
  GN_CHECK(gasnet_hyg_segments_v1 != NULL && gasnet_hyg_nnodes == gasnet_nodes());
  GN_CHECK(gasnet_hyg_segments_v1[gasnet_mynode()].mapped != NULL);
#endif

  /* Segment table: every node's segment, page-aligned, as large as asked; entries past the count
   * are left alone. */
  {
    gasnet_seginfo_t few[2];
    few[1].addr = (void *)&few;
    few[1].size = 12345;
    GN_OK(gasnet_getSegmentInfo(few, 1));
    GN_CHECK(few[1].addr == (void *)&few && few[1].size == 12345);
  }
  g_seg[nn].addr = (void *)&g_seg;
  g_seg[nn].size = 777;
  GN_OK(gasnet_getSegmentInfo(g_seg, (int)nn + 1));
  GN_CHECK(g_seg[nn].addr == (void *)&g_seg && g_seg[nn].size == 777);
  for (unsigned i = 0; i < nn; ++i)
    GN_CHECK(g_seg[i].addr != NULL && g_seg[i].size == segsize && (uintptr_t)g_seg[i].addr % GASNET_PAGESIZE == 0);

  /* My segment: every slot filled, my pattern region written (local stores). */
  memset(g_seg[me].addr, FILL, (size_t)nn * SLOT);
  for (size_t j = 0; j < SLOT; ++j)
    own_addr(me)[j] = (char)own(me, j);
  GN_OK(gasnet_barrier(1, 0));

  /* The environment is the same snapshot everywhere. */
  GN_OK(gasnet_barrier(path_digest, 0));

  /* Node info: supernodes are consistent, the same table everywhere, and a node of my supernode
   * shows its segment (its pattern region) at addr + offset. */
  {
    static gasnet_nodeinfo_t info[MAX_NODES];
    GN_OK(gasnet_getNodeInfo(info, (int)nn));
    unsigned mates = 0;
    for (unsigned i = 0; i < nn; ++i) {
      const gasnet_node_t sn = info[i].supernode;
      GN_CHECK(sn < nn && info[sn].supernode == sn);
      GN_CHECK(info[i].host < nn);
      for (unsigned j = 0; j < nn; ++j)
        if (info[j].supernode == sn)
          GN_CHECK(info[j].host == info[i].host); /* a supernode lies on one host */
      if (sn != info[me].supernode)
        continue;
      ++mates;
      const unsigned char *p = (const unsigned char *)g_seg[i].addr + info[i].offset + (size_t)nn * SLOT;
      check_own(i, 0, p, SLOT);
    }
    GN_CHECK(mates >= 1); /* me at least */
    /* Under mpirun (Open MPI), HYGASPI_NODE_SIZE=k makes virtual nodes of k ranks (the mpi and
     * hybrid tests): no supernode is larger. */
    const char *ns = getenv("HYGASPI_NODE_SIZE");
    if (getenv("OMPI_COMM_WORLD_SIZE") != NULL && ns != NULL && atoi(ns) >= 1)
      GN_CHECK(mates <= (unsigned)atoi(ns));
    gasnet_node_t sn[MAX_NODES];
    for (unsigned i = 0; i < nn; ++i)
      sn[i] = info[i].supernode;
    GN_OK(gasnet_barrier(digest(sn, nn * sizeof sn[0]), 0));
  }

  /* Puts and memsets into every node, me included. */
  g_sb = malloc(SLOT);
  unsigned char *rb = malloc(SLOT + 64), *img = malloc(SLOT);
  GN_CHECK(g_sb != NULL && rb != NULL && img != NULL);
  int nranges0 = -1;
  size_t cursor0 = 0;
  for (unsigned k = 0; k < nn; ++k) {
    const unsigned d = (me + k) % nn; /* everyone starts at a different node */
    send_all(d);
    if (nranges0 < 0) {
      nranges0 = g_nranges;
      cursor0 = g_cursor;
    }
    GN_CHECK(g_nranges == nranges0 && g_cursor == cursor0); /* one layout for every pair */
  }
  GN_OK(gasnet_barrier(2, 0));

  /* Every byte I hold: each sender's slot. */
  for (unsigned s = 0; s < nn; ++s) {
    build_expected(s, me, img);
    compare_slot("received", s, me, (const unsigned char *)slot_addr(me, s), img);
  }
  /* And everything read back with gets. */
  for (unsigned k = 0; k < nn; ++k)
    get_all((me + k) % nn, rb, img);
  region_all_nodes(rb);
  for (unsigned k = 0; k < nn; ++k)
    try_many((me + k) % nn, rb);
  GN_OK(gasnet_barrier(3, 0));
  threaded();
  dead_handles();
  free(g_sb);
  free(rb);
  free(img);

  fprintf(stderr, "[%u] gn_extended: %ld GASNET_ERR_NOT_READY answers\n", me, g_not_ready);
  GN_SUCCESS("gn_extended");
  gasnet_exit(0);
  return 0;
}
