// Segments made by gaspi_segment_create on GASPI_GROUP_ALL get an MPI window of their own across
// nodes (mpi_rma/rma.hpp); every other segment is reached through the dynamic window. What a
// client does that must not send a transfer through the wrong one:
//   1. ranks create two segments in opposite orders (the calls pair up across ranks with
//      different ids), then write, notify and read both;
//   2. one rank deletes a segment the others still reach through its window and makes a new one
//      under the same id (alloc + register: no window); writes must land in the new one;
//   3. a write through a segment's window, then a notification on a segment of the dynamic
//      window, to the same rank: the notification must not overtake the write;
//   4. more create/delete rounds than a process keeps windows (kMaxSegmentWindows is 64).
// On one node there are no windows and every round still checks the data.
#include <cstdint>
#include <cstring>
#include <vector>

#include "mr_util.hpp"

namespace {

constexpr gaspi_timeout_t kTimeout = 60000;
gaspi_rank_t me = 0, n = 0;

std::uint8_t pattern(gaspi_rank_t writer, std::uint32_t seg, std::size_t i, int round = 0) {
  return static_cast<std::uint8_t>(writer * 31 + seg * 7 + i * 13 + round * 5 + 1);
}

char *pointer(gaspi_segment_id_t seg) {
  gaspi_pointer_t p = nullptr;
  MR_OK(gaspi_segment_ptr(seg, &p));
  return static_cast<char *>(p);
}

// Writes `bytes` of the pattern from local segment `src` to the same offset of `seg` on the right
// neighbour, notifies it with (notification `me`, value 1) on `notify_seg`, and checks what the
// left neighbour wrote here once its notification is in.
void ring_write(gaspi_segment_id_t src, gaspi_segment_id_t seg, gaspi_segment_id_t notify_seg, std::size_t bytes,
                int round, char *at) {
  const gaspi_rank_t right = static_cast<gaspi_rank_t>((me + 1) % n);
  const gaspi_rank_t left = static_cast<gaspi_rank_t>((me + n - 1) % n);
  char *out = pointer(src);
  for (std::size_t i = 0; i < bytes; ++i)
    out[i] = static_cast<char>(pattern(me, seg, i, round));
  MR_OK(gaspi_write(src, 0, right, seg, 0, bytes, 0, kTimeout));
  MR_OK(gaspi_notify(notify_seg, right, me, 1, 0, kTimeout));
  MR_OK(gaspi_wait(0, kTimeout));
  gaspi_notification_id_t got = 0;
  MR_OK(gaspi_notify_waitsome(notify_seg, left, 1, &got, kTimeout));
  gaspi_notification_t value = 0;
  MR_OK(gaspi_notify_reset(notify_seg, got, &value));
  MR_CHECK(got == left && value == 1);
  for (std::size_t i = 0; i < bytes; ++i)
    MR_CHECK(static_cast<std::uint8_t>(at[i]) == pattern(left, seg, i, round));
}

// Reads `bytes` from `seg` of the right neighbour into local segment `dst` and checks them
// against what its left neighbour (this rank) wrote there.
void ring_read(gaspi_segment_id_t dst, gaspi_segment_id_t seg, std::size_t bytes, int round) {
  const gaspi_rank_t right = static_cast<gaspi_rank_t>((me + 1) % n);
  std::memset(pointer(dst), 0, bytes);
  MR_OK(gaspi_read(dst, 0, right, seg, 0, bytes, 1, kTimeout));
  MR_OK(gaspi_wait(1, kTimeout));
  const char *in = pointer(dst);
  for (std::size_t i = 0; i < bytes; ++i)
    MR_CHECK(static_cast<std::uint8_t>(in[i]) == pattern(me, seg, i, round));
}

void opposite_orders() {
  constexpr gaspi_segment_id_t a = 10, b = 11;
  constexpr gaspi_size_t size_a = 1 << 16, size_b = 1 << 12;
  // Even ranks create a first, odd ranks b first: each barrier pairs calls with different ids.
  if (me % 2 == 0) {
    MR_OK(gaspi_segment_create(a, size_a, GASPI_GROUP_ALL, kTimeout, GASPI_MEM_INITIALIZED));
    MR_OK(gaspi_segment_create(b, size_b, GASPI_GROUP_ALL, kTimeout, GASPI_MEM_INITIALIZED));
  } else {
    MR_OK(gaspi_segment_create(b, size_b, GASPI_GROUP_ALL, kTimeout, GASPI_MEM_INITIALIZED));
    MR_OK(gaspi_segment_create(a, size_a, GASPI_GROUP_ALL, kTimeout, GASPI_MEM_INITIALIZED));
  }
  MR_OK(gaspi_segment_alloc(20, size_a, GASPI_MEM_INITIALIZED)); // the local source
  ring_write(20, a, a, size_a, 0, pointer(a));
  ring_write(20, b, b, size_b, 0, pointer(b));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, kTimeout));
  ring_read(20, a, size_a, 0);
  ring_read(20, b, size_b, 0);
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, kTimeout));
}

void recreated_on_one_rank() {
  constexpr gaspi_segment_id_t s = 12;
  const gaspi_rank_t owner = static_cast<gaspi_rank_t>(n - 1);
  MR_OK(gaspi_segment_create(s, 1 << 14, GASPI_GROUP_ALL, kTimeout, GASPI_MEM_INITIALIZED));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, kTimeout));
  constexpr gaspi_size_t size = 1 << 15; // larger than before: its data lies elsewhere
  if (me == owner) {
    MR_OK(gaspi_segment_delete(s));
    MR_OK(gaspi_segment_alloc(s, size, GASPI_MEM_INITIALIZED));
    for (gaspi_rank_t r = 0; r < n; ++r)
      MR_OK(gaspi_segment_register(s, r, kTimeout));
  }
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, kTimeout));
  // Every other rank writes its own 1 KiB slot of the owner's new segment, then notifies it.
  constexpr std::size_t slot = 1024;
  if (me != owner) {
    char *out = pointer(20);
    for (std::size_t i = 0; i < slot; ++i)
      out[i] = static_cast<char>(pattern(me, s, i, 1));
    MR_OK(gaspi_write(20, 0, owner, s, me * slot + size / 2, slot, 0, kTimeout));
    MR_OK(gaspi_notify(s, owner, me, 1, 0, kTimeout));
    MR_OK(gaspi_wait(0, kTimeout));
  } else {
    for (gaspi_rank_t r = 0; r + 1 < n; ++r) {
      gaspi_notification_id_t got = 0;
      MR_OK(gaspi_notify_waitsome(s, 0, n, &got, kTimeout));
      gaspi_notification_t value = 0;
      MR_OK(gaspi_notify_reset(s, got, &value));
      MR_CHECK(value == 1);
    }
    const char *in = pointer(s);
    for (gaspi_rank_t r = 0; r + 1 < n; ++r)
      for (std::size_t i = 0; i < slot; ++i)
        MR_CHECK(static_cast<std::uint8_t>(in[r * slot + size / 2 + i]) == pattern(r, s, i, 1));
  }
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, kTimeout));
  MR_OK(gaspi_segment_delete(s));
}

void write_then_notify_elsewhere() {
  constexpr gaspi_segment_id_t notes = 14;
  MR_OK(gaspi_segment_alloc(notes, 4096, GASPI_MEM_INITIALIZED));
  for (gaspi_rank_t r = 0; r < n; ++r)
    MR_OK(gaspi_segment_register(notes, r, kTimeout));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, kTimeout));
  for (int round = 2; round < 6; ++round) {
    ring_write(20, 10, notes, 1 << 16, round, pointer(10)); // data on segment 10, notification on 14
    MR_OK(gaspi_barrier(GASPI_GROUP_ALL, kTimeout));
  }
  MR_OK(gaspi_segment_delete(notes));
}

void many_windows() {
  constexpr gaspi_segment_id_t s = 13;
  for (int round = 0; round < 70; ++round) {
    const gaspi_size_t size = 4096 + static_cast<gaspi_size_t>(round % 5) * 1000;
    MR_OK(gaspi_segment_create(s, size, GASPI_GROUP_ALL, kTimeout, GASPI_MEM_INITIALIZED));
    ring_write(20, s, s, size, round, pointer(s));
    MR_OK(gaspi_barrier(GASPI_GROUP_ALL, kTimeout));
    ring_read(20, s, size, round);
    MR_OK(gaspi_barrier(GASPI_GROUP_ALL, kTimeout));
    MR_OK(gaspi_segment_delete(s));
  }
}

} // namespace

int main() {
  mr_init(me, n);
  opposite_orders();
  recreated_on_one_rank();
  write_then_notify_elsewhere();
  many_windows();
  mr_finish("mr_segment_windows");
  return 0;
}
