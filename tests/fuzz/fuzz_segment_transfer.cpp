// Fuzzes segment and transfer arguments through the public API of the whole
// library, built into this process with ASan and UBSan. The process is a standalone job of one
// rank, so every transfer is a loopback on the shm path; what is checked is the argument handling
// in front of it, which all paths share.
//
// An input is a sequence of calls: segment alloc/create/bind/delete with sizes from the edges of
// 64 bits, and write, read, write_notify, read_notify, the list calls, notify_waitsome and
// allreduce_user with offsets and sizes from the same edges. A small model predicts which calls
// may succeed (every segment exists, offset + size inside it, counted without wrapping). Checks:
// - a call the model calls invalid never returns GASPI_SUCCESS;
// - a refused transfer changes no byte of any segment;
// - a successful transfer moves exactly its bytes (the destination equals the source as it was);
// - no size that wraps creates a segment (then any offset would reach any address);
// - ASan/UBSan see no out-of-bounds access, overflow or leak.
#include <GASPI.h>
#include <GASPI_Ext.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fuzzer/FuzzedDataProvider.h>
#include <vector>

#include "fuzz_check.hpp"

namespace {

constexpr int kSegs = 4;                  // segment ids 0..3 are used; 4 is never created
constexpr std::uint64_t kSmall = 1 << 16; // sizes a segment may really have here
constexpr gaspi_number_t kNotifications = 16;

struct Model {
  bool exists = false;
  std::uint64_t size = 0;
};
std::array<Model, kSegs + 1> g_model;
alignas(4096) char g_bind_pool[kSegs][kSmall]; // user memory for gaspi_segment_bind

std::uint64_t pick(FuzzedDataProvider &in) {
  static constexpr std::uint64_t kEdges[] = {
      0,          1,          7,          8,          4095,         4096,         4097,      kSmall - 1, kSmall,
      1ull << 31, 1ull << 32, 1ull << 62, 1ull << 63, ~0ull - 4096, ~0ull - 4095, ~0ull - 7, ~0ull};
  if (in.ConsumeBool())
    return in.PickValueInArray(kEdges);
  return in.ConsumeIntegralInRange<std::uint64_t>(0, kSmall);
}

char *data_of(gaspi_segment_id_t seg) {
  gaspi_pointer_t p = nullptr;
  FUZZ_CHECK(gaspi_segment_ptr(seg, &p) == GASPI_SUCCESS);
  return static_cast<char *>(p);
}

// A copy of every live segment, to prove that a refused call wrote nothing.
std::array<std::vector<char>, kSegs> snapshot() {
  std::array<std::vector<char>, kSegs> s;
  for (int i = 0; i < kSegs; ++i)
    if (g_model[i].exists)
      s[i].assign(data_of(i), data_of(i) + g_model[i].size);
  return s;
}
bool unchanged(const std::array<std::vector<char>, kSegs> &s) {
  for (int i = 0; i < kSegs; ++i)
    if (g_model[i].exists && std::memcmp(s[i].data(), data_of(i), s[i].size()) != 0)
      return false;
  return true;
}

bool fits(gaspi_segment_id_t seg, std::uint64_t off, std::uint64_t size) {
  return seg < kSegs && g_model[seg].exists && off <= g_model[seg].size && size <= g_model[seg].size - off;
}

void create(FuzzedDataProvider &in) {
  const auto seg = in.ConsumeIntegralInRange<gaspi_segment_id_t>(0, kSegs - 1);
  // Real sizes stay small; the huge ones must fail (wrap, or more than /dev/shm holds).
  std::uint64_t size = pick(in);
  if (size > kSmall && size < (1ull << 50))
    size = kSmall;
  const int how = in.ConsumeIntegralInRange(0, 2);
  gaspi_return_t rc = GASPI_ERROR;
  if (how == 0)
    rc = gaspi_segment_alloc(seg, size, GASPI_MEM_INITIALIZED);
  else if (how == 1)
    rc = gaspi_segment_create(seg, size, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED);
  else // bound memory: the caller vouches for [pointer, pointer + size), so stay inside the pool
    rc = gaspi_segment_bind(seg, g_bind_pool[seg], std::min(size, kSmall), 0);
  const bool valid = !g_model[seg].exists && size > 0 && (size <= kSmall || how == 2);
  if (!valid) {
    FUZZ_CHECK(rc != GASPI_SUCCESS);
    return;
  }
  FUZZ_CHECK(rc == GASPI_SUCCESS);
  g_model[seg] = Model{true, how == 2 ? std::min(size, kSmall) : size};
  if (how == 2)
    std::memset(g_bind_pool[seg], 0, g_model[seg].size);
}

void transfer(FuzzedDataProvider &in, int kind) {
  const auto seg_l = in.ConsumeIntegralInRange<gaspi_segment_id_t>(0, kSegs);
  const auto seg_r = in.ConsumeIntegralInRange<gaspi_segment_id_t>(0, kSegs);
  const std::uint64_t off_l = pick(in), off_r = pick(in), size = pick(in);
  const auto id = in.ConsumeIntegralInRange<gaspi_notification_id_t>(0, kNotifications + 1);
  const bool notify = kind >= 2;
  const bool read = kind % 2 == 1;
  const bool valid = fits(seg_l, off_l, size) && fits(seg_r, off_r, size) && (!notify || (id < kNotifications));
  std::vector<char> source;
  if (valid)
    source.assign(data_of(read ? seg_r : seg_l) + (read ? off_r : off_l),
                  data_of(read ? seg_r : seg_l) + (read ? off_r : off_l) + size);
  const auto before = snapshot();
  gaspi_return_t rc;
  switch (kind) {
  case 0:
    rc = gaspi_write(seg_l, off_l, 0, seg_r, off_r, size, 0, GASPI_BLOCK);
    break;
  case 1:
    rc = gaspi_read(seg_l, off_l, 0, seg_r, off_r, size, 0, GASPI_BLOCK);
    break;
  case 2:
    rc = gaspi_write_notify(seg_l, off_l, 0, seg_r, off_r, size, id, 1, 0, GASPI_BLOCK);
    break;
  default:
    rc = gaspi_read_notify(seg_l, off_l, 0, seg_r, off_r, size, id, 0, GASPI_BLOCK);
    break;
  }
  if (!valid) {
    FUZZ_CHECK(rc != GASPI_SUCCESS);
    FUZZ_CHECK(unchanged(before));
    return;
  }
  FUZZ_CHECK(rc == GASPI_SUCCESS); // the queue holds 1024 and is emptied after every call
  const char *dst = data_of(read ? seg_l : seg_r) + (read ? off_l : off_r);
  FUZZ_CHECK(size == 0 || std::memcmp(dst, source.data(), size) == 0);
  if (notify) {
    gaspi_notification_t value = 0;
    FUZZ_CHECK(gaspi_notify_reset(read ? seg_l : seg_r, id, &value) == GASPI_SUCCESS && value == 1);
  }
  FUZZ_CHECK(gaspi_wait(0, GASPI_BLOCK) == GASPI_SUCCESS);
}

void list(FuzzedDataProvider &in) {
  const auto num = in.ConsumeIntegralInRange<gaspi_number_t>(0, 4);
  const bool read = in.ConsumeBool();
  gaspi_segment_id_t sl[4], sr[4];
  gaspi_offset_t ol[4], orr[4];
  gaspi_size_t sz[4];
  bool valid = num > 0;
  for (gaspi_number_t i = 0; i < num; ++i) {
    sl[i] = in.ConsumeIntegralInRange<gaspi_segment_id_t>(0, kSegs);
    sr[i] = in.ConsumeIntegralInRange<gaspi_segment_id_t>(0, kSegs);
    ol[i] = pick(in);
    orr[i] = pick(in);
    sz[i] = pick(in);
    valid = valid && fits(sl[i], ol[i], sz[i]) && fits(sr[i], orr[i], sz[i]);
  }
  const auto before = snapshot();
  const gaspi_return_t rc = read ? gaspi_read_list(num, sl, ol, 0, sr, orr, sz, 0, GASPI_BLOCK)
                                 : gaspi_write_list(num, sl, ol, 0, sr, orr, sz, 0, GASPI_BLOCK);
  if (!valid) {
    FUZZ_CHECK(rc != GASPI_SUCCESS);
    FUZZ_CHECK(unchanged(before));
  } else {
    FUZZ_CHECK(rc == GASPI_SUCCESS);
  }
  FUZZ_CHECK(gaspi_wait(0, GASPI_BLOCK) == GASPI_SUCCESS);
}

void waitsome(FuzzedDataProvider &in) {
  const auto seg = in.ConsumeIntegralInRange<gaspi_segment_id_t>(0, kSegs);
  const auto begin = static_cast<gaspi_notification_id_t>(pick(in));
  const auto num = static_cast<gaspi_number_t>(pick(in));
  gaspi_notification_id_t first = 0;
  const gaspi_return_t rc = gaspi_notify_waitsome(seg, begin, num, &first, GASPI_TEST);
  const bool valid =
      seg < kSegs && g_model[seg].exists && (num == 0 || (begin < kNotifications && num <= kNotifications - begin));
  if (!valid)
    FUZZ_CHECK(rc != GASPI_SUCCESS && rc != GASPI_TIMEOUT);
  else
    FUZZ_CHECK(rc == (num == 0 ? GASPI_SUCCESS : GASPI_TIMEOUT)); // every notification is reset
}

gaspi_return_t copy_op(gaspi_pointer_t a, gaspi_pointer_t, gaspi_pointer_t res, gaspi_reduce_state_t,
                       gaspi_number_t num, gaspi_size_t element_size, gaspi_timeout_t) {
  std::memcpy(res, a, num * element_size); // checked by the library to fit allreduce_buf_size
  return GASPI_SUCCESS;
}

void allreduce_user(FuzzedDataProvider &in) {
  static std::vector<char> send(4096), recv(4096); // allreduce_buf_size is 2040
  const auto num = static_cast<gaspi_number_t>(pick(in));
  const gaspi_size_t element_size = pick(in);
  const gaspi_return_t rc =
      gaspi_allreduce_user(send.data(), recv.data(), num, element_size, copy_op, nullptr, GASPI_GROUP_ALL, GASPI_BLOCK);
  const unsigned __int128 bytes = static_cast<unsigned __int128>(num) * element_size;
  FUZZ_CHECK((rc == GASPI_SUCCESS) == (num > 0 && element_size > 0 && bytes <= 2040));
}

void reset_all() {
  for (int i = 0; i < kSegs; ++i)
    if (g_model[i].exists) {
      FUZZ_CHECK(gaspi_segment_delete(i) == GASPI_SUCCESS);
      g_model[i] = Model{};
    }
  FUZZ_CHECK(gaspi_wait(0, GASPI_BLOCK) == GASPI_SUCCESS);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  unsetenv("HYGASPI_JOB"); // a standalone job of one rank
  setenv("HYGASPI_LOG", "0", 1);
  gaspi_config_t c;
  FUZZ_CHECK(gaspi_config_get(&c) == GASPI_SUCCESS);
  c.notification_num = kNotifications;
  FUZZ_CHECK(gaspi_config_set(c) == GASPI_SUCCESS);
  FUZZ_CHECK(gaspi_proc_init(GASPI_BLOCK) == GASPI_SUCCESS);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *bytes, std::size_t len) {
  FuzzedDataProvider in(bytes, len);
  for (int steps = 0; steps < 32 && in.remaining_bytes() > 0; ++steps) {
    switch (in.ConsumeIntegralInRange(0, 9)) {
    case 0:
    case 1:
      create(in);
      break;
    case 2: {
      const auto seg = in.ConsumeIntegralInRange<gaspi_segment_id_t>(0, kSegs);
      const gaspi_return_t rc = gaspi_segment_delete(seg);
      FUZZ_CHECK((rc == GASPI_SUCCESS) == (seg < kSegs && g_model[seg].exists));
      if (seg < kSegs)
        g_model[seg] = Model{};
      break;
    }
    case 3:
    case 4:
    case 5:
    case 6:
      transfer(in, in.ConsumeIntegralInRange(0, 3));
      break;
    case 7:
      list(in);
      break;
    case 8:
      waitsome(in);
      break;
    default:
      allreduce_user(in);
      break;
    }
  }
  reset_all();
  // A deleted segment keeps its (retired) mapping until gaspi_proc_term, for racing readers
  // (shm/node.cpp); start afresh now and then so the mappings stay below vm.max_map_count.
  static int inputs = 0;
  if (++inputs % 2000 == 0) {
    FUZZ_CHECK(gaspi_proc_term(GASPI_BLOCK) == GASPI_SUCCESS);
    FUZZ_CHECK(gaspi_proc_init(GASPI_BLOCK) == GASPI_SUCCESS);
  }
  return 0;
}
