// Transfers with another node's device segment, which no MPI window reaches: its owner serves them
// in its progress step, copying with the driver on its side (mpi_rma/device_requests.hpp has the
// messages).
//   - Up to mpi::kDeviceInline bytes travel inside the request (put) or its reply (get). The
//     request leaves when the transfer starts, or, for a put that carries a notification (even
//     one of no bytes: a notification alone), when its turn in the queue below comes.
//   - More go in pieces of mpi::kDevicePiece through this process's staging buffer: pinned host
//     memory in the MPI window, kStagingSlots pieces in flight, which the owner reads (put) or
//     writes (get) with MPI RMA. One transfer holds the buffer at a time; the others wait their
//     turn in a queue, in the order they started.
// A transfer is in flight until a look finds it done: whoever looks (test_remote_device, every
// progress step: drive_remote_device) moves the staged transfer at the queue's head on, so a
// transfer advances while its process waits for anything. The local side is read (put) or written
// (get) until the transfer is done: the caller leaves it alone until then, as GASPI does a queue's
// buffers until gaspi_wait and GASNet-EX a source until its local completion.
#pragma once
#include <GASPI.h>

#include <cstdint>
#include <memory>

#include "bridge/segment_rma.hpp"

namespace hygaspi {

struct Peer;

namespace engine {

// Starts a transfer between `local` (memory of CUDA device `ordinal`, host memory when it is
// negative) and [offset, +size) of `peer`'s device segment `segment` (into it when `put`), and
// adds it to `pending`, which completes it. A put may carry a notification of that segment
// (`notify_value` != 0), which the owner sets once the bytes are in, after those of every
// transfer this process started to it before (the caller flushed its MPI transfers to the owner
// first, spec §8.3.2). GASPI_ERROR (logged) when it could not start.
gaspi_return_t start_remote_device(const Peer &peer, std::uint32_t segment, std::uint64_t offset, char *local,
                                   std::uint64_t size, bool put, int ordinal, Completion &pending,
                                   std::uint32_t notify_id = 0, std::uint32_t notify_value = 0);
// One look at `transfer` (a staged one moves on if it heads the queue): true once it is done, with
// `rc` its result. A transfer whose owner died, or that is still in flight when the engine stops,
// is given up: GASPI_ERROR.
bool test_remote_device(RemoteTransfer &transfer, gaspi_return_t &rc);
// The progress step's part: moves the staged transfers on, if no other thread is at it. True when
// any piece started or completed.
bool drive_remote_device();
// The engine stops (true) or starts again (false): while it stops, a transfer still in flight is
// given up at its next look, since its owner may be in the collective end of MPI RMA already and
// serve nothing more; stopping also gives up every staged transfer still queued.
void stop_remote_device(bool stopping) noexcept;

// The owner's side: serves the device requests that other nodes sent (part of the progress step).
// True when it served any.
bool serve_device_requests();

} // namespace engine

} // namespace hygaspi
