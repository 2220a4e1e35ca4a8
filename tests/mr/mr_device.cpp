// GASPI device segments (GASPI_Ext.h, "Device segments"), on the CUDA driver that
// HYGASPI_CUDA_LIBRARY names (the fake of tests/fake_cuda in ctest: its device memory is mapped
// PROT_NONE, so a host load or store through a device address crashes the test):
//   - gaspi_segment_use of device memory (collective), gaspi_segment_bind + register of more;
//   - every direction with every rank and itself: host -> device, device -> host,
//     device -> device, by gaspi_write, gaspi_write_notify, gaspi_read, gaspi_read_notify, the
//     list forms, at odd offsets and sizes, and one transfer of several driver chunks;
//   - device memory to and from a peer's bound host memory (cross-memory attach on a node, the
//     MPI window across nodes);
//   - what cannot reach device memory returns GASPI_ERROR: atomics, passive messages;
//   - bad descriptions and memory that is no device memory return GASPI_ERROR and create nothing.
// Scene "nodriver" (HYGASPI_CUDA_LIBRARY names no file): a device description gives GASPI_ERROR,
// and host segments work as before.
// Scene "threads": threads posting device transfers with the next rank at once (threaded_transfers).
// Scene "async" (MPI and hybrid paths only): writes to and reads from another node's device
// segment return while their owner is outside the library, and complete at gaspi_wait once it
// serves them (async_transfers).
#include <dlfcn.h>
#include <mpi.h>
#include <sys/mman.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <type_traits>
#include <vector>

#include "mr_util.hpp"

namespace {

// The few driver calls a client makes itself (the CUDA runtime would make them for it).
struct Driver {
  int (*init)(unsigned) = nullptr;
  int (*device_get)(int *, int) = nullptr;
  int (*retain)(void **, int) = nullptr;
  int (*push)(void *) = nullptr;
  int (*alloc)(std::uint64_t *, std::size_t) = nullptr;
  int (*free)(std::uint64_t) = nullptr;
  int (*htod)(std::uint64_t, const void *, std::size_t) = nullptr;
  int (*dtoh)(void *, std::uint64_t, std::size_t) = nullptr;
  int (*sync)(void *) = nullptr;

  void open() {
    const char *path = std::getenv("HYGASPI_CUDA_LIBRARY");
    void *lib = dlopen(path != nullptr ? path : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    MR_CHECK(lib != nullptr);
    using GetProc = int (*)(const char *, void **, int, unsigned long long, int *);
    auto getproc = reinterpret_cast<GetProc>(dlsym(lib, "cuGetProcAddress_v2"));
    MR_CHECK(getproc != nullptr);
    auto get = [&](const char *name, int version, auto &fn) {
      void *p = nullptr;
      int found = 0;
      MR_CHECK(getproc(name, &p, version, 0, &found) == 0 && p != nullptr);
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
    };
    get("cuInit", 2000, init);
    get("cuDeviceGet", 2000, device_get);
    get("cuDevicePrimaryCtxRetain", 7000, retain);
    get("cuCtxPushCurrent", 4000, push);
    get("cuMemAlloc", 3020, alloc);
    get("cuMemFree", 3020, free);
    get("cuMemcpyHtoD", 3020, htod);
    get("cuMemcpyDtoH", 3020, dtoh);
    get("cuStreamSynchronize", 2000, sync);
    int dev = 0;
    MR_CHECK(init(0) == 0 && device_get(&dev, 0) == 0 && retain(&ctx, dev) == 0 && push(ctx) == 0);
  }
  // A thread's own driver calls need the context current in that thread too.
  void enter_thread() const { MR_CHECK(push(ctx) == 0); }
  void *ctx = nullptr;
  char *allocate(std::size_t n) {
    std::uint64_t p = 0;
    MR_CHECK(alloc(&p, n) == 0 && p != 0);
    return reinterpret_cast<char *>(p);
  }
  // cuMemcpyHtoD may return before the bytes are in device memory: the client synchronizes before
  // the library (on a stream of its own) reads them, as with any CUDA library.
  void to_device(void *d, const void *h, std::size_t n) {
    MR_CHECK(htod(reinterpret_cast<std::uint64_t>(d), h, n) == 0 && sync(nullptr) == 0);
  }
  std::vector<unsigned char> from_device(const void *d, std::size_t n) {
    std::vector<unsigned char> out(n);
    MR_CHECK(dtoh(out.data(), reinterpret_cast<std::uint64_t>(d), n) == 0);
    return out;
  }
};

Driver g_cuda;
gaspi_rank_t g_me = 0, g_n = 1;

constexpr gaspi_segment_id_t kHost = 0, kDev = 1, kBound = 2, kDev2 = 3;
constexpr gaspi_queue_id_t kQ = 0;
constexpr gaspi_size_t kChunk = 1000;                // not a power of two: odd offsets everywhere
constexpr gaspi_size_t kBig = (1u << 20) * 2 + 4099; // several driver chunks (1 MiB each)
// Regions of every segment, per source rank: [kIn + from * kChunk, +kChunk) receives from `from`.
constexpr gaspi_size_t kIn = 8;
constexpr unsigned kMaxRanks = 8;
constexpr gaspi_size_t kSource = kIn + kMaxRanks * kChunk; // this rank's own bytes
constexpr gaspi_size_t kIn2 = kSource + kChunk + 8;        // a second receiving region, like kIn's
constexpr gaspi_size_t kSegBytes = kIn2 + kMaxRanks * kChunk + 8;

// Never periodic at a power of two, so a piece that lands in another piece's place (staging
// slots of 256 KiB, bounce pieces of 1 MiB) shows.
unsigned char pattern(gaspi_rank_t from, unsigned tag, gaspi_size_t i) {
  return static_cast<unsigned char>((from * 41 + tag * 23 + i * 7 + ((i * 0x9E3779B1u) >> 19)) & 0xff);
}
std::vector<unsigned char> bytes(gaspi_rank_t from, unsigned tag, gaspi_size_t n) {
  std::vector<unsigned char> v(n);
  for (gaspi_size_t i = 0; i < n; ++i)
    v[i] = pattern(from, tag, i);
  return v;
}
char *seg_ptr(gaspi_segment_id_t seg) {
  gaspi_pointer_t p = nullptr;
  MR_OK(gaspi_segment_ptr(seg, &p));
  return static_cast<char *>(p);
}
void expect(const std::vector<unsigned char> &got, gaspi_rank_t from, unsigned tag, int line) {
  for (gaspi_size_t i = 0; i < got.size(); ++i)
    if (got[i] != pattern(from, tag, i)) {
      std::fprintf(stderr, "rank %u line %d: byte %lu from rank %u (tag %u) is %u, expected %u\n", g_me, line, i, from,
                   tag, got[i], pattern(from, tag, i));
      MR_CHECK(!"wrong data");
    }
}
#define EXPECT_DEV(at, n, from, tag) expect(g_cuda.from_device(at, n), from, tag, __LINE__)
#define EXPECT_HOST(at, n, from, tag)                                                                                  \
  expect(std::vector<unsigned char>(reinterpret_cast<const unsigned char *>(at),                                       \
                                    reinterpret_cast<const unsigned char *>(at) + (n)),                                \
         from, tag, __LINE__)

void barrier() { MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK)); }
void wait_queue() { MR_OK(gaspi_wait(kQ, GASPI_BLOCK)); }
void wait_notification(gaspi_segment_id_t seg, gaspi_notification_id_t id, gaspi_notification_t value) {
  gaspi_notification_id_t first = 0;
  MR_OK(gaspi_notify_waitsome(seg, id, 1, &first, GASPI_BLOCK));
  gaspi_notification_t old = 0;
  MR_OK(gaspi_notify_reset(seg, first, &old));
  MR_CHECK(first == id && old == value);
}

// Device writes left in flight on the queue (GASPI completes them at gaspi_wait), then a host
// write_notify on that queue (its fast path) and a gaspi_notify: neither notification may overtake
// them [GASPI 8.3.2], whose bytes each target checks as soon as the notification is in.
void queued_writes() {
  const gaspi_size_t at = kIn2 + g_me * kChunk, half = kChunk / 2;
  for (gaspi_rank_t r = 0; r < g_n; ++r) {
    MR_OK(gaspi_write(kDev, kSource, r, kDev2, at, half, kQ, GASPI_BLOCK));
    MR_OK(gaspi_write(kDev, kSource + half, r, kDev2, at + half, kChunk - half, kQ, GASPI_BLOCK));
    MR_OK(gaspi_write_notify(kHost, kSource, r, kHost, kIn2 + g_me * kChunk, 8, g_me, 4, kQ, GASPI_BLOCK));
    MR_OK(gaspi_write(kDev, kSource, r, kDev, at, kChunk, kQ, GASPI_BLOCK));
    MR_OK(gaspi_notify(kDev, r, g_me, 5, kQ, GASPI_BLOCK));
  }
  for (gaspi_rank_t from = 0; from < g_n; ++from) {
    wait_notification(kHost, from, 4);
    EXPECT_DEV(seg_ptr(kDev2) + kIn2 + from * kChunk, kChunk, from, 2);
    wait_notification(kDev, from, 5);
    EXPECT_DEV(seg_ptr(kDev) + kIn2 + from * kChunk, kChunk, from, 2);
  }
  wait_queue();
  barrier();
}

// Two threads on one queue (run with the fake driver's `slow` knob: a copy's wait lasts 100 ms).
// Thread A writes host bytes into the next rank's device segment, a copy left on the queue; thread
// B then notifies this rank itself on that queue, which settles A's copy, slowly; meanwhile A
// notifies the next rank, whose notification must still come after A's data. A settle that let
// others see the queue free of copies before they had completed let A's notification out early.
// Then gaspi_wait(GASPI_TEST) while a copy runs.
void queue_race() {
  const gaspi_rank_t next = static_cast<gaspi_rank_t>((g_me + 1) % g_n);
  std::memcpy(seg_ptr(kHost) + kSource, bytes(g_me, 1, kChunk).data(), kChunk);
  barrier();
  std::atomic<int> step{0};
  std::thread b([&] {
    while (step.load() != 1)
      std::this_thread::yield();
    step.store(2);
    MR_OK(gaspi_notify(kHost, g_me, g_me, 6, kQ, GASPI_BLOCK)); // settles A's copy
  });
  MR_OK(gaspi_write(kHost, kSource, next, kDev2, kIn2 + g_me * kChunk, kChunk, kQ, GASPI_BLOCK));
  step.store(1);
  while (step.load() != 2)
    std::this_thread::yield();
  // Not a synchronisation: it lets B into its settle first, where the fault showed. Correct code
  // passes whatever the order.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  MR_OK(gaspi_notify(kDev2, next, g_me, 6, kQ, GASPI_BLOCK));
  b.join();
  const gaspi_rank_t prev = static_cast<gaspi_rank_t>((g_me + g_n - 1) % g_n);
  wait_notification(kDev2, prev, 6);
  EXPECT_DEV(seg_ptr(kDev2) + kIn2 + prev * kChunk, kChunk, prev, 1);
  wait_notification(kHost, g_me, 6);
  wait_queue();
  // gaspi_wait keeps its timeout while a device copy runs (100 ms here): GASPI_TEST answers
  // GASPI_TIMEOUT, and a later wait completes the copy.
  MR_OK(gaspi_write(kHost, kSource, g_me, kDev2, kIn2 + g_me * kChunk, kChunk, kQ, GASPI_BLOCK));
  MR_EXPECT(GASPI_TIMEOUT, gaspi_wait(kQ, GASPI_TEST));
  wait_queue();
  EXPECT_DEV(seg_ptr(kDev2) + kIn2 + g_me * kChunk, kChunk, g_me, 1);
  barrier();
}

// The refusals: each returns GASPI_ERROR (or the size error) and leaves no segment behind.
void refusals(char *dev) {
  const gaspi_segment_id_t s = 9;
  std::vector<char> host(64);
  MR_EXPECT(GASPI_ERROR, gaspi_segment_bind(s, dev, 64, HYGASPI_MEMORY_CLASS_BIT | (7 << 16))); // unknown class
  MR_EXPECT(GASPI_ERROR, gaspi_segment_bind(s, host.data(), 64, HYGASPI_MEMORY_CUDA(0)));       // host memory
  MR_EXPECT(GASPI_ERROR, gaspi_segment_bind(s, dev, kSegBytes + 65, HYGASPI_MEMORY_CUDA(0)));   // past its end
  MR_EXPECT(GASPI_ERROR, gaspi_segment_bind(s, dev, 64, HYGASPI_MEMORY_CUDA(5)));               // no device 5
  MR_EXPECT(GASPI_ERR_INV_SEGSIZE, gaspi_segment_bind(s, dev, 0, HYGASPI_MEMORY_CUDA(0)));
  // Host memory that the library could not read and write: device memory described as host, a
  // read-only page.
  MR_EXPECT(GASPI_ERROR, gaspi_segment_bind(s, dev, 64, HYGASPI_MEMORY_HOST));
  void *ro = mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  MR_CHECK(ro != MAP_FAILED);
  MR_EXPECT(GASPI_ERROR, gaspi_segment_bind(s, ro, 4096, HYGASPI_MEMORY_HOST));
  MR_CHECK(munmap(ro, 4096) == 0);
  gaspi_pointer_t p = nullptr;
  MR_EXPECT(GASPI_ERR_INV_SEG, gaspi_segment_ptr(s, &p));
}

void transfers() {
  char *host = seg_ptr(kHost);
  char *dev = seg_ptr(kDev);
  char *bound = seg_ptr(kBound);
  // Sources: this rank's bytes, tag 1 in host memory, tag 2 in device memory.
  std::memcpy(host + kSource, bytes(g_me, 1, kChunk).data(), kChunk);
  g_cuda.to_device(dev + kSource, bytes(g_me, 2, kChunk).data(), kChunk);
  barrier();
  const gaspi_size_t at = kIn + g_me * kChunk;
  for (gaspi_rank_t r = 0; r < g_n; ++r) {
    // host -> device, with its notification (host memory, after the data).
    MR_OK(gaspi_write_notify(kHost, kSource, r, kDev, at, kChunk, g_me, 1, kQ, GASPI_BLOCK));
    // device -> host, device -> device, device -> a peer's bound host memory.
    MR_OK(gaspi_write_notify(kDev, kSource, r, kHost, at, kChunk, g_me, 2, kQ, GASPI_BLOCK));
    MR_OK(gaspi_write(kDev, kSource, r, kDev2, at, kChunk, kQ, GASPI_BLOCK));
    MR_OK(gaspi_write(kDev, kSource + 1, r, kBound, at + 1, kChunk - 1, kQ, GASPI_BLOCK));
    MR_OK(gaspi_notify(kDev2, r, g_me, 3, kQ, GASPI_BLOCK));
    wait_queue();
  }
  for (gaspi_rank_t from = 0; from < g_n; ++from) {
    const gaspi_size_t in = kIn + from * kChunk;
    wait_notification(kDev, from, 1);
    EXPECT_DEV(dev + in, kChunk, from, 1);
    wait_notification(kHost, from, 2);
    EXPECT_HOST(host + in, kChunk, from, 2);
    wait_notification(kDev2, from, 3);
    EXPECT_DEV(seg_ptr(kDev2) + in, kChunk, from, 2);
  }
  barrier(); // every write into kBound has landed (gaspi_wait before the barrier)
  for (gaspi_rank_t from = 0; from < g_n; ++from) {
    std::vector<unsigned char> got(bound + kIn + from * kChunk + 1, bound + kIn + (from + 1) * kChunk);
    std::vector<unsigned char> want = bytes(from, 2, kChunk);
    MR_CHECK(std::memcmp(got.data(), want.data() + 1, kChunk - 1) == 0);
  }
  barrier();
  // Reads: a peer's device bytes into host and device memory, its host bytes into device memory,
  // its bound host memory into device memory; read_notify's local notification after the data.
  for (gaspi_rank_t r = 0; r < g_n; ++r) {
    const gaspi_size_t in = kIn + r * kChunk;
    MR_OK(gaspi_read(kHost, in, r, kDev, kSource, kChunk, kQ, GASPI_BLOCK));
    MR_OK(gaspi_read_notify(kDev2, in, r, kDev, kSource, kChunk, r, kQ, GASPI_BLOCK));
    wait_queue();
    EXPECT_HOST(host + in, kChunk, r, 2);
    wait_notification(kDev2, r, 1);
    EXPECT_DEV(seg_ptr(kDev2) + in, kChunk, r, 2);
    MR_OK(gaspi_read(kDev, in, r, kHost, kSource, kChunk, kQ, GASPI_BLOCK));
    wait_queue();
    EXPECT_DEV(dev + in, kChunk, r, 1);
  }
  barrier();
}

// The list forms, every element a different direction, and a read_list_notify back.
void lists() {
  const gaspi_rank_t r = static_cast<gaspi_rank_t>((g_me + 1) % g_n);
  const gaspi_rank_t left = static_cast<gaspi_rank_t>((g_me + g_n - 1) % g_n);
  gaspi_segment_id_t seg_l[3] = {kHost, kDev, kDev};
  gaspi_segment_id_t seg_r[3] = {kDev, kHost, kDev2};
  gaspi_offset_t off_l[3] = {kSource, kSource, kSource + 10};
  const gaspi_size_t at = kIn + g_me * kChunk;
  gaspi_offset_t off_r[3] = {at, at, at + 10};
  gaspi_size_t size[3] = {kChunk, kChunk, kChunk - 10};
  MR_OK(gaspi_write_list_notify(3, seg_l, off_l, r, seg_r, off_r, size, kDev, g_n + g_me, 7, kQ, GASPI_BLOCK));
  wait_queue();
  wait_notification(kDev, g_n + left, 7);
  const gaspi_size_t in = kIn + left * kChunk;
  EXPECT_DEV(seg_ptr(kDev) + in, kChunk, left, 1);
  EXPECT_HOST(seg_ptr(kHost) + in, kChunk, left, 2);
  auto tail = g_cuda.from_device(seg_ptr(kDev2) + in + 10, kChunk - 10);
  MR_CHECK(std::memcmp(tail.data(), bytes(left, 2, kChunk).data() + 10, kChunk - 10) == 0);
  barrier();
  // read_list_notify: the right neighbour's device and host sources into this rank's device memory.
  gaspi_segment_id_t rseg_l[2] = {kDev2, kDev2};
  gaspi_segment_id_t rseg_r[2] = {kDev, kHost};
  gaspi_offset_t roff_l[2] = {kIn, kIn + kChunk};
  gaspi_offset_t roff_r[2] = {kSource, kSource};
  gaspi_size_t rsize[2] = {kChunk, kChunk};
  MR_OK(gaspi_read_list_notify(2, rseg_l, roff_l, r, rseg_r, roff_r, rsize, kDev2, 2 * g_n, kQ, GASPI_BLOCK));
  wait_queue();
  wait_notification(kDev2, 2 * g_n, 1);
  EXPECT_DEV(seg_ptr(kDev2) + kIn, kChunk, r, 2);
  EXPECT_DEV(seg_ptr(kDev2) + kIn + kChunk, kChunk, r, 1);
  barrier();
}

// One transfer of several driver chunks each way, device to device between neighbours, then
// device to host memory of a neighbour and back.
void big() {
  char *d = g_cuda.allocate(2 * kBig);
  const gaspi_segment_id_t s = 4;
  MR_OK(gaspi_segment_use(s, d, 2 * kBig, GASPI_GROUP_ALL, GASPI_BLOCK, HYGASPI_MEMORY_CUDA(0)));
  g_cuda.to_device(d, bytes(g_me, 5, kBig).data(), kBig);
  barrier();
  const gaspi_rank_t r = static_cast<gaspi_rank_t>((g_me + 1) % g_n);
  const gaspi_rank_t left = static_cast<gaspi_rank_t>((g_me + g_n - 1) % g_n);
  MR_OK(gaspi_write_notify(s, 0, r, s, kBig, kBig, 0, 1, kQ, GASPI_BLOCK));
  wait_queue();
  wait_notification(s, 0, 1);
  EXPECT_DEV(d + kBig, kBig, left, 5);
  barrier();
  MR_OK(gaspi_read(s, kBig, r, s, 0, kBig, kQ, GASPI_BLOCK));
  wait_queue();
  EXPECT_DEV(d + kBig, kBig, r, 5);
  barrier();
  // Device memory to and from host memory that this process does not map, several bounce pieces
  // (1 MiB) each way: a node peer's bound host memory (cross-memory attach), and across nodes a
  // host segment and bound host memory (the MPI window). Each host side holds its own bytes (tag 6)
  // in its first half and receives into its second.
  const gaspi_segment_id_t hs = 5, bs = 6;
  MR_OK(gaspi_segment_create(hs, 2 * kBig, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_UNINITIALIZED));
  std::vector<char> bound(2 * kBig);
  MR_OK(gaspi_segment_use(bs, bound.data(), bound.size(), GASPI_GROUP_ALL, GASPI_BLOCK, HYGASPI_MEMORY_HOST));
  for (gaspi_segment_id_t h : {hs, bs}) {
    const auto mine = bytes(g_me, 6, kBig);
    std::memcpy(seg_ptr(h), mine.data(), kBig);
    barrier();
    MR_OK(gaspi_write_notify(s, 0, r, h, kBig, kBig, 0, 1, kQ, GASPI_BLOCK)); // device -> host
    wait_queue();
    wait_notification(h, 0, 1);
    EXPECT_HOST(seg_ptr(h) + kBig, kBig, left, 5);
    MR_OK(gaspi_read(s, kBig, r, h, 0, kBig, kQ, GASPI_BLOCK)); // host -> device
    wait_queue();
    EXPECT_DEV(d + kBig, kBig, r, 6);
    barrier();
  }
  MR_OK(gaspi_segment_delete(bs));
  MR_OK(gaspi_segment_delete(hs));
  MR_OK(gaspi_segment_delete(s));
  // The node peers that opened the segment's memory through CUDA IPC close it at their first
  // collective that sees the delete: the first barrier may have begun at a peer before this rank
  // deleted, the second has not. Then its memory may be freed (the fake driver's `strictfree`
  // refuses to free memory that another process still has open).
  barrier();
  barrier();
  MR_CHECK(g_cuda.free(reinterpret_cast<std::uint64_t>(d)) == 0);
}

// What device memory cannot do says so.
void cannot() {
  gaspi_atomic_value_t old = 0;
  const gaspi_rank_t r = static_cast<gaspi_rank_t>((g_me + 1) % g_n);
  MR_EXPECT(GASPI_ERROR, gaspi_atomic_fetch_add(kDev, 8, r, 1, &old, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERROR, gaspi_atomic_compare_swap(kDev, 8, g_me, 0, 1, &old, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERROR, gaspi_passive_send(kDev, kSource, r, 16, GASPI_BLOCK));
  gaspi_rank_t from = 0;
  MR_EXPECT(GASPI_ERROR, gaspi_passive_receive(kDev, kSource, &from, 16, GASPI_TEST));
  // Ranges are checked as on any segment, before anything moves.
  MR_EXPECT(GASPI_ERR_INV_REM_OFF, gaspi_write(kHost, 0, r, kDev, kSegBytes - 4, 8, kQ, GASPI_BLOCK));
  MR_EXPECT(GASPI_ERR_INV_LOC_OFF, gaspi_write(kDev, kSegBytes - 4, r, kHost, 0, 8, kQ, GASPI_BLOCK));
}

} // namespace

// The first half of the ranks posts writes and reads with a partner on another node (the second
// half: the hybrid path's nodes are two ranks each), staged ones of several pieces and inline
// ones, while the partner waits outside the library in MPI_Recv for the message that the
// initiator sends only once every call has returned (the initiator starts once the partner said,
// by MPI, that it left the library). The library runs no progress thread (the
// program started MPI as MPI_THREAD_SERIALIZED), so nothing serves the requests until the partner
// comes back: a transfer that completes before its call returns waits for it forever (the test
// times out). gaspi_wait then completes them while the partner serves in its barrier. Then two
// gaspi_write_notify into the device segment (staged, inline), after a write into the host
// segment, likewise: the partner, back, waits for the second notification alone, and finds the
// data of all three (spec 8.3.2: a notification comes after the writes the queue carried before
// it to that rank). Last a staged gaspi_write and a gaspi_notify after it, which does not wait
// for it either.
void async_transfers() {
  MR_CHECK(g_n % 2 == 0);
  const gaspi_rank_t half = static_cast<gaspi_rank_t>(g_n / 2);
  const bool initiator = g_me < half;
  const gaspi_rank_t partner = static_cast<gaspi_rank_t>(initiator ? g_me + half : g_me - half);
  constexpr gaspi_size_t kStaged = 3 * (gaspi_size_t{1} << 18) + 4099, kInline = 100;
  // Regions of the device segment.
  constexpr gaspi_size_t kOut = 0, kIn = kStaged + 64, kSmall = 2 * kIn, kNotified = kSmall + 2 * kInline,
                         kSmallNotified = kNotified + kStaged, kPlain = kSmallNotified + kInline,
                         kBytes = kPlain + kStaged;
  char *dev = g_cuda.allocate(kBytes);
  MR_OK(gaspi_segment_use(kDev, dev, kBytes, GASPI_GROUP_ALL, GASPI_BLOCK, HYGASPI_MEMORY_CUDA(0)));
  g_cuda.to_device(dev + kOut, bytes(g_me, 1, kStaged).data(), kStaged);
  g_cuda.to_device(dev + kSmall, bytes(g_me, 2, kInline).data(), kInline);
  const std::vector<unsigned char> host_bytes = bytes(g_me, 3, kChunk);
  std::memcpy(seg_ptr(kHost) + kSource, host_bytes.data(), kChunk);
  barrier();
  int token = 0;
  if (initiator) {
    MR_CHECK(MPI_Recv(&token, 1, MPI_INT, partner, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    MR_OK(gaspi_write(kDev, kOut, partner, kDev, kIn, kStaged, kQ, GASPI_BLOCK));
    MR_OK(gaspi_write(kDev, kSmall, partner, kDev, kSmall + kInline, kInline, kQ, GASPI_BLOCK));
    MR_OK(gaspi_read(kDev, kIn, partner, kDev, kOut, kStaged, kQ, GASPI_BLOCK));
    MR_OK(gaspi_read(kDev, kSmall + kInline, partner, kDev, kSmall, kInline, kQ, GASPI_BLOCK));
    MR_OK(gaspi_write(kHost, kSource, partner, kHost, kIn2, kChunk, kQ, GASPI_BLOCK));
    MR_OK(gaspi_write_notify(kDev, kOut, partner, kDev, kNotified, kStaged, 0, 7, kQ, GASPI_BLOCK));
    MR_OK(gaspi_write_notify(kDev, kSmall, partner, kDev, kSmallNotified, kInline, 1, 9, kQ, GASPI_BLOCK));
    MR_OK(gaspi_write(kDev, kOut, partner, kDev, kPlain, kStaged, kQ, GASPI_BLOCK));
    MR_OK(gaspi_notify(kDev, partner, 2, 11, kQ, GASPI_BLOCK));
    MR_CHECK(MPI_Send(&token, 1, MPI_INT, partner, 7, MPI_COMM_WORLD) == MPI_SUCCESS);
    wait_queue();
    EXPECT_DEV(dev + kIn, kStaged, partner, 1);
    EXPECT_DEV(dev + kSmall + kInline, kInline, partner, 2);
  } else { // out of the library from here until the initiator's message
    MR_CHECK(MPI_Send(&token, 1, MPI_INT, partner, 6, MPI_COMM_WORLD) == MPI_SUCCESS);
    MR_CHECK(MPI_Recv(&token, 1, MPI_INT, partner, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    wait_notification(kDev, 1, 9); // serves the requests meanwhile
    EXPECT_DEV(dev + kSmallNotified, kInline, partner, 2);
    EXPECT_DEV(dev + kNotified, kStaged, partner, 1);
    EXPECT_HOST(seg_ptr(kHost) + kIn2, kChunk, partner, 3);
    wait_notification(kDev, 0, 7);
    wait_notification(kDev, 2, 11);
    EXPECT_DEV(dev + kPlain, kStaged, partner, 1);
  }
  barrier();
  if (!initiator) {
    EXPECT_DEV(dev + kIn, kStaged, partner, 1);
    EXPECT_DEV(dev + kSmall + kInline, kInline, partner, 2);
  }
  // A write never waited for, to a partner that goes straight on to gaspi_proc_term: the
  // initiator's term gives it up rather than wait for an owner that may be in the collective end
  // of MPI RMA already, and both terms return.
  barrier();
  if (initiator)
    MR_OK(gaspi_write(kDev, kOut, partner, kDev, kIn, kStaged, kQ, GASPI_BLOCK));
  MR_OK(gaspi_proc_term(GASPI_BLOCK));
  if (g_me == 0)
    std::printf("SUCCESS mr_device async\n");
}

// Scene "threads" (every path): kThreads threads of every rank write to, read from and
// write_notify the next rank's device segment at once, each on its own queue, staged and inline,
// while that rank's threads do the same with theirs: across nodes the threads' staged transfers
// share the queue of staged transfers and its buffer, moved on by whichever thread (or the
// progress thread) looks, and every rank serves its peers meanwhile; on a node they are copies
// through CUDA IPC. Each thread checks what it read, and, once its notification is in, what the
// previous rank's thread wrote; after a barrier each rank checks the staged writes into it.
void threaded_transfers() {
  constexpr int kThreads = 3, kRounds = 2;
  constexpr gaspi_size_t kStaged = 2 * (gaspi_size_t{1} << 18) + 777, kSmall = 500;
  // Per thread: staged source, written by the previous rank, read from the next; the same small.
  constexpr gaspi_size_t kPer = 3 * kStaged + 3 * kSmall;
  char *dev = g_cuda.allocate(kThreads * kPer);
  MR_OK(gaspi_segment_use(kDev, dev, kThreads * kPer, GASPI_GROUP_ALL, GASPI_BLOCK, HYGASPI_MEMORY_CUDA(0)));
  const gaspi_rank_t next = static_cast<gaspi_rank_t>((g_me + 1) % g_n);
  const gaspi_rank_t prev = static_cast<gaspi_rank_t>((g_me + g_n - 1) % g_n);
  for (int round = 0; round < kRounds; ++round) {
    for (int t = 0; t < kThreads; ++t) {
      const unsigned tag = static_cast<unsigned>(10 + 10 * round + t);
      g_cuda.to_device(dev + t * kPer, bytes(g_me, tag, kStaged).data(), kStaged);
      g_cuda.to_device(dev + t * kPer + 3 * kStaged, bytes(g_me, tag + 5, kSmall).data(), kSmall);
    }
    barrier();
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([=] {
        g_cuda.enter_thread();
        const auto q = static_cast<gaspi_queue_id_t>(t);
        const auto id = static_cast<gaspi_notification_id_t>(t);
        const unsigned tag = static_cast<unsigned>(10 + 10 * round + t);
        const gaspi_offset_t base = t * kPer, small = base + 3 * kStaged;
        MR_OK(gaspi_write(kDev, base, next, kDev, base + kStaged, kStaged, q, GASPI_BLOCK));
        MR_OK(gaspi_read(kDev, base + 2 * kStaged, next, kDev, base, kStaged, q, GASPI_BLOCK));
        MR_OK(gaspi_read(kDev, small + 2 * kSmall, next, kDev, small, kSmall, q, GASPI_BLOCK));
        MR_OK(gaspi_write_notify(kDev, small, next, kDev, small + kSmall, kSmall, id, round + 1, q, GASPI_BLOCK));
        MR_OK(gaspi_wait(q, GASPI_BLOCK));
        EXPECT_DEV(dev + base + 2 * kStaged, kStaged, next, tag);
        EXPECT_DEV(dev + small + 2 * kSmall, kSmall, next, tag + 5);
        wait_notification(kDev, id, static_cast<gaspi_notification_t>(round + 1));
        EXPECT_DEV(dev + small + kSmall, kSmall, prev, tag + 5);
      });
    for (std::thread &th : threads)
      th.join();
    barrier();
    for (int t = 0; t < kThreads; ++t)
      EXPECT_DEV(dev + t * kPer + kStaged, kStaged, prev, static_cast<unsigned>(10 + 10 * round + t));
    barrier(); // nobody overwrites a source before every rank has read it
  }
}

int main(int argc, char **argv) {
  const bool async = argc > 1 && std::strcmp(argv[1], "async") == 0;
  if (async) {
    int provided = 0;
    MR_CHECK(MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided) == MPI_SUCCESS);
  }
  const bool nodriver = argc > 1 && std::strcmp(argv[1], "nodriver") == 0;
  const bool race = argc > 1 && std::strcmp(argv[1], "race") == 0;
  const bool threaded = argc > 1 && std::strcmp(argv[1], "threads") == 0;
  mr_init(g_me, g_n);
  MR_CHECK(g_n <= kMaxRanks);
  MR_OK(gaspi_segment_create(kHost, kSegBytes, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  if (nodriver) {
    static char fake[64];
    MR_EXPECT(GASPI_ERROR, gaspi_segment_bind(kDev, fake, sizeof fake, HYGASPI_MEMORY_CUDA(0)));
    MR_EXPECT(GASPI_ERROR,
              gaspi_segment_use(kDev, fake, sizeof fake, GASPI_GROUP_ALL, GASPI_BLOCK, HYGASPI_MEMORY_CUDA(0)));
    // Host memory described as host (any value without the class bit, as GPI-2 ignores it).
    std::vector<char> mem(kSegBytes);
    MR_OK(gaspi_segment_use(kBound, mem.data(), mem.size(), GASPI_GROUP_ALL, GASPI_BLOCK, 1));
    const gaspi_rank_t r = static_cast<gaspi_rank_t>((g_me + 1) % g_n);
    MR_OK(gaspi_write_notify(kHost, 0, r, kBound, 0, 64, 0, 1, kQ, GASPI_BLOCK));
    wait_queue();
    wait_notification(kBound, 0, 1);
    mr_finish("mr_device nodriver");
    return 0;
  }
  g_cuda.open();
  if (async) {
    async_transfers(); // ends with gaspi_proc_term
    MR_CHECK(MPI_Finalize() == MPI_SUCCESS);
    return 0;
  }
  if (threaded) {
    threaded_transfers();
    mr_finish("mr_device threads");
    return 0;
  }
  char *dev = g_cuda.allocate(kSegBytes + 64);
  char *dev2 = g_cuda.allocate(kSegBytes);
  refusals(dev);
  // A segment over device memory at an offset into its allocation, collectively; a second one
  // bound and registered with every rank; a peer's bound host memory.
  MR_OK(gaspi_segment_use(kDev, dev + 64, kSegBytes, GASPI_GROUP_ALL, GASPI_BLOCK, HYGASPI_MEMORY_CUDA(0)));
  MR_CHECK(seg_ptr(kDev) == dev + 64);
  MR_OK(gaspi_segment_bind(kDev2, dev2, kSegBytes, HYGASPI_MEMORY_CUDA(0)));
  for (gaspi_rank_t r = 0; r < g_n; ++r)
    MR_OK(gaspi_segment_register(kDev2, r, GASPI_BLOCK));
  std::vector<char> mem(kSegBytes);
  MR_OK(gaspi_segment_use(kBound, mem.data(), mem.size(), GASPI_GROUP_ALL, GASPI_BLOCK, HYGASPI_MEMORY_HOST));
  barrier();
  gaspi_size_t size = 0;
  MR_OK(gaspi_segment_size(kDev, static_cast<gaspi_rank_t>((g_me + 1) % g_n), &size));
  MR_CHECK(size == kSegBytes);
  if (race) {
    queue_race();
    mr_finish("mr_device race");
    return 0;
  }

  transfers();
  queued_writes();
  lists();
  big();
  cannot();
  barrier();
  MR_OK(gaspi_segment_delete(kDev2));
  MR_OK(gaspi_segment_delete(kDev));
  mr_finish("mr_device");
  return 0;
}
