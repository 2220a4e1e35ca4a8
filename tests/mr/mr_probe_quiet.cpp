// A rank whose partner waits in a barrier still finds its MPI progress step cheap: the partner's
// barrier message, which MPI holds unmatched until this rank joins, travels on the collectives'
// own communicator, so the step's first probe (mpi::Control::incoming, any source and tag on the
// engine's communicator) does not find it and fall back to probing every tag. With both on one
// communicator, every step of an AM round trip paid for the full probe while the partner sat in a
// barrier (bench_gasnet, MPI path: 1.5-1.6x MPI_Send/Recv instead of 1.13-1.16x).
//
// Run on the MPI path (2 ranks, each a node of its own; scripts/multihost.sh runs it at 4 ranks as
// 2 hosts of 2). Every other rank notifies rank 0 and enters a barrier; rank 0, once notified by
// all, looks with the engine's own probe for up to a second, then checks that a barrier message
// has arrived (on the collectives' communicator) and joins.
#include <mpi.h>

#include <sched.h>

#include <chrono>

#include "bridge/runtime.hpp"
#include "mr_util.hpp"

int main() {
  gaspi_rank_t rank = 0, nranks = 0;
  mr_init(rank, nranks);
  MR_CHECK(nranks >= 2);
  hygaspi::Runtime &rt = hygaspi::rt();
  MR_CHECK(rt.rma.active()); // the job spans nodes (registered on the MPI path only)
  MR_OK(gaspi_segment_create(0, 64, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED));
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  if (rank != 0) {
    MR_OK(gaspi_notify(0, 0, rank, 1, 0, GASPI_BLOCK));
    MR_OK(gaspi_wait(0, GASPI_BLOCK));
  } else {
    for (gaspi_rank_t r = 1; r < nranks; ++r) {
      gaspi_notification_id_t id = 0;
      MR_OK(gaspi_notify_waitsome(0, r, 1, &id, GASPI_BLOCK));
    }
    // The others are in the barrier now, or about to be: another node's leader's message arrives
    // within the window.
    bool arrived = false;
    long any_tag = 0;
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (std::chrono::steady_clock::now() < end) {
      if (rt.control.incoming() == hygaspi::mpi::Control::kAnyTag)
        ++any_tag;
      int pending = 0;
      auto lock = rt.mpi.lock();
      MR_CHECK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, rt.mpi.collective_comm(), &pending, MPI_STATUS_IGNORE) ==
               MPI_SUCCESS);
      arrived = arrived || pending != 0;
      lock = {};     // releases the MPI lock (an empty one when MPI is thread-multiple)
      sched_yield(); // the others may share this CPU (the contention pass pins a job to one)
    }
    if (any_tag != 0)
      std::fprintf(stderr, "rank 0: the step's probe found a message for no tag of its own %ld times\n", any_tag);
    MR_CHECK(arrived); // the window saw the barrier message: the check below means something
    MR_CHECK(any_tag == 0);
  }
  MR_OK(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK));
  mr_finish("mr_probe_quiet");
}
