// Segments (spec §7.2): alloc + register, create, bind + register and use of malloc'd memory,
// each reached by every rank with write_notify and read; the segment getters; delete and
// re-create with another size (peers must see the new size and data); GASPI_MEM_INITIALIZED;
// many create/delete cycles without leaking; a segment created on a subset group; segments bound
// over parts of other segments.
#include <dirent.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mr_util.hpp"

namespace {

constexpr gaspi_segment_id_t kSrc = 0, kAlloc = 1, kBind = 2, kUse = 3, kSub = 5;
constexpr gaspi_queue_id_t kQ = 0;
constexpr gaspi_size_t kChunk = 1000; // deliberately not a power of two

gaspi_rank_t g_me = 0, g_n = 1;

unsigned char pattern(gaspi_rank_t from, unsigned tag, gaspi_size_t i) {
  return static_cast<unsigned char>((from * 41 + tag * 23 + i * 7 + (i >> 9)) & 0xff);
}

unsigned char *seg_ptr(gaspi_segment_id_t seg) {
  gaspi_pointer_t p = nullptr;
  MR_OK(gaspi_segment_ptr(seg, &p));
  MR_CHECK(p != nullptr);
  return static_cast<unsigned char *>(p);
}

#define expect_zero(p, from, to) expect_zero_at(__LINE__, p, from, to)
void expect_zero_at(int line, const unsigned char *p, gaspi_size_t from, gaspi_size_t to) {
  for (gaspi_size_t i = from; i < to; ++i)
    if (p[i] != 0) {
      std::fprintf(stderr, "rank %u line %d: byte %lu of [%lu, %lu) is %u, not 0\n", g_me, line, i, from, to, p[i]);
      MR_CHECK(!"memory not zero");
    }
}

// Every rank writes kChunk bytes into [base + me*kChunk, ...) of segment `seg` of every rank
// (itself included) with write_notify (id = writer, value = tag), checks what arrived in `local`
// (this rank's memory of `seg`), then reads its own chunk back from every rank.
void all_to_all(gaspi_segment_id_t seg, gaspi_offset_t base, unsigned tag, const unsigned char *local) {
  unsigned char *src = seg_ptr(kSrc);
  for (gaspi_size_t i = 0; i < kChunk; ++i)
    src[i] = pattern(g_me, tag, i);
  for (gaspi_rank_t r = 0; r < g_n; ++r)
    MR_OK(gaspi_write_notify(kSrc, 0, r, seg, base + g_me * kChunk, kChunk, g_me, tag, kQ, GASPI_BLOCK));
  MR_OK(gaspi_wait(kQ, GASPI_BLOCK));

  std::vector<bool> seen(g_n, false);
  for (gaspi_rank_t got_n = 0; got_n < g_n; ++got_n) {
    gaspi_notification_id_t id = 0;
    MR_OK(gaspi_notify_waitsome(seg, 0, g_n, &id, GASPI_BLOCK));
    gaspi_notification_t val = 0;
    MR_OK(gaspi_notify_reset(seg, id, &val));
    MR_CHECK(id < g_n && !seen[id]);
    MR_CHECK(val == tag);
    seen[id] = true;
  }
  for (gaspi_rank_t r = 0; r < g_n; ++r)
    for (gaspi_size_t i = 0; i < kChunk; ++i)
      if (local[base + r * kChunk + i] != pattern(r, tag, i))
        MR_CHECK(!"all_to_all: written bytes differ");

  // Read back what this rank wrote to every rank; the readback area of kSrc starts at kChunk.
  for (gaspi_rank_t r = 0; r < g_n; ++r)
    MR_OK(gaspi_read(kSrc, kChunk * (1 + r), r, seg, base + g_me * kChunk, kChunk, kQ, GASPI_BLOCK));
  MR_OK(gaspi_wait(kQ, GASPI_BLOCK));
  for (gaspi_rank_t r = 0; r < g_n; ++r)
    for (gaspi_size_t i = 0; i < kChunk; ++i)
      if (src[kChunk * (1 + r) + i] != pattern(g_me, tag, i))
        MR_CHECK(!"all_to_all: read bytes differ");
  std::memset(src + kChunk, 0, kChunk * g_n);
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK)); // nobody touches `seg` any more
}

void register_with_all(gaspi_segment_id_t seg) {
  for (gaspi_rank_t r = 0; r < g_n; ++r)
    if (r != g_me)
      MR_OK(gaspi_segment_register(seg, r, GASPI_BLOCK));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
}

gaspi_size_t alloc_size(gaspi_rank_t r) { return g_n * kChunk + r * 4096 + 64; }
gaspi_size_t recreated_size(gaspi_rank_t r) { return 2 * alloc_size(g_n) + r * 8192 + 8; }

std::vector<gaspi_segment_id_t> list_segments() {
  gaspi_number_t num = 0;
  MR_OK(gaspi_segment_num(&num));
  std::vector<gaspi_segment_id_t> ids(num + 1, 0xee);
  MR_OK(gaspi_segment_list(num, ids.data()));
  MR_CHECK(ids[num] == 0xee); // no more than num entries written
  ids.resize(num);
  return ids;
}

// Shared memory this process has mapped and touched (kB): bounded if deleted segments are released.
long rss_shmem_kb() {
  FILE *f = std::fopen("/proc/self/status", "r");
  MR_CHECK(f != nullptr);
  char line[256];
  long kb = -1;
  while (std::fgets(line, sizeof line, f))
    if (std::sscanf(line, "RssShmem: %ld kB", &kb) == 1)
      break;
  std::fclose(f);
  return kb;
}

// The /dev/shm objects that hold this rank's segments (0 for a standalone 1-rank job, whose
// objects are unlinked at creation).
int shm_segment_objects() {
  const char *job = std::getenv("HYGASPI_JOB");
  if (job == nullptr || *job == '\0')
    return 0;
  const std::string prefix = std::string("hygaspi-") + job + "-s" + std::to_string(g_me) + "-";
  DIR *d = opendir("/dev/shm");
  if (d == nullptr)
    return 0;
  int count = 0;
  while (dirent *e = readdir(d))
    if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0)
      ++count;
  closedir(d);
  return count;
}

void getters(gaspi_size_t bind_size, gaspi_size_t use_size) {
  gaspi_number_t num = 0;
  MR_OK(gaspi_segment_num(&num));
  MR_CHECK(num == 4);
  auto ids = list_segments();
  MR_CHECK(ids.size() == 4 && ids[0] == kSrc && ids[1] == kAlloc && ids[2] == kBind && ids[3] == kUse);
  gaspi_segment_id_t part[3] = {0xee, 0xee, 0xee};
  MR_OK(gaspi_segment_list(2, part));
  MR_CHECK(part[0] == kSrc && part[1] == kAlloc && part[2] == 0xee);
  // More ids than the rank has segments cannot be collected: an error, and only the 4 written.
  gaspi_segment_id_t more[6] = {0xee, 0xee, 0xee, 0xee, 0xee, 0xee};
  MR_EXPECT(GASPI_ERROR, gaspi_segment_list(5, more));
  MR_CHECK(more[3] == kUse && more[4] == 0xee && more[5] == 0xee);
  gaspi_segment_id_t avail = 0;
  MR_OK(gaspi_segment_avail_local(&avail));
  MR_CHECK(avail == 4);
  for (gaspi_rank_t r = 0; r < g_n; ++r) {
    gaspi_size_t s = 0;
    MR_OK(gaspi_segment_size(kSrc, r, &s));
    MR_CHECK(s == (g_n + 1) * kChunk);
    MR_OK(gaspi_segment_size(kAlloc, r, &s));
    MR_CHECK(s == alloc_size(r));
    MR_OK(gaspi_segment_size(kBind, r, &s));
    MR_CHECK(s == bind_size);
    MR_OK(gaspi_segment_size(kUse, r, &s));
    MR_CHECK(s == use_size);
    MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_size(4, r, &s));
  }
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK)); // every rank has looked before any deletes
}

void recreate() {
  MR_OK(gaspi_segment_delete(kAlloc));
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_delete(kAlloc));
  gaspi_segment_id_t avail = 0;
  MR_OK(gaspi_segment_avail_local(&avail));
  MR_CHECK(avail == kAlloc);
  gaspi_pointer_t p = nullptr;
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_ptr(kAlloc, &p));
  gaspi_number_t num = 0;
  MR_OK(gaspi_segment_num(&num));
  MR_CHECK(num == 3);
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK)); // deleted everywhere
  for (gaspi_rank_t r = 0; r < g_n; ++r) {
    gaspi_size_t s = 0;
    MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_size(kAlloc, r, &s));
    MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_write(kSrc, 0, r, kAlloc, 0, 8, kQ, GASPI_BLOCK));
    MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_notify(kAlloc, r, 0, 1, kQ, GASPI_BLOCK));
  }
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));

  // Same id, another size on every rank (larger than the old one), zero-initialised.
  MR_OK(gaspi_segment_create(kAlloc, recreated_size(g_me), GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  unsigned char *mem = seg_ptr(kAlloc);
  expect_zero(mem, 0, recreated_size(g_me)); // none of the old segment's data
  gaspi_notification_id_t first = 0;
  MR_EXPECT(GASPI_TIMEOUT, gaspi_notify_waitsome(kAlloc, 0, 1024, &first, GASPI_TEST)); // nor its notifications
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));                                   // checked before anyone writes
  for (gaspi_rank_t r = 0; r < g_n; ++r) {
    gaspi_size_t s = 0;
    MR_OK(gaspi_segment_size(kAlloc, r, &s));
    MR_CHECK(s == recreated_size(r));
    // One byte past the end of the new segment is rejected, the last bytes are reachable below.
    MR_EXPECT(GASPI_ERR_INV_REM_OFF, gaspi_write(kSrc, 0, r, kAlloc, recreated_size(r) - 7, 8, kQ, GASPI_BLOCK));
  }
  // Beyond the old sizes: only the new segment has room there.
  const gaspi_offset_t base = alloc_size(g_n);
  all_to_all(kAlloc, base, 77, mem);
  expect_zero(mem, 0, base);
  expect_zero(mem, base + g_n * kChunk, recreated_size(g_me));
}

void create_delete_loop() {
  constexpr int kIterations = 200;
  constexpr gaspi_size_t kLoopSize = 1ul << 20;
  const gaspi_rank_t to = static_cast<gaspi_rank_t>((g_me + 1) % g_n);
  const gaspi_rank_t from = static_cast<gaspi_rank_t>((g_me + g_n - 1) % g_n);
  gaspi_number_t baseline = 0;
  MR_OK(gaspi_segment_num(&baseline));
  const int objects_before = shm_segment_objects();
  const long rss_before = rss_shmem_kb();
  unsigned char *src = seg_ptr(kSrc);

  for (int it = 0; it < kIterations; ++it) {
    gaspi_segment_id_t id = 0;
    MR_OK(gaspi_segment_avail_local(&id));
    MR_CHECK(id == 2); // 0 and 1 are in use; the loop's id is freed every time
    const gaspi_size_t size = kLoopSize + static_cast<gaspi_size_t>(it % 7) * 4096 + 8;
    const bool init = it % 2 == 0;
    MR_OK(gaspi_segment_create(id, size, GASPI_GROUP_ALL, GASPI_BLOCK,
                               init ? GASPI_MEM_INITIALIZED : GASPI_ALLOC_DEFAULT));
    unsigned char *mem = seg_ptr(id);
    if (init)
      expect_zero(mem, 0, size - 64); // the predecessor may already be writing the last 64 bytes
    // Touch every page, except the last 64 bytes, which the predecessor may write at any time.
    std::memset(mem, 0x5a, size - 64);
    for (gaspi_size_t i = 0; i < 64; ++i)
      src[i] = pattern(g_me, static_cast<unsigned>(it), i);
    gaspi_size_t peer_size = 0;
    MR_OK(gaspi_segment_size(id, to, &peer_size));
    MR_CHECK(peer_size == size);
    MR_OK(gaspi_write_notify(kSrc, 0, to, id, size - 64, 64, 0, static_cast<gaspi_notification_t>(it + 1), kQ,
                             GASPI_BLOCK));
    gaspi_notification_id_t got = 0;
    MR_OK(gaspi_notify_waitsome(id, 0, 1, &got, GASPI_BLOCK));
    gaspi_notification_t val = 0;
    MR_OK(gaspi_notify_reset(id, got, &val));
    MR_CHECK(val == static_cast<gaspi_notification_t>(it + 1));
    for (gaspi_size_t i = 0; i < 64; ++i)
      MR_CHECK(mem[size - 64 + i] == pattern(from, static_cast<unsigned>(it), i));
    MR_CHECK(mem[0] == 0x5a && mem[size - 65] == 0x5a);
    gaspi_number_t num = 0;
    MR_OK(gaspi_segment_num(&num));
    MR_CHECK(num == baseline + 1);
    MR_OK(gaspi_wait(kQ, GASPI_BLOCK)); // our write into `to` is complete
    // The predecessor's write into our segment is complete (we saw its notification) and nobody
    // else touches it: it can go. The next iteration's create is a barrier.
    MR_OK(gaspi_segment_delete(id));
    MR_OK(gaspi_segment_num(&num));
    MR_CHECK(num == baseline);
  }
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  const int objects_after = shm_segment_objects();
  const long rss_after = rss_shmem_kb();
  if (objects_after > objects_before || rss_after - rss_before > 64 * 1024) {
    std::fprintf(stderr, "rank %u: shm objects %d -> %d, RssShmem %ld kB -> %ld kB after %d create/delete\n", g_me,
                 objects_before, objects_after, rss_before, rss_after, kIterations);
    MR_CHECK(!"deleted segments are not released");
  }
}

// A segment created on the group of even ranks exists on them only and works between them.
void subset_group() {
  gaspi_group_t g = 0;
  MR_OK(gaspi_group_create(&g));
  for (gaspi_rank_t r = 0; r < g_n; r += 2)
    MR_OK(gaspi_group_add(g, r));
  const bool member = g_me % 2 == 0;
  const gaspi_size_t size = 4 * kChunk;
  if (member) {
    MR_OK(gaspi_group_commit(g, GASPI_BLOCK));
    MR_OK(gaspi_segment_create(kSub, size, g, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
    unsigned char *mem = seg_ptr(kSub);
    expect_zero(mem, 0, size);
    MR_OK(gaspi_barrier(g, GASPI_BLOCK)); // zero checked before anyone writes
    // Ring over the even ranks.
    const gaspi_number_t members = (g_n + 1) / 2;
    const gaspi_rank_t idx = g_me / 2;
    const auto to = static_cast<gaspi_rank_t>(2 * ((idx + 1) % members));
    const auto from = static_cast<gaspi_rank_t>(2 * ((idx + members - 1) % members));
    unsigned char *src = seg_ptr(kSrc);
    for (gaspi_size_t i = 0; i < kChunk; ++i)
      src[i] = pattern(g_me, 99, i);
    MR_OK(gaspi_write_notify(kSrc, 0, to, kSub, kChunk, kChunk, 1, 99, kQ, GASPI_BLOCK));
    gaspi_notification_id_t got = 0;
    MR_OK(gaspi_notify_waitsome(kSub, 0, 8, &got, GASPI_BLOCK));
    gaspi_notification_t val = 0;
    MR_OK(gaspi_notify_reset(kSub, got, &val));
    MR_CHECK(got == 1 && val == 99);
    expect_zero(mem, 0, kChunk);
    for (gaspi_size_t i = 0; i < kChunk; ++i)
      MR_CHECK(mem[kChunk + i] == pattern(from, 99, i));
    expect_zero(mem, 2 * kChunk, size);
    MR_OK(gaspi_wait(kQ, GASPI_BLOCK));
  }
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK)); // the even ranks have their segment
  for (gaspi_rank_t r = 0; r < g_n; ++r) {
    gaspi_size_t s = 0;
    if (r % 2 == 0 && g_me % 2 == 0) { // registered with the group's members
      MR_OK(gaspi_segment_size(kSub, r, &s));
      MR_CHECK(s == size);
    } else if (r % 2 == 0) {
      // Not registered with the odd ranks: a node peer still finds it in shm, another node not.
      gaspi_return_t rc = gaspi_segment_size(kSub, r, &s);
      MR_CHECK(rc == GASPI_ERR_INV_SEG || (rc == GASPI_SUCCESS && s == size));
    } else {
      MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_size(kSub, r, &s));
    }
  }
  if (!member) {
    gaspi_pointer_t p = nullptr;
    MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_ptr(kSub, &p));
  }
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  if (member)
    MR_OK(gaspi_segment_delete(kSub));
  MR_OK(gaspi_group_delete(g));
}

// Segments bound over memory of other segments, as GPI-2's seg_subsegments test does: parts of
// an allocated segment made segments by gaspi_segment_bind and gaspi_segment_use, a part of such a
// part, and a part of bound malloc'd memory. Writes, notifications and reads from every rank
// through a sub-segment land in the parent's memory at the sub-segment's place, nowhere else;
// deleting sub-segments, or the enclosing bound segment before its part, leaves the others
// reachable.
void subsegments() {
  constexpr gaspi_segment_id_t kParent = 10, kLow = 11, kHigh = 12, kNested = 13, kUsed = 14, kMal = 15, kMalSub = 16;
  constexpr gaspi_size_t kParentSize = 64 * 1024;
  // Places in the parent, deliberately not page aligned: kLow [0, 4000), kHigh [4000, 12000),
  // kNested [8000, 12000) inside kHigh, kUsed [20000, 25000).
  constexpr gaspi_offset_t kHighAt = 4000, kNestedAt = 8000, kUsedAt = 20000, kParentFree = 30000;
  static_assert(4 * kChunk <= kHighAt && kHighAt + 4 * kChunk <= kNestedAt); // up to 4 ranks
  MR_OK(gaspi_segment_create(kParent, kParentSize, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  unsigned char *parent = seg_ptr(kParent);
  MR_OK(gaspi_segment_bind(kLow, parent, kHighAt, 0));
  MR_OK(gaspi_segment_bind(kHigh, parent + kHighAt, 2 * kHighAt, 0));
  MR_OK(gaspi_segment_bind(kNested, parent + kNestedAt, kHighAt, 0));
  MR_OK(gaspi_segment_use(kUsed, parent + kUsedAt, 5000, GASPI_GROUP_ALL, GASPI_BLOCK, 0));
  const gaspi_size_t mal_at = g_n * kChunk + 100;
  const gaspi_size_t mal_size = mal_at + 2 * g_n * kChunk;
  auto *mal = static_cast<unsigned char *>(std::malloc(mal_size));
  MR_CHECK(mal != nullptr);
  std::memset(mal, 0, mal_size);
  MR_OK(gaspi_segment_bind(kMal, mal, mal_size, 0));
  MR_OK(gaspi_segment_bind(kMalSub, mal + mal_at, g_n * kChunk, 0));
  MR_CHECK(seg_ptr(kLow) == parent && seg_ptr(kHigh) == parent + kHighAt && seg_ptr(kNested) == parent + kNestedAt &&
           seg_ptr(kUsed) == parent + kUsedAt && seg_ptr(kMalSub) == mal + mal_at);
  for (gaspi_segment_id_t s : {kLow, kHigh, kNested, kMal, kMalSub})
    register_with_all(s);
  for (gaspi_rank_t r = 0; r < g_n; ++r) {
    gaspi_size_t size = 0;
    MR_OK(gaspi_segment_size(kNested, r, &size));
    MR_CHECK(size == kHighAt);
  }

  all_to_all(kHigh, 0, 41, parent + kHighAt);
  all_to_all(kNested, 0, 42, parent + kNestedAt);
  all_to_all(kUsed, 0, 43, parent + kUsedAt);
  all_to_all(kMalSub, 0, 44, mal + mal_at);
  // Nothing landed outside the sub-segments' places, nor in the parent's notifications.
  expect_zero(parent, 0, kHighAt);
  expect_zero(parent, kHighAt + g_n * kChunk, kNestedAt);
  expect_zero(parent, kNestedAt + g_n * kChunk, kUsedAt);
  expect_zero(parent, kUsedAt + g_n * kChunk, kParentSize);
  expect_zero(mal, 0, mal_at);
  expect_zero(mal, mal_at + g_n * kChunk, mal_size);
  gaspi_notification_id_t first = 0;
  MR_EXPECT(GASPI_TIMEOUT, gaspi_notify_waitsome(kParent, 0, 64, &first, GASPI_TEST));
  MR_EXPECT(GASPI_TIMEOUT, gaspi_notify_waitsome(kMal, 0, 64, &first, GASPI_TEST));

  // Reads through kLow see what its owner put into the parent's first bytes.
  for (gaspi_size_t i = 0; i < kChunk; ++i)
    parent[i] = pattern(g_me, 45, i);
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  unsigned char *src = seg_ptr(kSrc);
  for (gaspi_rank_t r = 0; r < g_n; ++r)
    MR_OK(gaspi_read(kSrc, kChunk * (1 + r), r, kLow, 0, kChunk, kQ, GASPI_BLOCK));
  MR_OK(gaspi_wait(kQ, GASPI_BLOCK));
  for (gaspi_rank_t r = 0; r < g_n; ++r)
    for (gaspi_size_t i = 0; i < kChunk; ++i)
      MR_CHECK(src[kChunk * (1 + r) + i] == pattern(r, 45, i));
  std::memset(src + kChunk, 0, kChunk * g_n);
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK)); // read everywhere before kLow goes

  // Sub-segments go; the parent and kHigh stay reachable. The enclosing bound segment goes
  // before its part; the part stays reachable.
  MR_OK(gaspi_segment_delete(kLow));
  MR_OK(gaspi_segment_delete(kNested));
  MR_OK(gaspi_segment_delete(kMal));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  all_to_all(kHigh, 0, 46, parent + kHighAt);
  all_to_all(kParent, kParentFree, 47, parent);
  all_to_all(kMalSub, 0, 48, mal + mal_at);
  all_to_all(kUsed, 0, 49, parent + kUsedAt);

  for (gaspi_segment_id_t s : {kMalSub, kHigh, kUsed, kParent})
    MR_OK(gaspi_segment_delete(s));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK)); // no peer reaches `mal` any more
  std::free(mal);
}

} // namespace

int main() {
  mr_init(g_me, g_n);
  gaspi_number_t num = 99;
  MR_OK(gaspi_segment_num(&num));
  MR_CHECK(num == 0);
  gaspi_segment_id_t avail = 99;
  MR_OK(gaspi_segment_avail_local(&avail));
  MR_CHECK(avail == 0);

  // gaspi_segment_create on GASPI_GROUP_ALL, zero-initialised: the source and readback area.
  MR_OK(gaspi_segment_create(kSrc, (g_n + 1) * kChunk, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  expect_zero(seg_ptr(kSrc), 0, (g_n + 1) * kChunk);

  // gaspi_segment_alloc + gaspi_segment_register with every other rank + barrier; a different
  // size on every rank.
  MR_OK(gaspi_segment_alloc(kAlloc, alloc_size(g_me), GASPI_MEM_INITIALIZED));
  expect_zero(seg_ptr(kAlloc), 0, alloc_size(g_me));
  register_with_all(kAlloc);
  all_to_all(kAlloc, 0, 11, seg_ptr(kAlloc));
  all_to_all(kAlloc, alloc_size(0) - g_n * kChunk, 12, seg_ptr(kAlloc)); // up to the smallest end

  // gaspi_segment_bind on malloc'd memory + register.
  const gaspi_size_t bind_size = g_n * kChunk + 100;
  auto *bound = static_cast<unsigned char *>(std::malloc(bind_size));
  MR_CHECK(bound != nullptr);
  std::memset(bound, 0xee, bind_size);
  MR_OK(gaspi_segment_bind(kBind, bound, bind_size, 0));
  MR_CHECK(seg_ptr(kBind) == bound);
  register_with_all(kBind);
  all_to_all(kBind, 0, 21, bound);
  for (gaspi_size_t i = g_n * kChunk; i < bind_size; ++i)
    MR_CHECK(bound[i] == 0xee);

  // gaspi_segment_use on malloc'd memory (collective on GASPI_GROUP_ALL).
  const gaspi_size_t use_size = g_n * kChunk + 4096 * 3 + 1;
  auto *used = static_cast<unsigned char *>(std::malloc(use_size));
  MR_CHECK(used != nullptr);
  std::memset(used, 0xcc, use_size);
  MR_OK(gaspi_segment_use(kUse, used, use_size, GASPI_GROUP_ALL, GASPI_BLOCK, 0));
  MR_CHECK(seg_ptr(kUse) == used);
  all_to_all(kUse, 0, 31, used);
  all_to_all(kUse, use_size - g_n * kChunk, 32, used); // the last byte included
  for (gaspi_size_t i = g_n * kChunk; i < use_size - g_n * kChunk; ++i)
    MR_CHECK(used[i] == 0xcc);

  getters(bind_size, use_size);
  recreate();

  // Deleting bound or used memory leaves the memory and its contents to the caller.
  MR_OK(gaspi_segment_delete(kBind));
  MR_OK(gaspi_segment_delete(kUse));
  for (gaspi_size_t i = 0; i < kChunk; ++i)
    MR_CHECK(bound[i] == pattern(0, 21, i) && used[i] == pattern(0, 31, i));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK)); // no peer reaches them any more
  std::free(bound);
  std::free(used);

  create_delete_loop();
  subset_group();
  subsegments();

  auto ids = list_segments();
  MR_CHECK(ids.size() == 2 && ids[0] == kSrc && ids[1] == kAlloc);
  mr_finish("mr_segments");
  return 0;
}
