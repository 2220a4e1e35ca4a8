// The engine's active-message channel: two lanes per rank, requests and replies, kept apart so
// that replies always drain (docs/COMPATIBILITY.md, "GASNet-1"). API-neutral: a message is an opaque byte
// string; the front end (src/gasnet) gives it meaning and runs the handlers.
//
//  - Between node peers, each sender has a byte ring of its own per lane in the receiver's inbox
//    (shm/am_ring.hpp), an engine segment (limits::kGasnetInbox) that node peers map as they map
//    any segment. The sender writes the message straight into the ring and stamps it; the receiver
//    runs the handler on it in place and frees it. A receiver that has waited long sleeps on its
//    inbox's futex doorbell, which every sender rings after it publishes.
//  - A rank of another node gets the message over two-sided MPI on the engine's private
//    communicator (mpi::Control, Box::am_request / am_reply; mpi_rma/eager.hpp), within credits
//    per sender and lane (mpi_rma/credits.hpp) that stand for the ring: at most 512 KiB of one
//    sender's messages wait at the receiver, per lane, whether or not it polls.
//  - A full ring, or no credits, is not an error: the sender waits, and meanwhile runs `serve`
//    (the front end's poll), so two ranks that flood each other both keep draining (no deadlock).
#pragma once
#include <GASPI.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>

#include "core/ranks.hpp"

namespace hygaspi::am {

enum class Lane : unsigned { request = 0, reply = 1 };

// Size of the largest message (head and body) a lane carries on a node; MPI carries any.
inline constexpr std::uint64_t kRingMessageMax = 16384 + 128;

// Opens this rank's inbox (creates its rings) and the MPI mailboxes. Not collective: a sender
// whose peer has not opened yet waits in send() until it has. `threads`: several threads may send
// and poll at once (GASNET_PAR), so each ring's two ends take a lock.
gaspi_return_t open(bool threads);
// Closes it (the inbox segment goes with the engine's other segments).
void close() noexcept;
[[nodiscard]] bool is_open() noexcept;

// What a waiting sender runs between two attempts (the front end's poll). Returns true when it
// did something.
using Serve = std::function<bool()>;

// Where a payload may go instead of travelling in the message: [offset, +size) of the receiver's
// engine segment `segment` (an AM Long). The channel writes it there when this process maps that
// segment (a node peer, or itself), before the message is published, and sends the head alone;
// otherwise the payload travels as the message's body and the receiver places it.
struct Placement {
  std::uint32_t segment;
  std::uint64_t offset;
};

// Sends `head` followed by `body` (one message of head_size + body_size bytes) to rank `to`'s
// `lane`, or, with `place`, the head alone after the body went to its place. Blocks while the lane
// is full, running `serve`. GASPI_ERROR when the receiver died (logged).
gaspi_return_t send(GlobalRank to, Lane lane, const void *head, std::size_t head_size, const void *body,
                    std::size_t body_size, const Serve &serve, const Placement *place = nullptr);
// Like send() without serving, but gives up (GASPI_TIMEOUT, nothing sent) at once when the ring
// is full or, across nodes, no credits are free. For notices that must not block (job exit).
gaspi_return_t try_send(GlobalRank to, Lane lane, const void *head, std::size_t head_size);

// Takes one message of this rank's `lane`, from a node ring or the MPI mailbox, and runs
// fn(sender, data, size) on it. The data (16-byte aligned) lives until fn returns. False when
// there was none.
using Receive = void (*)(GlobalRank sender, const char *data, std::size_t size);
bool poll(Lane lane, Receive fn);

// Sleeps at most `ns` on this rank's inbox doorbell unless a message is waiting in a node ring;
// for a wait that has spun and yielded a while (messages over MPI ring nothing: keep `ns` short
// when the job spans nodes).
void sleep(std::chrono::nanoseconds ns) noexcept;

} // namespace hygaspi::am
