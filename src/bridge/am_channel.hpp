// The engine's active-message channel: two lanes per rank, requests and replies, kept apart so
// that replies always drain (GASNET-NOTES lesson 3). API-neutral: a message is an opaque byte
// string; the front end (src/gasnet) gives it meaning and runs the handlers.
//
//  - A node peer's lanes are two multi-producer rings (shm/passive_ring.hpp, the ring of GASPI's
//    passive communication) in the receiver's inbox, an engine segment (limits::kGasnetInbox) that
//    node peers map as they map any segment. A sender claims a slot, copies the message in and
//    publishes it with a seq_cst store; the receiver pops it into its own buffer.
//  - A rank of another node gets the message over two-sided MPI on the engine's private
//    communicator (mpi::Control, Box::am_request / am_reply): every progress step of the receiver
//    moves it from MPI into a mailbox, so a sender never waits on the receiver's handlers.
//  - A full ring is not an error: the sender waits, and meanwhile runs `serve` (the front end's
//    poll), so two ranks that flood each other both keep draining (no deadlock).
#pragma once
#include <GASPI.h>

#include <cstddef>
#include <cstdint>
#include <functional>

#include "bridge/peers.hpp"

namespace hygaspi::am {

enum class Lane : unsigned { request = 0, reply = 1 };

// Size of the largest message (header and payload) a lane carries on a node; MPI carries any.
inline constexpr std::uint64_t kRingMessageMax = 16384 + 128;

// Opens this rank's inbox (creates its rings) and the MPI mailboxes. Not collective: a sender
// whose peer has not opened yet waits in send() until it has.
gaspi_return_t open();
// Closes it (the inbox segment goes with the engine's other segments).
void close() noexcept;
[[nodiscard]] bool is_open() noexcept;

// What a waiting sender runs between two attempts (the front end's poll). Returns true when it
// did something.
using Serve = std::function<bool()>;

// Sends `head` followed by `body` (one message of head_size + body_size bytes) to `peer`'s `lane`.
// Blocks while the lane is full, running `serve`. GASPI_ERROR when the peer died (logged).
gaspi_return_t send(const Peer &peer, Lane lane, const void *head, std::size_t head_size, const void *body,
                    std::size_t body_size, const Serve &serve);
// Like send() on a node, but gives up (GASPI_TIMEOUT) at once when the ring is full; across nodes
// the same as send() without serving. For notices that must not block (job exit).
gaspi_return_t try_send(const Peer &peer, Lane lane, const void *head, std::size_t head_size);

// Takes one message of this rank's `lane`, from the node ring or the MPI mailbox, and runs
// fn(sender, data, size) on it. The data lives until fn returns. False when there was none.
bool poll(Lane lane, const std::function<void(GlobalRank, const char *, std::size_t)> &fn);

} // namespace hygaspi::am
