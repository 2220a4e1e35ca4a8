// GASPI device segments (GASPI_Ext.h): gaspi_write / gaspi_read on CUDA device memory, each figure
// beside the raw CUDA driver call underneath it, in one run of 2 ranks on one node
// (hygaspi-run -n 2):
//  - device -> device gaspi_write + gaspi_wait into the other rank's device segment, beside
//    cuMemcpyDtoDAsync + cuStreamSynchronize over a CUDA IPC mapping of the same memory that the
//    benchmark opens itself;
//  - host -> device gaspi_write and device -> host gaspi_read within the process, beside
//    cuMemcpyHtoD / cuMemcpyDtoH.
// With the argument `staged`, under mpirun with the 2 ranks on different nodes
// (HYGASPI_NODE_SIZE=1): a device -> device gaspi_write + gaspi_wait that the target serves, beside
// the same bytes moved by hand: cuMemcpyDtoH, MPI_Put + MPI_Win_flush into a window over host
// memory, and cuMemcpyHtoD (done here, standing in for the target's copy).
// Run with the real driver on a GPU, or with the fake one
// (HYGASPI_CUDA_LIBRARY=.../tests/fake_cuda/libcuda.so.1), where it measures our overhead per
// operation beside the fake's own copy.
#include <GASPI.h>
#include <GASPI_Ext.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "device_bench.hpp"
#include "mpi_owned.hpp"

using namespace device_bench;

namespace {

constexpr std::size_t kMax = std::size_t{64} << 20;
constexpr gaspi_segment_id_t kDev = 0, kHost = 1;
constexpr gaspi_queue_id_t kQ = 0;
gaspi_rank_t g_me = 0;

void check(bool ok, const char *what) {
  if (!ok) {
    std::fprintf(stderr, "[%u] bench_gaspi_device: %s failed\n", g_me, what);
    std::exit(1);
  }
}
void cu(CUresult r, const char *what) { check(r == CUDA_SUCCESS, what); }
void ok(gaspi_return_t rc, const char *what) { check(rc == GASPI_SUCCESS, what); }

void write_wait(gaspi_segment_id_t from, gaspi_rank_t to, gaspi_segment_id_t into, std::size_t n) {
  ok(gaspi_write(from, 0, to, into, 0, n, kQ, GASPI_BLOCK), "gaspi_write");
  ok(gaspi_wait(kQ, GASPI_BLOCK), "gaspi_wait");
}

} // namespace

int main(int argc, char **argv) {
  // The staged floor calls MPI beside the library (mpi_owned.hpp).
  const bool staged = argc > 1 && std::strcmp(argv[1], "staged") == 0;
  if (staged)
    init_mpi_owned(argc, argv);
  ok(gaspi_proc_init(GASPI_BLOCK), "gaspi_proc_init");
  gaspi_rank_t n = 0;
  ok(gaspi_proc_rank(&g_me), "gaspi_proc_rank");
  ok(gaspi_proc_num(&n), "gaspi_proc_num");
  check(n == 2, "2 ranks");

  // The client's side of CUDA: the driver, the device's primary context current, device memory.
  const RawCuda raw = open_raw_cuda(check);
  const Driver *d = raw.d;
  const CUstream stream = raw.stream;
  CUdeviceptr mine = 0;
  cu(d->cuMemAlloc(&mine, kMax), "cuMemAlloc");
  ok(gaspi_segment_use(kDev, reinterpret_cast<void *>(mine), kMax, GASPI_GROUP_ALL, GASPI_BLOCK,
                       HYGASPI_MEMORY_CUDA(0)),
     "gaspi_segment_use of device memory");
  ok(gaspi_segment_create(kHost, kMax, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED), "gaspi_segment_create");
  char *host = nullptr;
  ok(gaspi_segment_ptr(kHost, reinterpret_cast<gaspi_pointer_t *>(&host)), "gaspi_segment_ptr");

  if (staged) {
    std::vector<char> bounce(kMax, 1);
    MPI_Win win;
    MPI_Win_create(bounce.data(), static_cast<MPI_Aint>(kMax), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_lock_all(0, win);
    if (g_me == 0) {
      std::printf("bench_gaspi_device staged: device -> device gaspi_write + gaspi_wait to another node, served "
                  "by its owner; µs per op\n");
      header();
      for (std::size_t s = 8; s <= kMax; s *= 8)
        row("write d2d", s, us_per_op(s, [&] { write_wait(kDev, 1, kDev, s); }), us_per_op(s, [&] {
              cu(d->cuMemcpyDtoH(bounce.data(), mine, s), "cuMemcpyDtoH");
              MPI_Put(bounce.data(), static_cast<int>(s), MPI_BYTE, 1, 0, static_cast<int>(s), MPI_BYTE, win);
              MPI_Win_flush(1, win);
              cu(d->cuMemcpyHtoD(mine, bounce.data(), s), "cuMemcpyHtoD");
            }));
    }
    ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "gaspi_barrier"); // the owner serves while it waits here
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    ok(gaspi_proc_term(GASPI_BLOCK), "gaspi_proc_term");
    return 0;
  }
  // Rank 1 hands rank 0 the IPC handle of its device memory, through rank 0's host segment.
  CUipcMemHandle handle{};
  if (g_me == 1) {
    cu(d->cuIpcGetMemHandle(&handle, mine), "cuIpcGetMemHandle");
    std::memcpy(host, &handle, sizeof handle);
    write_wait(kHost, 0, kHost, sizeof handle);
  }
  ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "gaspi_barrier");
  if (g_me == 0) {
    std::memcpy(&handle, host, sizeof handle);
    CUdeviceptr theirs = 0;
    cu(d->cuIpcOpenMemHandle(&theirs, handle, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), "cuIpcOpenMemHandle");
    int version = 0;
    cu(d->cuDriverGetVersion(&version), "cuDriverGetVersion");
    std::printf("bench_gaspi_device: CUDA driver %d (%s); gaspi_write/read + gaspi_wait, µs per op (ratio: ours / "
                "raw)\n",
                version, raw.library);
    header();
    for (std::size_t s = 8; s <= kMax; s *= 8)
      row("write d2d", s, us_per_op(s, [&] { write_wait(kDev, 1, kDev, s); }), us_per_op(s, [&] {
            cu(d->cuMemcpyDtoDAsync(theirs, mine, s, stream), "cuMemcpyDtoDAsync");
            cu(d->cuStreamSynchronize(stream), "cuStreamSynchronize");
          }));
    for (std::size_t s = 8; s <= kMax; s *= 8)
      row("write h2d", s, us_per_op(s, [&] { write_wait(kHost, 0, kDev, s); }),
          us_per_op(s, [&] { cu(d->cuMemcpyHtoD(mine, host, s), "cuMemcpyHtoD"); }));
    for (std::size_t s = 8; s <= kMax; s *= 8)
      row("read d2h", s,
          us_per_op(s,
                    [&] {
                      ok(gaspi_read(kHost, 0, 0, kDev, 0, s, kQ, GASPI_BLOCK), "gaspi_read");
                      ok(gaspi_wait(kQ, GASPI_BLOCK), "gaspi_wait");
                    }),
          us_per_op(s, [&] { cu(d->cuMemcpyDtoH(host, mine, s), "cuMemcpyDtoH"); }));
    cu(d->cuIpcCloseMemHandle(theirs), "cuIpcCloseMemHandle");
  }
  ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "gaspi_barrier");
  ok(gaspi_segment_delete(kDev), "gaspi_segment_delete");
  ok(gaspi_proc_term(GASPI_BLOCK), "gaspi_proc_term");
  return 0;
}
