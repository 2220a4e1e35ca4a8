/* Active-message floods and the receiver's memory.
 *
 * Phase 1, many to one: every other node sends K requests (Shorts, and Mediums of 200, 1000 and
 * 4000 bytes: the last above the 1 KiB eager receives of the MPI path, so it takes the large tag)
 * to node 0, which meanwhile computes for kComputeSeconds without any library call, then drains.
 * Node 0 checks that every message arrived once, in its sender's order, with its bytes, and that
 * its peak resident set grew by less than kFixedBytes + kPerSenderBytes per sender. A node peer
 * (shm) that finds its ring full waits; a sender on another node must be held back as well (flow
 * control of the MPI path), or node 0's memory grows with everything the senders could send.
 * Bound: each sender may have at most a 128 KiB window per lane outstanding over MPI (request
 * lane only here), so 1 MiB per sender leaves room for MPI's own per-message bookkeeping; the
 * fixed part covers the runtime and MPI buffers that a first flood allocates. Before the flow
 * control, node 0 grew by hundreds of MB here.
 *
 * Phase 2, all to all: every node sends K2 requests to every other node in turn, and each request
 * handler replies. Nobody polls except inside its sends, so a sender held back must keep serving
 * its own lanes, or the job deadlocks. Every request and reply is counted, in order per sender. */
#include <sched.h>
#include <time.h>

#include "gn_util.h"

#define H_ONE 200
#define H_ONE_MEDIUM 201
#define H_ALL 202
#define H_ALL_REPLY 203

enum { kMaxNodes = 256 };
static const unsigned K = 12000; /* phase 1: messages per sender */
static const unsigned K2 = 600;  /* phase 2: requests per sender and target */
static const double kComputeSeconds = 3.0;
static const long kFixedBytes = 8l << 20;
static const long kPerSenderBytes = 1l << 20;
static const double kDrainSeconds = 60.0; /* a lost message fails here instead of hanging */

static unsigned g_next[kMaxNodes];       /* phase 1: next sequence number per sender */
static volatile unsigned g_count;        /* phase 1 messages handled */
static unsigned g_all_next[kMaxNodes];   /* phase 2: next request per sender */
static unsigned g_reply_next[kMaxNodes]; /* phase 2: next reply per target */
static volatile unsigned g_all_count, g_reply_count;

static size_t size_of(unsigned seq) {
  static const size_t sizes[4] = {0, 200, 1000, 4000};
  return sizes[seq % 4];
}
static unsigned char byte_of(unsigned src, unsigned seq, size_t j) { return (unsigned char)(src * 31u + seq * 7u + j); }

static gasnet_node_t source(gasnet_token_t t) {
  gasnet_node_t src = 0;
  GN_OK(gasnet_AMGetMsgSource(t, &src));
  GN_CHECK(src < gasnet_nodes());
  return src;
}

static void h_one(gasnet_token_t t, gasnet_handlerarg_t seq) {
  const gasnet_node_t src = source(t);
  GN_CHECK((unsigned)seq == g_next[src]); /* in order, none lost, none twice */
  GN_CHECK(size_of((unsigned)seq) == 0);
  g_next[src]++;
  g_count++;
}
static void h_one_medium(gasnet_token_t t, void *buf, size_t nbytes, gasnet_handlerarg_t seq) {
  const gasnet_node_t src = source(t);
  GN_CHECK((unsigned)seq == g_next[src]);
  GN_CHECK(nbytes == size_of((unsigned)seq));
  for (size_t j = 0; j < nbytes; ++j)
    GN_CHECK(((unsigned char *)buf)[j] == byte_of(src, (unsigned)seq, j));
  g_next[src]++;
  g_count++;
}
static void h_all(gasnet_token_t t, gasnet_handlerarg_t seq) {
  const gasnet_node_t src = source(t);
  GN_CHECK((unsigned)seq == g_all_next[src]);
  g_all_next[src]++;
  g_all_count++;
  GN_OK(gasnet_AMReplyShort1(t, H_ALL_REPLY, seq));
}
static void h_all_reply(gasnet_token_t t, gasnet_handlerarg_t seq) {
  const gasnet_node_t src = source(t);
  GN_CHECK((unsigned)seq == g_reply_next[src]);
  g_reply_next[src]++;
  g_reply_count++;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A field of /proc/self/status in bytes (VmRSS, VmHWM). */
static long status_bytes(const char *field) {
  FILE *f = fopen("/proc/self/status", "r");
  GN_CHECK(f != NULL);
  char line[256];
  long kb = -1;
  const size_t len = strlen(field);
  while (fgets(line, sizeof line, f) != NULL)
    if (strncmp(line, field, len) == 0 && line[len] == ':')
      kb = strtol(line + len + 1, NULL, 10);
  fclose(f);
  GN_CHECK(kb >= 0);
  return kb * 1024;
}

/* Polls until *count reaches target; fails after kDrainSeconds. */
static void drain(volatile unsigned *count, unsigned target) {
  const double give_up = now() + kDrainSeconds;
  while (*count < target) {
    if (gasnet_AMPoll() != GASNET_OK || now() > give_up) {
      fprintf(stderr, "[%u] drain: %u of %u messages after %.0f s\n", (unsigned)gasnet_mynode(), *count, target,
              kDrainSeconds);
      GN_CHECK(0);
    }
    sched_yield();
  }
}

/* Work that makes no library call, for `seconds`. */
static double compute(double seconds) {
  const double end = now() + seconds;
  double x = 1.0;
  while (now() < end)
    for (int i = 0; i < 100000; ++i)
      x = x * 1.0000001 + 1e-9;
  return x;
}

int main(int argc, char **argv) {
  GN_OK(gasnet_init(&argc, &argv));
  gasnet_handlerentry_t table[] = {
      {H_ONE, (void (*)())h_one},
      {H_ONE_MEDIUM, (void (*)())h_one_medium},
      {H_ALL, (void (*)())h_all},
      {H_ALL_REPLY, (void (*)())h_all_reply},
  };
  GN_OK(gasnet_attach(table, (int)(sizeof table / sizeof table[0]), 1u << 20, 0));
  const unsigned me = gasnet_mynode(), n = gasnet_nodes();
  GN_CHECK(n <= kMaxNodes && gasnet_AMMaxMedium() >= 4000);
  static unsigned char payload[4000];

  /* Phase 1. */
  GN_OK(gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS));
  if (me == 0) {
    const long before = status_bytes("VmRSS");
    (void)compute(kComputeSeconds);
    const long after_compute = status_bytes("VmHWM");
    const double t0 = now();
    drain(&g_count, (n - 1) * K);
    const long peak = status_bytes("VmHWM");
    for (unsigned s = 1; s < n; ++s)
      GN_CHECK(g_next[s] == K);
    const long bound = kFixedBytes + kPerSenderBytes * (long)(n - 1);
    printf("gn_flood: %u senders x %u messages; node 0 resident %.1f MB before, peak %.1f MB after %.0f s of "
           "computing, %.1f MB after the drain (%.2f s); growth bound %.1f MB\n",
           n - 1, K, before / 1e6, after_compute / 1e6, kComputeSeconds, peak / 1e6, now() - t0, bound / 1e6);
    fflush(stdout);
    GN_CHECK(peak - before < bound);
  } else {
    for (unsigned seq = 0; seq < K; ++seq) {
      const size_t nbytes = size_of(seq);
      if (nbytes == 0) {
        GN_OK(gasnet_AMRequestShort1(0, H_ONE, (gasnet_handlerarg_t)seq));
        continue;
      }
      for (size_t j = 0; j < nbytes; ++j)
        payload[j] = byte_of(me, seq, j);
      GN_OK(gasnet_AMRequestMedium1(0, H_ONE_MEDIUM, payload, nbytes, (gasnet_handlerarg_t)seq));
    }
  }
  GN_OK(gasnet_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS));

  /* Phase 2. */
  for (unsigned seq = 0; seq < K2; ++seq)
    for (unsigned k = 1; k < n; ++k)
      GN_OK(gasnet_AMRequestShort1((me + k) % n, H_ALL, (gasnet_handlerarg_t)seq));
  drain(&g_all_count, (n - 1) * K2);
  drain(&g_reply_count, (n - 1) * K2);
  for (unsigned s = 0; s < n; ++s)
    GN_CHECK(s == me || (g_all_next[s] == K2 && g_reply_next[s] == K2));
  GN_SUCCESS("gn_flood");
  gasnet_exit(0);
  return 0;
}
