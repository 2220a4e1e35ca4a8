/* Memory kinds [GEX-MK]: endpoints, segments of host and CUDA device memory, publication, TM-pairs
 * and RMA through them, after the case matrix of GASNet-EX's testcudauva.c, testsegment.c and
 * testtmpair.c, plus the loopback cases GASNet-EX lacks. It runs on any CUDA driver: the tests
 * load the project's fake one (tests/fake_cuda, device memory that a host load or store crashes
 * on) through HYGASPI_CUDA_LIBRARY, and a GPU machine its real one. Data is only ever checked
 * through RMA into host memory.
 *
 * Default scene, on every rank:
 *  - gex_MK_Create (created, destroyed, created again), bad kinds and segments: GASNET_ERR_BAD_ARG
 *    with the output untouched;
 *  - two device endpoints, indices 1 and 2: ep1 bound to a library-allocated device segment, ep2
 *    to a client-allocated one (device memory of a third, unbound segment); ep3 published before
 *    it has a segment, then with a host segment;
 *  - with every rank (itself included): host -> device puts (NBI), device -> host gets (NB),
 *    device -> device puts and gets (NB, NBI, and NBI inside an access region), value forms (a
 *    node peer's device memory through CUDA IPC, another node's served by its owner), and
 *    device -> primordial host segment puts and gets;
 *  - then every segment destroyed, and the kind.
 * Scenes `nodriver`, `stub`, `nodevice`, `nouva` (run with the matching driver setting): the kind
 * is refused with GASNET_ERR_BAD_ARG, and host segments, endpoints and loopback RMA still work.
 * Scene `async` (MPI and hybrid paths): NB and NBI transfers with another node's device segment
 * return before its owner, outside the library, serves them (async_transfers); the last ones are
 * never synced, and gasnet_exit still ends the process.
 * Scene `oom`: a library-allocated device segment is refused with GASNET_ERR_RESOURCE. Scenes
 * `badrange`, `bindzero`, `destroymk`, `afterdestroy`, `devother`, `devprim`, `ampair1`,
 * `binddestroyed`, `qbadrank`: bad input that is fatal, naming the call (`afterdestroy`: a put into
 * a node peer's destroyed device segment, which every node peer forgot and unmapped before the
 * owner freed it). The default scene also sends AMs through the TM-pair of the primordial
 * endpoints and asks the AM limits through a device endpoint's TM-pair. */
#define GASNET_PAR 1
#include <gasnet_mk.h>
#include <gasnetex.h>
#include <dlfcn.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gex_check.h"

#define MAXR 64
#define CHUNK 4096              /* bytes each rank writes into a peer's device segment */
#define SEG (MAXR * CHUNK)      /* every device segment */
#define PRIM (2 * MAXR * CHUNK) /* the primordial host segment */

static gex_Client_t client;
static gex_EP_t ep0, ep1, ep2, ep3;
static gex_TM_t tm;
static gex_Rank_t me, n;
static gex_Segment_t prim, seg1, seg2, seg_other, seg3;
static unsigned char *prim_base;
static int device_allocates = 1; /* 0 in the `oom` scene */

static void barrier(void) { gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)); }
static unsigned char pattern(unsigned from, unsigned to, size_t i, unsigned salt) {
  return (unsigned char)(from * 31u + to * 7u + i * 3u + salt);
}
static void fill(unsigned char *buf, unsigned from, unsigned to, unsigned salt) {
  for (size_t i = 0; i < CHUNK; ++i)
    buf[i] = pattern(from, to, i, salt);
}
static void expect(const unsigned char *buf, unsigned from, unsigned to, unsigned salt) {
  for (size_t i = 0; i < CHUNK; ++i)
    if (buf[i] != pattern(from, to, i, salt)) {
      fprintf(stderr, "[%u] byte %zu from %u to %u (salt %u): %u, expected %u\n", me, i, from, to, salt, buf[i],
              pattern(from, to, i, salt));
      CHECK(0);
    }
}

static gex_MK_t make_kind(int *rc) {
  gex_MK_Create_args_t args;
  memset(&args, 0, sizeof args);
  args.gex_class = GEX_MK_CLASS_CUDA_UVA;
  args.gex_args.gex_class_cuda_uva.gex_CUdevice = 0;
  gex_MK_t kind = GEX_MK_INVALID;
  *rc = gex_MK_Create(&kind, client, &args, 0);
  return kind;
}

/* Bad kinds and segments: GASNET_ERR_BAD_ARG, outputs untouched. */
static void refusals(gex_MK_t kind) {
  gex_MK_Create_args_t args;
  memset(&args, 0, sizeof args);
  gex_MK_t k = (gex_MK_t)(uintptr_t)0x5a5a0;
  args.gex_class = GEX_MK_CLASS_HIP;
  CHECK(gex_MK_Create(&k, client, &args, 0) == GASNET_ERR_BAD_ARG && k == (gex_MK_t)(uintptr_t)0x5a5a0);
  args.gex_class = GEX_MK_CLASS_ZE;
  CHECK(gex_MK_Create(&k, client, &args, 0) == GASNET_ERR_BAD_ARG && k == (gex_MK_t)(uintptr_t)0x5a5a0);
  args.gex_class = (gex_MK_Class_t)77;
  CHECK(gex_MK_Create(&k, client, &args, 0) == GASNET_ERR_BAD_ARG && k == (gex_MK_t)(uintptr_t)0x5a5a0);
  args.gex_class = GEX_MK_CLASS_CUDA_UVA;
  args.gex_args.gex_class_cuda_uva.gex_CUdevice = 4096; /* no such device */
  CHECK(gex_MK_Create(&k, client, &args, 0) == GASNET_ERR_BAD_ARG && k == (gex_MK_t)(uintptr_t)0x5a5a0);
  gex_Segment_t s = (gex_Segment_t)(uintptr_t)0x7070;
  static char host[64];
  CHECK(gex_Segment_Create(&s, client, NULL, 0, GEX_MK_HOST, 0) == GASNET_ERR_BAD_ARG);
  CHECK(gex_Segment_Create(&s, client, (void *)(uintptr_t)-64, 128, GEX_MK_HOST, 0) == GASNET_ERR_BAD_ARG);
  CHECK(gex_Segment_Create(&s, client, host, sizeof host, (gex_MK_t)(uintptr_t)0x999, 0) == GASNET_ERR_BAD_ARG);
  CHECK(gex_Segment_Create(&s, client, NULL, (uintptr_t)-1, GEX_MK_HOST, 0) == GASNET_ERR_BAD_ARG);
  /* Host memory must be readable and writable [GEX-MK 4.2]: read-only, inaccessible, unmapped. */
  char *map = mmap(NULL, 3 * 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(map != MAP_FAILED && mprotect(map + 4096, 4096, PROT_NONE) == 0 && munmap(map + 2 * 4096, 4096) == 0);
  CHECK(gex_Segment_Create(&s, client, map, 4096, GEX_MK_HOST, 0) == GASNET_ERR_BAD_ARG);
  CHECK(gex_Segment_Create(&s, client, map + 4096, 4096, GEX_MK_HOST, 0) == GASNET_ERR_BAD_ARG);
  CHECK(gex_Segment_Create(&s, client, map + 2 * 4096, 4096, GEX_MK_HOST, 0) == GASNET_ERR_BAD_ARG);
  CHECK(mprotect(map, 4096, PROT_READ | PROT_WRITE) == 0);
  CHECK(gex_Segment_Create(&s, client, map, 4097, GEX_MK_HOST, 0) == GASNET_ERR_BAD_ARG); /* one byte too many */
  if (kind != GEX_MK_INVALID) {
    CHECK(gex_Segment_Create(&s, client, host, sizeof host, kind, 0) == GASNET_ERR_BAD_ARG); /* host memory */
    CHECK(gex_Segment_Create(&s, client, NULL, 0, kind, 0) == GASNET_ERR_BAD_ARG);
    gex_Segment_t dev; /* device memory described as host (the `oom` scene has none) */
    const int rc = gex_Segment_Create(&dev, client, NULL, 4096, kind, 0);
    CHECK(rc == (device_allocates ? GASNET_OK : GASNET_ERR_RESOURCE));
    if (rc == GASNET_OK) {
      CHECK(gex_Segment_Create(&s, client, gex_Segment_QueryAddr(dev), 4096, GEX_MK_HOST, 0) == GASNET_ERR_BAD_ARG);
      gex_Segment_Destroy(dev, 0);
    }
  }
  CHECK(s == (gex_Segment_t)(uintptr_t)0x7070);
  gex_Segment_t good;
  OK(gex_Segment_Create(&good, client, map, 4096, GEX_MK_HOST, 0)); /* now writable */
  gex_Segment_Destroy(good, 0);
  CHECK(munmap(map, 2 * 4096) == 0);
  gex_EP_t e = (gex_EP_t)(uintptr_t)0x3030;
  CHECK(gex_EP_Create(&e, client, 0, 0) == GASNET_ERR_BAD_ARG && e == (gex_EP_t)(uintptr_t)0x3030);
  CHECK(gex_EP_Create(&e, client, 1u << 30, 0) == GASNET_ERR_BAD_ARG && e == (gex_EP_t)(uintptr_t)0x3030);
  /* Capabilities beyond RMA and AM, which created endpoints do not support here. */
  CHECK(gex_EP_Create(&e, client, GEX_EP_CAPABILITY_VIS, 0) == GASNET_ERR_BAD_ARG && e == (gex_EP_t)(uintptr_t)0x3030);
  CHECK(gex_EP_Create(&e, client, GEX_EP_CAPABILITY_ALL, 0) == GASNET_ERR_BAD_ARG && e == (gex_EP_t)(uintptr_t)0x3030);
}

/* Host segments on a non-primordial endpoint: ep3 is published before it has a segment (nothing to
 * see), then bound to a client-allocated host segment and published again; loopback, then a put
 * into the next rank's and a get back (its owner serves both). */
static void host_endpoint(void) {
  static unsigned char mem[3 * CHUNK + 5], out[CHUNK], in[CHUNK];
  OK(gex_EP_Create(&ep3, client, GEX_EP_CAPABILITY_RMA, 0));
  OK(gex_EP_PublishBoundSegment(tm, &ep3, 1, 0));
  gex_TM_t pair3 = gex_TM_Pair(ep0, gex_EP_QueryIndex(ep3));
  void *owner = (void *)1;
  CHECK(gex_Segment_QueryBound(pair3, me, &owner, NULL, NULL) != GASNET_OK && owner == (void *)1);
  OK(gex_Segment_Create(&seg3, client, mem + 5, sizeof mem - 5, GEX_MK_HOST, 0)); /* no alignment rule */
  CHECK(gex_Segment_QueryAddr(seg3) == mem + 5 && gex_Segment_QuerySize(seg3) == sizeof mem - 5);
  OK(gex_EP_BindSegment(ep3, seg3, 0));
  CHECK(gex_EP_QuerySegment(ep3) == seg3);
  OK(gex_EP_PublishBoundSegment(tm, &ep3, 1, 0));
  void *local = NULL;
  uintptr_t size = 0;
  OK(gex_Segment_QueryBound(pair3, me, &owner, &local, &size));
  CHECK(owner == mem + 5 && local == mem + 5 && size == sizeof mem - 5);
  fill(out, me, me, 9);
  OK(gex_RMA_PutBlocking(pair3, me, mem + 5 + CHUNK, out, CHUNK, 0));
  expect(mem + 5 + CHUNK, me, me, 9);
  OK(gex_RMA_GetBlocking(pair3, in, me, mem + 5 + CHUNK, CHUNK, 0));
  expect(in, me, me, 9);
  const gex_Rank_t next = (me + 1) % n, prev = (me + n - 1) % n;
  void *theirs = NULL;
  OK(gex_Segment_QueryBound(pair3, next, &theirs, NULL, &size));
  CHECK(theirs != NULL && size == sizeof mem - 5);
  fill(out, me, next, 11);
  OK(gex_RMA_PutBlocking(pair3, next, (char *)theirs + 2 * CHUNK, out, CHUNK, 0));
  barrier();
  expect(mem + 5 + 2 * CHUNK, prev, me, 11);
  memset(in, 0, CHUNK);
  OK(gex_RMA_GetBlocking(pair3, in, next, (char *)theirs + 2 * CHUNK, CHUNK, 0));
  expect(in, me, next, 11);
  barrier();
}

/* Transfers of many AM chunks and more than one bounce piece (4 MiB), of an odd size, in ep4's
 * device segment of two halves A and B: host memory into the next rank's A; this rank's A into the
 * next rank's B (device -> device put); the next rank's A into this rank's B (device <- device
 * get). Each step is checked by a loopback get; no rank writes memory another one reads meanwhile. */
#define BIG ((size_t)5 * 1024 * 1024 + 123)
static unsigned char big_pattern(unsigned from, size_t i) {
  return (unsigned char)(from * 17u + (i % 251u) * 3u + i / 65536u);
}
static void expect_big(unsigned char *buf, gex_TM_t self, void *at, unsigned from, const char *step) {
  memset(buf, 0, BIG);
  OK(gex_RMA_GetBlocking(self, buf, me, at, BIG, 0));
  for (size_t i = 0; i < BIG; ++i)
    if (buf[i] != big_pattern(from, i)) {
      fprintf(stderr, "[%u] %s: byte %zu is %u, expected %u\n", me, step, i, buf[i], big_pattern(from, i));
      CHECK(0);
    }
}
static void big_transfers(gex_MK_t kind) {
  gex_EP_t ep4;
  gex_Segment_t seg4;
  OK(gex_EP_Create(&ep4, client, GEX_EP_CAPABILITY_RMA, 0));
  CHECK(gex_EP_QueryIndex(ep4) == 3); /* after ep1 and ep2 */
  OK(gex_Segment_Create(&seg4, client, NULL, 2 * BIG, kind, 0));
  OK(gex_EP_BindSegment(ep4, seg4, 0));
  OK(gex_EP_PublishBoundSegment(tm, &ep4, 1, 0));
  const gex_Rank_t next = (me + 1) % n;
  gex_TM_t host_pair = gex_TM_Pair(ep0, 3), dev_pair = gex_TM_Pair(ep4, 3);
  char *a = gex_Segment_QueryAddr(seg4), *b = a + BIG, *next_a = NULL;
  OK(gex_Segment_QueryBound(host_pair, next, (void **)&next_a, NULL, NULL));
  char *next_b = next_a + BIG;
  unsigned char *buf = malloc(BIG);
  CHECK(buf != NULL);
  for (size_t i = 0; i < BIG; ++i)
    buf[i] = big_pattern(me, i);
  OK(gex_RMA_PutNBI(host_pair, next, next_a, buf, BIG, GEX_EVENT_DEFER, 0));
  gex_NBI_Wait(GEX_EC_PUT, 0);
  barrier();
  expect_big(buf, host_pair, a, (me + n - 1) % n, "host -> device");
  OK(gex_RMA_PutBlocking(dev_pair, next, next_b, a, BIG, 0));
  barrier();
  expect_big(buf, host_pair, b, (me + 2 * n - 2) % n, "device -> device put");
  barrier();
  OK(gex_RMA_GetBlocking(dev_pair, b, next, next_a, BIG, 0));
  expect_big(buf, host_pair, b, me, "device <- device get");
  free(buf);
  barrier();
  gex_Segment_Destroy(seg4, 0);
}

static void device_matrix(gex_MK_t kind) {
  /* ep1: a library-allocated device segment; ep2: client-allocated, over device memory that the
   * unbound seg_other owns. Indices count from 1 in creation order. */
  OK(gex_EP_Create(&ep1, client, GEX_EP_CAPABILITY_RMA, 0));
  OK(gex_EP_Create(&ep2, client, GEX_EP_CAPABILITY_RMA, GEX_FLAG_HINT_ACCEL_ALL));
  CHECK(gex_EP_QueryIndex(ep0) == 0 && gex_EP_QueryIndex(ep1) == 1 && gex_EP_QueryIndex(ep2) == 2);
  CHECK(gex_EP_QueryFlags(ep2) == GEX_FLAG_HINT_ACCEL_ALL && gex_EP_QuerySegment(ep1) == GEX_SEGMENT_INVALID);
  OK(gex_Segment_Create(&seg1, client, NULL, SEG, kind, 0));
  OK(gex_Segment_Create(&seg_other, client, NULL, SEG + 4096, kind, 0));
  void *dev_mem = (char *)gex_Segment_QueryAddr(seg_other) + 4096;
  OK(gex_Segment_Create(&seg2, client, dev_mem, SEG, kind, 0));
  CHECK(gex_Segment_QueryAddr(seg2) == dev_mem && gex_Segment_QuerySize(seg2) == SEG);
  gex_Segment_t s = (gex_Segment_t)(uintptr_t)0x7070; /* past the end of its allocation */
  CHECK(gex_Segment_Create(&s, client, dev_mem, SEG + 1, kind, 0) == GASNET_ERR_BAD_ARG);
  CHECK(s == (gex_Segment_t)(uintptr_t)0x7070);
  OK(gex_EP_BindSegment(ep1, seg1, 0));
  /* Published in two pieces, the second naming ep1 again, and a round that names nothing. */
  gex_EP_t first[1] = {ep1}, both[2] = {ep2, ep1};
  OK(gex_EP_PublishBoundSegment(tm, first, 1, 0));
  OK(gex_EP_BindSegment(ep2, seg2, 0));
  OK(gex_EP_PublishBoundSegment(tm, both, 2, 0));
  OK(gex_EP_PublishBoundSegment(tm, NULL, 0, 0));

  gex_TM_t h_to_1 = gex_TM_Pair(ep0, 1), d1_to_2 = gex_TM_Pair(ep1, 2), d2_to_1 = gex_TM_Pair(ep2, 1);
  gex_TM_t self1 = gex_TM_Pair(ep1, 1), self2 = gex_TM_Pair(ep2, 2), d1_to_0 = gex_TM_Pair(ep1, 0);
  CHECK(gex_TM_Pair(ep0, 1) == h_to_1 && h_to_1 != d1_to_2 && h_to_1 != tm);
  unsigned char *seg1_at = gex_Segment_QueryAddr(seg1), *seg2_at = gex_Segment_QueryAddr(seg2);
  /* Every rank's device segment addresses, as the owners see them. */
  static void *addr1[MAXR], *addr2[MAXR];
  for (gex_Rank_t r = 0; r < n; ++r) {
    uintptr_t size = 0;
    void *local = (void *)1;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(h_to_1, r, &addr1[r], &local, &size, 0));
    CHECK(addr1[r] != NULL && size == SEG && (r == me ? local == seg1_at : local == NULL));
    OK(gex_Segment_QueryBound(gex_TM_Pair(ep0, 2), r, &addr2[r], NULL, &size));
    CHECK(size == SEG);
  }
  CHECK(addr1[me] == seg1_at && addr2[me] == seg2_at);

  static unsigned char out[CHUNK], in[CHUNK];
  /* Case 1: host -> every neighbour's ep1 segment (NBI), at this rank's chunk. */
  for (gex_Rank_t r = 0; r < n; ++r) {
    fill(out, me, r, 1);
    OK(gex_RMA_PutNBI(h_to_1, r, (char *)addr1[r] + (size_t)me * CHUNK, out, CHUNK, GEX_EVENT_NOW, 0));
  }
  gex_NBI_Wait(GEX_EC_PUT, 0);
  barrier();
  for (gex_Rank_t r = 0; r < n; ++r) /* loopback gets of what each neighbour wrote */
  {
    memset(in, 0, CHUNK);
    OK(gex_RMA_GetBlocking(self1, in, me, seg1_at + (size_t)r * CHUNK, CHUNK, 0));
    expect(in, r, me, 1);
  }
  /* Case 2: every neighbour's ep1 chunk back into host memory (NB). */
  for (gex_Rank_t r = 0; r < n; ++r) {
    memset(in, 0, CHUNK);
    gex_Event_t e = gex_RMA_GetNB(h_to_1, in, r, (char *)addr1[r] + (size_t)me * CHUNK, CHUNK, 0);
    if (r % 2 == 0) {
      gex_Event_WaitAll(&e, 1, 0);
    } else { /* tested until done: a deferred copy is not done at the first look */
      while (gex_Event_TestAll(&e, 1, 0) != GASNET_OK)
        gasnet_AMPoll();
    }
    CHECK(e == GEX_EVENT_INVALID);
    expect(in, me, r, 1);
  }
  barrier();
  /* Case 3: device -> device: this rank's ep1 chunk r (written by r in case 1 ... rewritten here
   * with a new salt by loopback) into r's ep2 segment. */
  for (gex_Rank_t r = 0; r < n; ++r) {
    fill(out, me, r, 3);
    OK(gex_RMA_PutBlocking(self1, me, seg1_at + (size_t)r * CHUNK, out, CHUNK, 0));
    gex_Event_t e = gex_RMA_PutNB(d1_to_2, r, (char *)addr2[r] + (size_t)me * CHUNK, seg1_at + (size_t)r * CHUNK, CHUNK,
                                  GEX_EVENT_DEFER, 0);
    gex_Event_Wait(e);
  }
  barrier();
  for (gex_Rank_t r = 0; r < n; ++r) {
    memset(in, 0, CHUNK);
    OK(gex_RMA_GetBlocking(self2, in, me, seg2_at + (size_t)r * CHUNK, CHUNK, 0));
    expect(in, r, me, 3);
  }
  barrier();
  /* Case 4: device <- device: r's ep1 chunk `me` (salt 3, from case 3) into this rank's ep2. */
  for (gex_Rank_t r = 0; r < n; ++r) {
    OK(gex_RMA_GetNBI(d2_to_1, seg2_at + (size_t)r * CHUNK, r, (char *)addr1[r] + (size_t)me * CHUNK, CHUNK, 0));
    gex_NBI_Wait(GEX_EC_GET, 0);
    memset(in, 0, CHUNK);
    OK(gex_RMA_GetBlocking(self2, in, me, seg2_at + (size_t)r * CHUNK, CHUNK, 0));
    expect(in, r, me, 3);
  }
  barrier();
  /* Case 4 again inside an NBI access region: the device copies join the region, whose event
   * gex_Event_Test reports complete only once they are done (copies are deferred on the fake). */
  memset(in, 0, CHUNK);
  for (gex_Rank_t r = 0; r < n; ++r)
    OK(gex_RMA_PutBlocking(self2, me, seg2_at + (size_t)r * CHUNK, in, CHUNK, 0));
  gex_NBI_BeginAccessRegion(0);
  for (gex_Rank_t r = 0; r < n; ++r)
    OK(gex_RMA_GetNBI(d2_to_1, seg2_at + (size_t)r * CHUNK, r, (char *)addr1[r] + (size_t)me * CHUNK, CHUNK, 0));
  gex_Event_t region = gex_NBI_EndAccessRegion(0);
  while (gex_Event_Test(region) != GASNET_OK)
    gasnet_AMPoll();
  for (gex_Rank_t r = 0; r < n; ++r) {
    memset(in, 0, CHUNK);
    OK(gex_RMA_GetBlocking(self2, in, me, seg2_at + (size_t)r * CHUNK, CHUNK, 0));
    expect(in, r, me, 3);
  }
  barrier();
  /* Value forms and an empty transfer, into the next neighbour's ep1 segment. */
  const gex_Rank_t next = (me + 1) % n;
  char *val_at = (char *)addr1[next] + SEG - 8 * MAXR + 8 * me;
  OK(gex_RMA_PutBlockingVal(h_to_1, next, val_at, 0x1122334455667788ull + me, 8, 0));
  CHECK(gex_RMA_GetBlockingVal(h_to_1, next, val_at, 8, 0) == 0x1122334455667788ull + me);
  OK(gex_RMA_PutBlockingVal(h_to_1, next, val_at, 0xab, 1, 0));
  CHECK(gex_RMA_GetBlockingVal(h_to_1, next, val_at, 2, 0) == 0x77ab); /* little-endian: the old second byte */
  OK(gex_RMA_PutBlocking(h_to_1, next, val_at, NULL, 0, 0));
  barrier();
  /* Device memory to and from every rank's primordial host segment, across nodes too: this rank's
   * ep1 chunk 0 (salt 5) into slot `me` of rank r's primordial segment, then back into ep1 chunk 1. */
  fill(out, me, 0, 5);
  OK(gex_RMA_PutBlocking(self1, me, seg1_at, out, CHUNK, 0));
  for (gex_Rank_t r = 0; r < n; ++r) {
    void *their = NULL;
    OK(gex_Segment_QueryBound(tm, r, &their, NULL, NULL));
    OK(gex_RMA_PutBlocking(d1_to_0, r, (char *)their + (size_t)me * CHUNK, seg1_at, CHUNK, 0));
  }
  barrier();
  for (gex_Rank_t r = 0; r < n; ++r)
    expect(prim_base + (size_t)r * CHUNK, r, 0, 5);
  for (gex_Rank_t r = 0; r < n; ++r) {
    void *their = NULL;
    OK(gex_Segment_QueryBound(tm, r, &their, NULL, NULL));
    OK(gex_RMA_GetBlocking(d1_to_0, seg1_at + CHUNK, r, (char *)their + (size_t)me * CHUNK, CHUNK, 0));
    memset(in, 0, CHUNK);
    OK(gex_RMA_GetBlocking(self1, in, me, seg1_at + CHUNK, CHUNK, 0));
    expect(in, me, 0, 5);
  }
  barrier();
  big_transfers(kind);
  barrier(); /* nobody reaches a segment that is destroyed next */
  gex_Segment_Destroy(seg2, 0);
  gex_Segment_Destroy(seg_other, 0);
  gex_Segment_Destroy(seg1, 0);
}

/* The client's current CUDA context is what it was: the library pushes the kind's context around
 * each driver call and pops it after. This client never made one current, so the driver (the same
 * one the library loaded) must still report none after the kind, segment and RMA calls. */
static void context_unchanged(void) {
  const char *path = getenv("HYGASPI_CUDA_LIBRARY");
  void *lib = dlopen(path != NULL ? path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  CHECK(lib != NULL);
  typedef int (*getproc_t)(const char *, void **, int, unsigned long long, int *);
  typedef int (*ctx_get_t)(void **);
  getproc_t getproc = NULL;
  *(void **)&getproc = dlsym(lib, "cuGetProcAddress_v2");
  CHECK(getproc != NULL);
  ctx_get_t ctx_get = NULL;
  int found = -1;
  CHECK(getproc("cuCtxGetCurrent", (void **)&ctx_get, 4000, 0, &found) == 0 && ctx_get != NULL);
  void *ctx = (void *)1;
  CHECK(ctx_get(&ctx) == 0 && ctx == NULL);
}

/* Device memory of the client's own (cuMemAlloc in the device's primary context, through the same
 * driver), in no segment: what UPC++ allocates before it makes a segment of it. */
static void *client_device_memory(size_t bytes) {
  const char *path = getenv("HYGASPI_CUDA_LIBRARY");
  void *lib = dlopen(path != NULL ? path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  CHECK(lib != NULL);
  typedef int (*getproc_t)(const char *, void **, int, unsigned long long, int *);
  getproc_t getproc = NULL;
  *(void **)&getproc = dlsym(lib, "cuGetProcAddress_v2");
  CHECK(getproc != NULL);
  int (*init)(unsigned) = NULL, (*retain)(void **, int) = NULL, (*push)(void *) = NULL, (*pop)(void **) = NULL;
  int (*alloc)(unsigned long long *, size_t) = NULL;
  int found = -1;
  CHECK(getproc("cuInit", (void **)&init, 2000, 0, &found) == 0);
  CHECK(getproc("cuDevicePrimaryCtxRetain", (void **)&retain, 7000, 0, &found) == 0);
  CHECK(getproc("cuCtxPushCurrent", (void **)&push, 4000, 0, &found) == 0);
  CHECK(getproc("cuCtxPopCurrent", (void **)&pop, 4000, 0, &found) == 0);
  CHECK(getproc("cuMemAlloc", (void **)&alloc, 3020, 0, &found) == 0);
  void *ctx = NULL, *popped = NULL;
  unsigned long long d = 0;
  CHECK(init(0) == 0 && retain(&ctx, 0) == 0 && push(ctx) == 0);
  CHECK(alloc(&d, bytes) == 0 && pop(&popped) == 0);
  return (void *)(uintptr_t)d;
}

/* gex_TM_Dup: the same members in the same order, with collectives of its own; a TM-pair is no
 * team (gex_TM_TranslateRankToEP gives the primordial endpoints of a team). */
static void team_dup(void) {
  gex_TM_t dup = GEX_TM_INVALID;
  CHECK(gex_TM_Dup(NULL, tm, NULL, 0, GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED) == 0);
  CHECK(gex_TM_Dup(&dup, tm, NULL, 0, GEX_FLAG_TM_NO_SCRATCH) == 0);
  CHECK(dup != GEX_TM_INVALID && dup != tm && gex_TM_QueryRank(dup) == me && gex_TM_QuerySize(dup) == n);
  for (gex_Rank_t r = 0; r < n; ++r) {
    CHECK(gex_TM_TranslateRankToJobrank(dup, r) == r);
    gex_EP_Location_t loc = gex_TM_TranslateRankToEP(dup, r, 0);
    CHECK(loc.gex_rank == r && loc.gex_ep_index == 0);
  }
  uint64_t mine = me + 1, sum = 0;
  gex_Event_Wait(gex_Coll_ReduceToAllNB(dup, &sum, &mine, GEX_DT_U64, sizeof sum, 1, GEX_OP_ADD, NULL, NULL, 0));
  CHECK(sum == (uint64_t)n * (n + 1) / 2);
  OK(gex_TM_Destroy(dup, NULL, 0));
}

/* AMs through the TM-pair of the primordial endpoints, which names job ranks as the primordial team
 * does, and the AM limits through any TM-pair [GEX-MK "TM-pairs": valid in gex_AM_* calls]. */
static volatile int am_arrived, am_sum;
static void am_count(gex_Token_t t, gex_AM_Arg_t from) {
  (void)t;
  __atomic_fetch_add(&am_sum, from, __ATOMIC_RELAXED);
  __atomic_fetch_add(&am_arrived, 1, __ATOMIC_RELEASE);
}
static gex_AM_Index_t register_count(void) {
  gex_AM_Entry_t e = {0, (gex_AM_Fn_t)am_count, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 1, NULL, "count"};
  OK(gex_EP_RegisterHandlers(ep0, &e, 1));
  return e.gex_index;
}
static void pair_am(void) {
  const gex_AM_Index_t h = register_count();
  barrier();
  const gex_TM_t p00 = gex_TM_Pair(ep0, 0);
  for (gex_Rank_t r = 0; r < n; ++r)
    OK(gex_AM_RequestShort1(p00, r, h, 0, (gex_AM_Arg_t)me));
  GASNET_BLOCKUNTIL(__atomic_load_n(&am_arrived, __ATOMIC_ACQUIRE) == (int)n);
  CHECK(am_sum == (int)(n * (n - 1) / 2));
  const gex_TM_t p11 = gex_TM_Pair(ep1, 1);
  CHECK(gex_AM_MaxRequestMedium(p11, GEX_RANK_INVALID, GEX_EVENT_NOW, 0, 2) ==
        gex_AM_MaxRequestMedium(tm, GEX_RANK_INVALID, GEX_EVENT_NOW, 0, 2));
  CHECK(gex_AM_MaxReplyLong(p11, n - 1, GEX_EVENT_NOW, 0, 0) == gex_AM_MaxReplyLong(tm, n - 1, GEX_EVENT_NOW, 0, 0));
  barrier();
}

/* ep1 over a library-allocated device segment, published. */
static void device_ep1(gex_MK_t kind) {
  OK(gex_EP_Create(&ep1, client, GEX_EP_CAPABILITY_RMA, 0));
  OK(gex_Segment_Create(&seg1, client, NULL, SEG, kind, 0));
  OK(gex_EP_BindSegment(ep1, seg1, 0));
  OK(gex_EP_PublishBoundSegment(tm, &ep1, 1, 0));
}

/* The first half of the ranks puts into and gets from a partner on another node (the second half:
 * the hybrid path's nodes are two ranks each) through ep1's device segments: staged transfers
 * (3 chunks) and inline ones (1000 bytes), NB and NBI, while the partner waits outside the library
 * in MPI_Recv for the message the initiator sends once every call has returned (the initiator
 * starts once the partner said, by MPI, that it left the library). The library runs
 * no progress thread (the program started MPI as MPI_THREAD_SERIALIZED), so nothing serves the
 * requests until the partner comes back: a transfer complete at return waits for it forever. */
#define SMALL 1000
static void async_transfers(gex_MK_t kind) {
  device_ep1(kind);
  CHECK(n % 2 == 0);
  const gex_Rank_t half = n / 2, partner = me < half ? me + half : me - half;
  const gex_TM_t pair = gex_TM_Pair(ep1, 1);
  char *mine = gex_Segment_QueryAddr(seg1), *theirs = NULL;
  OK(gex_Segment_QueryBound(pair, partner, (void **)&theirs, NULL, NULL));
  static unsigned char out[3 * CHUNK], in[3 * CHUNK];
  for (unsigned k = 0; k < 3; ++k)
    fill(out + k * CHUNK, me, partner, 20 + k);
  OK(gex_RMA_PutBlocking(pair, me, mine, out, 3 * CHUNK, 0));                 /* A: the staged source */
  OK(gex_RMA_PutBlocking(pair, me, mine + 9 * CHUNK, out + CHUNK, SMALL, 0)); /* the inline source */
  barrier();
  int token = 0;
  if (me < half) {
    CHECK(MPI_Recv(&token, 1, MPI_INT, (int)partner, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    gex_Event_t put = gex_RMA_PutNB(pair, partner, theirs + 3 * CHUNK, mine, 3 * CHUNK, GEX_EVENT_DEFER, 0);
    OK(gex_RMA_PutNBI(pair, partner, theirs + 10 * CHUNK, mine + 9 * CHUNK, SMALL, GEX_EVENT_DEFER, 0));
    gex_Event_t get = gex_RMA_GetNB(pair, mine + 6 * CHUNK, partner, theirs, 3 * CHUNK, 0);
    OK(gex_RMA_GetNBI(pair, mine + 11 * CHUNK, partner, theirs + 9 * CHUNK, SMALL, 0));
    CHECK(MPI_Send(&token, 1, MPI_INT, (int)partner, 7, MPI_COMM_WORLD) == MPI_SUCCESS);
    gex_Event_Wait(put);
    gex_Event_Wait(get);
    gex_NBI_Wait(GEX_EC_ALL, 0);
  } else { /* out of the library from here until the initiator's message */
    CHECK(MPI_Send(&token, 1, MPI_INT, (int)partner, 6, MPI_COMM_WORLD) == MPI_SUCCESS);
    CHECK(MPI_Recv(&token, 1, MPI_INT, (int)partner, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  }
  barrier();
  /* What the initiator got (at 6 and 11 chunks) and what the partner was given (at 3 and 10). */
  const size_t big_at = me < half ? 6 * CHUNK : 3 * CHUNK, small_at = me < half ? 11 * CHUNK : 10 * CHUNK;
  OK(gex_RMA_GetBlocking(pair, in, me, mine + big_at, 3 * CHUNK, 0));
  for (unsigned k = 0; k < 3; ++k)
    expect(in + k * CHUNK, partner, me, 20 + k); /* each side's source was filled for the other */
  memset(in, 0, CHUNK);
  OK(gex_RMA_GetBlocking(pair, in, me, mine + small_at, SMALL, 0));
  fill(out, partner, me, 21);
  CHECK(memcmp(in, out, SMALL) == 0);
  barrier();
}

int main(int argc, char **argv) {
  const char *scene = argc > 1 ? argv[1] : "all";
  if (!strcmp(scene, "async")) {
    int provided = 0;
    CHECK(MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided) == MPI_SUCCESS);
  }
  device_allocates = strcmp(scene, "oom") != 0;
  OK(gex_Client_Init(&client, &ep0, &tm, "GEXMK", &argc, &argv, 0));
  me = gex_TM_QueryRank(tm);
  n = gex_TM_QuerySize(tm);
  CHECK(n <= MAXR);
  OK(gex_Segment_Attach(&prim, tm, PRIM));
  prim_base = gex_Segment_QueryAddr(prim);
  CHECK(gex_EP_QueryIndex(ep0) == 0);
  int rc = 0;
  gex_MK_t kind = GEX_MK_INVALID;
  const int driver_scene =
      !strcmp(scene, "nodriver") || !strcmp(scene, "stub") || !strcmp(scene, "nodevice") || !strcmp(scene, "nouva");
  if (!driver_scene) {
    kind = make_kind(&rc);
    OK(rc);
    if (!strcmp(scene, "all")) {
      gex_MK_Destroy(kind, 0); /* created, destroyed, created again */
      kind = make_kind(&rc);
      OK(rc);
    }
  } else { /* nodriver, stub, nodevice, nouva: refused, and nothing else is touched */
    kind = (gex_MK_t)(uintptr_t)0x4242;
    gex_MK_Create_args_t args;
    memset(&args, 0, sizeof args);
    args.gex_class = GEX_MK_CLASS_CUDA_UVA;
    CHECK(gex_MK_Create(&kind, client, &args, 0) == GASNET_ERR_BAD_ARG && kind == (gex_MK_t)(uintptr_t)0x4242);
    kind = GEX_MK_INVALID;
  }
  if (!strcmp(scene, "oom")) {
    gex_Segment_t s = (gex_Segment_t)(uintptr_t)0x7070;
    CHECK(gex_Segment_Create(&s, client, NULL, SEG, kind, 0) == GASNET_ERR_RESOURCE);
    CHECK(s == (gex_Segment_t)(uintptr_t)0x7070);
  } else if (!strcmp(scene, "badrange")) { /* one byte past a published device segment: fatal */
    OK(gex_EP_Create(&ep1, client, GEX_EP_CAPABILITY_RMA, 0));
    OK(gex_Segment_Create(&seg1, client, NULL, SEG, kind, 0));
    OK(gex_EP_BindSegment(ep1, seg1, 0));
    OK(gex_EP_PublishBoundSegment(tm, &ep1, 1, 0));
    static unsigned char out[16];
    if (me == 0)
      gex_RMA_PutBlocking(gex_TM_Pair(ep0, 1), 0, (char *)gex_Segment_QueryAddr(seg1) + SEG - 8, out, 9, 0);
    barrier();
  } else if (!strcmp(scene, "bindzero")) { /* device memory on the primordial endpoint: fatal */
    OK(gex_Segment_Create(&seg1, client, NULL, SEG, kind, 0));
    gex_EP_t e0 = ep0;
    if (me == 0) {
      OK(gex_EP_Create(&ep1, client, GEX_EP_CAPABILITY_RMA, 0));
      gex_EP_BindSegment(e0, seg1, 0);
    }
    barrier();
  } else if (!strcmp(scene, "afterdestroy")) { /* a put into a node peer's destroyed segment: fatal */
    OK(gex_EP_Create(&ep1, client, GEX_EP_CAPABILITY_RMA, 0));
    OK(gex_Segment_Create(&seg1, client, NULL, SEG, kind, 0));
    OK(gex_EP_BindSegment(ep1, seg1, 0));
    OK(gex_EP_PublishBoundSegment(tm, &ep1, 1, 0));
    void *theirs = NULL;
    OK(gex_Segment_QueryBound(gex_TM_Pair(ep0, 1), 1, &theirs, NULL, NULL));
    static unsigned char out[16];
    if (me == 0) /* opens rank 1's allocation (CUDA IPC) */
      OK(gex_RMA_PutBlocking(gex_TM_Pair(ep0, 1), 1, theirs, out, sizeof out, 0));
    barrier();
    if (me == 1)
      gex_Segment_Destroy(seg1, 0); /* rank 0 closes its mapping before the memory goes */
    barrier();
    if (me == 0)
      gex_RMA_PutBlocking(gex_TM_Pair(ep0, 1), 1, theirs, out, sizeof out, 0);
    barrier();
  } else if (!strcmp(scene, "destroymk")) { /* a kind with a live segment: fatal */
    OK(gex_Segment_Create(&seg1, client, NULL, SEG, kind, 0));
    if (me == 0)
      gex_MK_Destroy(kind, 0);
    barrier();
  } else if (!strcmp(scene, "devother") || !strcmp(scene, "devprim")) {
    /* Device memory that is not in the local endpoint's bound segment taken for host memory:
     * fatal, where a host copy or Open MPI's cross-memory attach would crash or retry forever.
     * devother: another (unbound) device segment through ep1's TM-pair; devprim: ep1's own
     * segment through the primordial team (the library's path: the NB put is not inlined when
     * called by its name). */
    device_ep1(kind);
    gex_Segment_t other;
    OK(gex_Segment_Create(&other, client, NULL, SEG, kind, 0));
    void *theirs = NULL;
    OK(gex_Segment_QueryBound(gex_TM_Pair(ep0, 1), 1, &theirs, NULL, NULL));
    if (me == 0 && !strcmp(scene, "devother"))
      gex_RMA_PutBlocking(gex_TM_Pair(ep1, 1), 1, theirs, gex_Segment_QueryAddr(other), 64, 0);
    void *their_prim = NULL;
    OK(gex_Segment_QueryBound(tm, 1, &their_prim, NULL, NULL));
    if (me == 0 && !strcmp(scene, "devprim"))
      (gex_RMA_PutNB)(tm, 1, their_prim, gex_Segment_QueryAddr(seg1), 64, GEX_EVENT_NOW, 0);
    barrier();
  } else if (!strcmp(scene, "destroyedlocal") || !strcmp(scene, "plaindev")) {
    /* The local side of a get through ep1's TM-pair is not what a host or device buffer may be:
     * destroyedlocal, ep1's own segment after gex_Segment_Destroy (its memory freed: the copy
     * wrote into whatever was allocated there next); plaindev, the client's device memory in no
     * segment (over MPI, Open MPI's cross-memory attach failed on it and retried forever). */
    device_ep1(kind);
    void *theirs = NULL;
    OK(gex_Segment_QueryBound(gex_TM_Pair(ep0, 1), 1, &theirs, NULL, NULL));
    void *local = !strcmp(scene, "plaindev") ? client_device_memory(4096) : gex_Segment_QueryAddr(seg1);
    barrier();
    if (!strcmp(scene, "destroyedlocal") && me == 0)
      gex_Segment_Destroy(seg1, 0);
    if (me == 0)
      gex_RMA_GetBlocking(gex_TM_Pair(ep1, 1), local, 1, theirs, 64, 0);
    barrier();
  } else if (!strcmp(scene, "ampair1")) { /* an AM through a created endpoint's TM-pair: fatal */
    device_ep1(kind);
    const gex_AM_Index_t h = register_count();
    if (me == 0)
      gex_AM_RequestShort1(gex_TM_Pair(ep1, 1), 1, h, 0, 0);
    barrier();
  } else if (!strcmp(scene, "binddestroyed")) { /* binding a destroyed segment: fatal */
    OK(gex_EP_Create(&ep1, client, GEX_EP_CAPABILITY_RMA, 0));
    OK(gex_Segment_Create(&seg1, client, NULL, SEG, kind, 0));
    gex_Segment_Destroy(seg1, 0);
    if (me == 0)
      gex_EP_BindSegment(ep1, seg1, 0);
    barrier();
  } else if (!strcmp(scene, "async")) {
    async_transfers(kind);
  } else if (!strcmp(scene, "qbadrank")) { /* a rank outside the team: fatal, naming the call made */
    if (me == 0)
      gex_EP_QueryBoundSegmentNB(tm, n + 1, NULL, NULL, NULL, 0);
    barrier();
  }
  refusals(kind);
  if (!strcmp(scene, "all")) {
    device_matrix(kind); /* first: its endpoints are indices 1 and 2 */
    context_unchanged();
    team_dup();
    pair_am();
  }
  host_endpoint();
  barrier();
  gex_Segment_Destroy(seg3, 0);
  if (kind != GEX_MK_INVALID && strcmp(scene, "all") == 0)
    gex_MK_Destroy(kind, 0);
  if (me == 0) {
    printf("SUCCESS gex_mk%s%s\n", strcmp(scene, "all") ? " " : "", strcmp(scene, "all") ? scene : "");
    fflush(stdout);
  }
  if (!strcmp(scene, "async") && me < n / 2) { /* never synced: the exit gives them up, and ends */
    const gex_Rank_t partner = me + n / 2;
    const gex_TM_t pair = gex_TM_Pair(ep1, 1);
    char *theirs = NULL;
    OK(gex_Segment_QueryBound(pair, partner, (void **)&theirs, NULL, NULL));
    char *mine = gex_Segment_QueryAddr(seg1);
    OK(gex_RMA_GetNBI(pair, mine + 12 * CHUNK, partner, theirs, SMALL, 0));
    (void)gex_RMA_PutNB(pair, partner, theirs + 13 * CHUNK, mine, SMALL, GEX_EVENT_DEFER, 0);
  }
  gasnet_exit(0);
  return 0;
}
