// Memory kinds: RMA on CUDA device memory through GASNet-EX TM-pairs, each figure beside the raw
// CUDA driver call underneath it, in one run of 2 ranks on one node (hygaspi-run -n 2):
//  - device -> device put into the other rank's device segment, beside cuMemcpyDtoDAsync +
//    cuStreamSynchronize over a CUDA IPC mapping of the same memory that the benchmark opens itself;
//  - host -> device put and device -> host get within the process, beside cuMemcpyHtoD / DtoH.
// With the argument `staged`, under mpirun with the 2 ranks on different nodes
// (HYGASPI_NODE_SIZE=1): a device -> device put that the target serves, beside the same bytes
// moved by hand: cuMemcpyDtoH, MPI_Put + MPI_Win_flush into a window over host memory, and
// cuMemcpyHtoD (done here, standing in for the target's copy).
// Our figure is a blocking gex_RMA_PutBlocking/GetBlocking (a copy on the library's stream, whose
// event the call polls). Run with the real driver on a GPU, or with the fake one
// (HYGASPI_CUDA_LIBRARY=.../tests/fake_cuda/libcuda.so.1), where it measures our overhead per
// operation beside the fake's own copy.
#define GASNET_PAR 1
#include <gasnet_mk.h>
#include <gasnetex.h>
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

void check(bool ok, const char *what) {
  if (!ok) {
    std::fprintf(stderr, "[%u] bench_mk: %s failed\n", gex_System_QueryJobRank(), what);
    std::exit(1);
  }
}
void cu(CUresult r, const char *what) { check(r == CUDA_SUCCESS, what); }

} // namespace

int main(int argc, char **argv) {
  // The staged floor calls MPI beside the library (mpi_owned.hpp).
  const bool staged = argc > 1 && std::strcmp(argv[1], "staged") == 0;
  if (staged)
    init_mpi_owned(argc, argv);
  gex_Client_t client;
  gex_EP_t ep0, ep1;
  gex_TM_t tm;
  check(gex_Client_Init(&client, &ep0, &tm, "BENCHMK", &argc, &argv, 0) == GASNET_OK, "gex_Client_Init");
  const gex_Rank_t me = gex_TM_QueryRank(tm);
  check(gex_TM_QuerySize(tm) == 2, "2 ranks");
  gex_Segment_t prim, seg;
  check(gex_Segment_Attach(&prim, tm, 1 << 16) == GASNET_OK, "gex_Segment_Attach");
  gex_MK_Create_args_t args{};
  args.gex_class = GEX_MK_CLASS_CUDA_UVA;
  gex_MK_t kind;
  check(gex_MK_Create(&kind, client, &args, 0) == GASNET_OK, "gex_MK_Create");
  check(gex_EP_Create(&ep1, client, GEX_EP_CAPABILITY_RMA, 0) == GASNET_OK, "gex_EP_Create");
  check(gex_Segment_Create(&seg, client, nullptr, kMax, kind, 0) == GASNET_OK, "gex_Segment_Create");
  check(gex_EP_BindSegment(ep1, seg, 0) == GASNET_OK, "gex_EP_BindSegment");
  check(gex_EP_PublishBoundSegment(tm, &ep1, 1, 0) == GASNET_OK, "gex_EP_PublishBoundSegment");
  auto *mine = static_cast<char *>(gex_Segment_QueryAddr(seg));

  // The raw side: the same driver, the device's primary context current on this thread, a stream.
  const RawCuda raw = open_raw_cuda(check);
  const Driver *d = raw.d;
  const CUstream stream = raw.stream;

  if (staged) {
    std::vector<char> host(kMax, 1);
    MPI_Win win;
    MPI_Win_create(host.data(), static_cast<MPI_Aint>(kMax), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_lock_all(0, win);
    if (me == 0) {
      void *remote = nullptr;
      check(gex_Segment_QueryBound(gex_TM_Pair(ep0, 1), 1, &remote, nullptr, nullptr) == GASNET_OK, "QueryBound");
      const gex_TM_t d2d = gex_TM_Pair(ep1, 1);
      std::printf("bench_mk staged: device -> device put to another node, served by its owner; µs per op\n");
      header();
      for (std::size_t n = 8; n <= kMax; n *= 8)
        row("put d2d", n, us_per_op(n, [&] { gex_RMA_PutBlocking(d2d, 1, remote, mine, n, 0); }), us_per_op(n, [&] {
              cu(d->cuMemcpyDtoH(host.data(), reinterpret_cast<CUdeviceptr>(mine), n), "cuMemcpyDtoH");
              MPI_Put(host.data(), static_cast<int>(n), MPI_BYTE, 1, 0, static_cast<int>(n), MPI_BYTE, win);
              MPI_Win_flush(1, win);
              cu(d->cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(mine), host.data(), n), "cuMemcpyHtoD");
            }));
    }
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)); // the owner serves every chunk while it waits here
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    gasnet_exit(0);
  }
  // Rank 1 hands rank 0 the IPC handle of its segment, through rank 0's primordial segment.
  CUipcMemHandle handle{};
  if (me == 1) {
    cu(d->cuIpcGetMemHandle(&handle, reinterpret_cast<CUdeviceptr>(mine)), "cuIpcGetMemHandle");
    void *at = nullptr;
    check(gex_Segment_QueryBound(tm, 0, &at, nullptr, nullptr) == GASNET_OK, "gex_Segment_QueryBound");
    check(gex_RMA_PutBlocking(tm, 0, at, &handle, sizeof handle, 0) == GASNET_OK, "put of the handle");
  }
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
  if (me == 0) {
    std::memcpy(&handle, gex_Segment_QueryAddr(prim), sizeof handle);
    CUdeviceptr theirs = 0;
    cu(d->cuIpcOpenMemHandle(&theirs, handle, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS), "cuIpcOpenMemHandle");
    void *remote = nullptr;
    check(gex_Segment_QueryBound(gex_TM_Pair(ep0, 1), 1, &remote, nullptr, nullptr) == GASNET_OK, "QueryBound");
    std::vector<char> host(kMax, 1);
    const gex_TM_t d2d = gex_TM_Pair(ep1, 1), h2d = gex_TM_Pair(ep0, 1);
    int version = 0;
    cu(d->cuDriverGetVersion(&version), "cuDriverGetVersion");
    std::printf("bench_mk: CUDA driver %d (%s); blocking operations, µs per op (ratio: ours / raw)\n", version,
                raw.library);
    header();
    for (std::size_t n = 8; n <= kMax; n *= 8) {
      row("put d2d", n, us_per_op(n, [&] { gex_RMA_PutBlocking(d2d, 1, remote, mine, n, 0); }), us_per_op(n, [&] {
            cu(d->cuMemcpyDtoDAsync(theirs, reinterpret_cast<CUdeviceptr>(mine), n, stream), "cuMemcpyDtoDAsync");
            cu(d->cuStreamSynchronize(stream), "cuStreamSynchronize");
          }));
    }
    for (std::size_t n = 8; n <= kMax; n *= 8)
      row("put h2d", n, us_per_op(n, [&] { gex_RMA_PutBlocking(h2d, 0, mine, host.data(), n, 0); }), us_per_op(n, [&] {
            cu(d->cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(mine), host.data(), n), "cuMemcpyHtoD");
          }));
    for (std::size_t n = 8; n <= kMax; n *= 8)
      row("get d2h", n, us_per_op(n, [&] { gex_RMA_GetBlocking(h2d, host.data(), 0, mine, n, 0); }), us_per_op(n, [&] {
            cu(d->cuMemcpyDtoH(host.data(), reinterpret_cast<CUdeviceptr>(mine), n), "cuMemcpyDtoH");
          }));
    cu(d->cuIpcCloseMemHandle(theirs), "cuIpcCloseMemHandle");
  }
  gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
  gasnet_exit(0);
}
