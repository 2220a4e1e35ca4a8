/* A distributed hash table on GASNet active messages: each node owns the keys that hash to it.
 * Every node inserts its share of the keys with AM Medium requests (the owner stores the pair in
 * its table under a handler-safe lock and replies with an acknowledgement), then looks up keys of
 * every other node (the owner replies with a Medium carrying the value), and checks each answer.
 * Run: hygaspi-run -n 4 ./dht   (or mpirun -np 4 ./dht, or ./dht as a 1-node job) */
#define GASNET_PAR
#include <gasnet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEYS_PER_NODE 20000
#define TABLE_SLOTS (1u << 17) /* per node, open addressing; holds every key it can own */
#define H_INSERT 200
#define H_INSERT_ACK 201
#define H_LOOKUP 202
#define H_LOOKUP_REPLY 203

typedef struct {
  uint64_t key; /* 0: empty */
  uint64_t value;
} entry_t;

static entry_t *g_table;
static gasnet_hsl_t g_lock = GASNET_HSL_INITIALIZER;
static volatile unsigned g_acks, g_answers, g_wrong;

static uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return x;
}
static uint64_t key_of(unsigned node, unsigned i) { return ((uint64_t)node << 32 | i) + 1; }
static uint64_t value_of(uint64_t key) { return mix(key) | 1; }
static gasnet_node_t owner(uint64_t key) { return (gasnet_node_t)(mix(key ^ 0x5bd1e995u) % gasnet_nodes()); }

static entry_t *slot(uint64_t key) { /* caller holds g_lock */
  for (uint64_t i = mix(key);; ++i) {
    entry_t *e = &g_table[i % TABLE_SLOTS];
    if (e->key == key || e->key == 0)
      return e;
  }
}

static void h_insert(gasnet_token_t t, void *buf, size_t n) {
  entry_t pair;
  if (n != sizeof pair)
    abort();
  memcpy(&pair, buf, sizeof pair);
  gasnet_hsl_lock(&g_lock);
  entry_t *e = slot(pair.key);
  *e = pair;
  gasnet_hsl_unlock(&g_lock);
  gasnet_AMReplyShort0(t, H_INSERT_ACK);
}
static void h_insert_ack(gasnet_token_t t) {
  (void)t;
  ++g_acks;
}
static void h_lookup(gasnet_token_t t, gasnet_handlerarg_t hi, gasnet_handlerarg_t lo) {
  const uint64_t key = (uint64_t)(uint32_t)hi << 32 | (uint32_t)lo;
  gasnet_hsl_lock(&g_lock);
  entry_t found = *slot(key);
  gasnet_hsl_unlock(&g_lock);
  gasnet_AMReplyMedium0(t, H_LOOKUP_REPLY, &found, sizeof found);
}
static void h_lookup_reply(gasnet_token_t t, void *buf, size_t n) {
  (void)t;
  entry_t e;
  memcpy(&e, buf, n < sizeof e ? n : sizeof e);
  if (e.key == 0 || e.value != value_of(e.key))
    ++g_wrong;
  ++g_answers;
}

int main(int argc, char **argv) {
  if (gasnet_init(&argc, &argv) != GASNET_OK)
    return 1;
  gasnet_handlerentry_t handlers[] = {{H_INSERT, (void (*)())h_insert},
                                      {H_INSERT_ACK, (void (*)())h_insert_ack},
                                      {H_LOOKUP, (void (*)())h_lookup},
                                      {H_LOOKUP_REPLY, (void (*)())h_lookup_reply}};
  if (gasnet_attach(handlers, 4, 0, 0) != GASNET_OK)
    gasnet_exit(1);
  g_table = calloc(TABLE_SLOTS, sizeof *g_table);
  const unsigned me = gasnet_mynode(), n = gasnet_nodes();
  /* Insert this node's keys, a window of 64 unacknowledged inserts at a time. */
  for (unsigned i = 0; i < KEYS_PER_NODE; ++i) {
    entry_t pair = {key_of(me, i), value_of(key_of(me, i))};
    gasnet_AMRequestMedium0(owner(pair.key), H_INSERT, &pair, sizeof pair);
    GASNET_BLOCKUNTIL(i + 1 - g_acks < 64);
  }
  GASNET_BLOCKUNTIL(g_acks == KEYS_PER_NODE);
  gasnet_barrier_notify(1, 0);
  if (gasnet_barrier_wait(1, 0) != GASNET_OK)
    gasnet_exit(2);
  /* Look up the keys of the next node. */
  const unsigned other = (me + 1) % n;
  for (unsigned i = 0; i < KEYS_PER_NODE; ++i) {
    const uint64_t key = key_of(other, i);
    gasnet_AMRequestShort2(owner(key), H_LOOKUP, (gasnet_handlerarg_t)(key >> 32), (gasnet_handlerarg_t)key);
    GASNET_BLOCKUNTIL(i + 1 - g_answers < 64);
  }
  GASNET_BLOCKUNTIL(g_answers == KEYS_PER_NODE);
  unsigned stored = 0;
  for (unsigned s = 0; s < TABLE_SLOTS; ++s)
    stored += g_table[s].key != 0;
  /* Every node's count of stored keys and of wrong answers, summed on node 0 with gets would need
   * a segment; a barrier with the error count as id does it: any node with errors mismatches. */
  gasnet_barrier_notify((int)g_wrong, 0);
  const int agreed = gasnet_barrier_wait((int)g_wrong, 0) == GASNET_OK && g_wrong == 0;
  printf("dht: node %u of %u stores %u keys, %u lookups, %u wrong\n", me, n, stored, KEYS_PER_NODE, g_wrong);
  fflush(stdout);
  gasnet_barrier_notify(2, 0);
  gasnet_barrier_wait(2, 0);
  if (me == 0)
    printf("dht: %u keys on %u nodes, every lookup %s\n", KEYS_PER_NODE * n, n, agreed ? "OK" : "FAILED");
  free(g_table);
  gasnet_exit(agreed ? 0 : 3);
  return 0;
}
