// Segments created on groups smaller than GASPI_GROUP_ALL, each reached across nodes through an
// MPI window of its own on a communicator of the group's members (HYGASPI_GROUP_WINDOWS=1): the
// even ranks, the odd ranks, and the first and last rank (a group that overlaps both). In every
// group each member writes with a notification to the next member and reads it back; then the even
// ranks delete their segment and create it again, larger, and the ring runs once more (the window
// of the old segment must no longer serve). The groups create their segments one after the other:
// Open MPI 4's osc/rdma fails windows that two disjoint groups of one host make at once
// (docs/PLATFORM.md). Under mpirun with HYGASPI_LOG=3 the ctest also looks for the library's line
// that says a window of 2 members was opened. Needs an even rank count of at least 2.
#include <cstdint>
#include <vector>

#include "mr_util.hpp"

namespace {

constexpr gaspi_segment_id_t kSrc = 0, kEven = 10, kOdd = 11, kEnds = 12;
constexpr gaspi_queue_id_t kQ = 0;
constexpr gaspi_size_t kChunk = 777; // not a power of two

gaspi_rank_t g_me = 0, g_n = 0;

unsigned char pattern(gaspi_rank_t from, int round, gaspi_size_t i) {
  return static_cast<unsigned char>(from * 31 + round * 7 + i);
}

unsigned char *ptr(gaspi_segment_id_t seg) {
  gaspi_pointer_t p = nullptr;
  MR_OK(gaspi_segment_ptr(seg, &p));
  return static_cast<unsigned char *>(p);
}

gaspi_group_t make_group(const std::vector<gaspi_rank_t> &members) {
  gaspi_group_t g = 0;
  MR_OK(gaspi_group_create(&g));
  for (gaspi_rank_t r : members)
    MR_OK(gaspi_group_add(g, r));
  MR_OK(gaspi_group_commit(g, GASPI_BLOCK));
  return g;
}

// Member `members[i]` writes its chunk to the next member's segment `seg` at offset i * kChunk
// with notification i, waits for its own from the previous member, checks the bytes, and reads
// back what it wrote.
void ring(gaspi_group_t g, const std::vector<gaspi_rank_t> &members, gaspi_segment_id_t seg, int round) {
  std::size_t i = 0;
  while (members[i] != g_me)
    ++i;
  const std::size_t m = members.size();
  const gaspi_rank_t to = members[(i + 1) % m];
  const std::size_t prev = (i + m - 1) % m;
  unsigned char *src = ptr(kSrc);
  for (gaspi_size_t k = 0; k < kChunk; ++k)
    src[k] = pattern(g_me, round, k);
  MR_OK(gaspi_write_notify(kSrc, 0, to, seg, i * kChunk, kChunk, static_cast<gaspi_notification_id_t>(i),
                           static_cast<gaspi_notification_t>(round), kQ, GASPI_BLOCK));
  gaspi_notification_id_t got = 0;
  MR_OK(gaspi_notify_waitsome(seg, static_cast<gaspi_notification_id_t>(prev), 1, &got, GASPI_BLOCK));
  gaspi_notification_t value = 0;
  MR_OK(gaspi_notify_reset(seg, got, &value));
  MR_CHECK(got == prev && value == static_cast<gaspi_notification_t>(round));
  const unsigned char *mine = ptr(seg) + prev * kChunk;
  for (gaspi_size_t k = 0; k < kChunk; ++k)
    MR_CHECK(mine[k] == pattern(members[prev], round, k));
  MR_OK(gaspi_read(kSrc, kChunk, to, seg, i * kChunk, kChunk, kQ, GASPI_BLOCK));
  MR_OK(gaspi_wait(kQ, GASPI_BLOCK));
  for (gaspi_size_t k = 0; k < kChunk; ++k)
    MR_CHECK(src[kChunk + k] == pattern(g_me, round, k));
  MR_OK(gaspi_barrier(g, GASPI_BLOCK)); // nobody deletes or rewrites while a member still reads
}

} // namespace

int main() {
  mr_init(g_me, g_n);
  MR_CHECK(g_n >= 2 && g_n % 2 == 0);
  MR_OK(gaspi_segment_create(kSrc, 2 * kChunk, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  std::vector<gaspi_rank_t> evens, odds, ends{0, static_cast<gaspi_rank_t>(g_n - 1)};
  for (gaspi_rank_t r = 0; r < g_n; ++r)
    (r % 2 == 0 ? evens : odds).push_back(r);
  const bool even = g_me % 2 == 0;
  const bool end = g_me == 0 || g_me == g_n - 1;
  const gaspi_group_t mine = make_group(even ? evens : odds);
  const gaspi_group_t ends_group = end ? make_group(ends) : 0;
  const gaspi_segment_id_t own = even ? kEven : kOdd;
  const std::vector<gaspi_rank_t> &members = even ? evens : odds;
  // The even ranks' segment, then the odd ranks', then the ends': one group at a time.
  for (int turn = 0; turn < 3; ++turn) {
    if ((turn == 0 && even) || (turn == 1 && !even))
      MR_OK(gaspi_segment_create(own, members.size() * kChunk, mine, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
    if (turn == 2 && end)
      MR_OK(gaspi_segment_create(kEnds, ends.size() * kChunk, ends_group, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
    MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  }
  ring(mine, members, own, 1);
  if (end)
    ring(ends_group, ends, kEnds, 2);
  // The even ranks' segment again, larger: a new generation, a new window.
  if (even) {
    MR_OK(gaspi_segment_delete(kEven));
    MR_OK(gaspi_segment_create(kEven, 2 * members.size() * kChunk, mine, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
    ring(mine, members, kEven, 3);
  }
  mr_finish("mr_group_windows");
  return 0;
}
