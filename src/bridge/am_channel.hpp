// The engine's message channel: every rank has one inbox with three lanes, its endpoints for
// messages, addressed by (rank, lane):
//  - request and reply: the active messages of the GASNet front ends, an opaque byte string each
//    (the front end gives it meaning and runs the handlers). They are kept apart so that replies
//    always drain (docs/COMPATIBILITY.md, "GASNet-1").
//  - passive: GASPI's passive messages (bridge/passive.hpp gives them the spec's rules).
//
// Transport, the same for every lane:
//  - Between node peers, each sender has a byte ring of its own per lane in the receiver's inbox
//    (shm/am_ring.hpp), an engine segment (limits::kInbox) that node peers map as they map any
//    segment. The sender writes the message straight into the ring and stamps it; the receiver
//    handles it in place and frees it. Nothing is shared between senders: a sender that dies
//    mid-message leaves an unstamped frame in its own ring and stalls nobody else, and the
//    receiver's round robin over the rings is fair among processes.
//  - A rank of another node gets the message over two-sided MPI on the engine's private
//    communicator (mpi::Messages: eager receives for the AM lanes, the mailbox for the passive
//    one), within credits per sender and lane (mpi_rma/credits.hpp) that stand for the ring.
//
// Waits. A full ring, or no credits, is not an error: the sender waits.
//  - An AM sender waits as long as it takes, and meanwhile runs `serve` (the front end's poll), so
//    two ranks that flood each other both keep draining (no deadlock). Its receiver sleeps on the
//    inbox's doorbell, which every AM sender rings.
//  - A passive sender waits until its deadline, asleep on the receiver's `space` doorbell, which
//    the receiver rings when it frees a passive frame; a process's threads take turns in the order
//    they came (post()). The receiver sleeps in the engine's any-partner wait on its rank doorbell,
//    which passive senders ring.
#pragma once
#include <GASPI.h>

#include <chrono>
#include <cstddef>
#include <cstdint>

#include "core/deadline.hpp"
#include "core/ranks.hpp"
#include "core/wait.hpp"

namespace hygaspi::am {

enum class Lane : unsigned { request = 0, reply = 1, passive = 2 };
inline constexpr unsigned kLanes = 3;

// Size of the largest message (head and body) an AM lane carries on a node; MPI carries any.
inline constexpr std::uint64_t kRingMessageMax = 16384 + 128;

// Creates this rank's inbox, every lane's rings (engine start, before any peer may send).
// `passive_max`: the largest passive message this rank receives. Not collective: a sender whose
// peer has not created its inbox yet waits until it has.
gaspi_return_t open_inbox(std::uint64_t passive_max);
// Deletes it (engine teardown, or a start that failed) and closes the AM lanes.
void close_inbox() noexcept;

// Opens the AM lanes (GASNet's attach): starts their MPI receives. `threads`: several threads may
// send and poll at once (GASNET_PAR), so each AM ring's two ends take a lock (the passive lane's
// always do: GASPI is thread-safe).
gaspi_return_t open(bool threads);
// Whether the AM lanes are open.
[[nodiscard]] bool is_open() noexcept;

// What a waiting sender runs between two attempts (the front end's poll): a reference to a
// callable that returns true when it did something (core/wait.hpp), or Step{} for none.
using Serve = Step;

// Where a payload may go instead of travelling in the message: [offset, +size) of the receiver's
// engine segment `segment` (an AM Long). The channel writes it there when this process maps that
// segment (a node peer, or itself), before the message is published, and sends the head alone;
// otherwise the payload travels as the message's body and the receiver places it.
struct Placement {
  std::uint32_t segment;
  std::uint64_t offset;
};

// Sends `head` followed by `body` (one message of head_size + body_size bytes) to rank `to`'s AM
// `lane`, or, with `place`, the head alone after the body went to its place. Blocks while the lane
// is full, running `serve`. GASPI_ERROR when the receiver died (logged).
gaspi_return_t send(GlobalRank to, Lane lane, const void *head, std::size_t head_size, const void *body,
                    std::size_t body_size, const Serve &serve, const Placement *place = nullptr);
// Like send() without serving, but gives up (GASPI_TIMEOUT, nothing sent) at once when the ring
// is full or, across nodes, no credits are free. For notices that must not block (job exit).
gaspi_return_t try_send(GlobalRank to, Lane lane, const void *head, std::size_t head_size);

// Posts `size` (> 0) bytes to rank `to`'s passive lane, waiting for room until `deadline`.
// GASPI_SUCCESS once the message is in the target's ring or held by its MPI; GASPI_TIMEOUT:
// nothing was sent; GASPI_ERR_INV_COMMSIZE: larger than the target receives; GASPI_ERROR: the
// target died, or term began (logged). This process's threads that post to one node peer take
// turns first come, first served, so that a thread asleep on a full ring is not overtaken for ever
// by one that comes back on a CPU (spec §9.1: "no sender should see its communication request
// delayed indefinitely").
gaspi_return_t post(GlobalRank to, const char *data, std::uint64_t size, const Deadline &deadline);

// Takes one message of this rank's `lane`, from a node ring or MPI, and runs
// fn(context, sender, data, size) on it. The data (16-byte aligned) lives until fn returns. False
// when there was none. The AM lanes take what the caller's progress step pulled from MPI; the
// passive lane pulls itself, and takes turns at which source it looks at first (spec §9.1: with
// the node rings first every time, a flood of node peers starved the other nodes' senders).
using Receive = void (*)(void *context, GlobalRank sender, const char *data, std::size_t size);
bool poll(Lane lane, Receive fn, void *context = nullptr);
// Whether poll() of AM `lane` may find a message: a node ring holds one, or the progress step has
// queued one from MPI. A few loads, for the looks of a wait, which mostly find nothing (an empty
// poll() of both AM lanes cost a third of such a look).
[[nodiscard]] bool waiting(Lane lane) noexcept;

// Sleeps at most `ns` on this rank's inbox doorbell unless an active message is waiting in a node
// ring; for a wait that has spun and yielded a while (messages over MPI ring nothing: keep `ns`
// short when the job spans nodes).
void sleep(std::chrono::nanoseconds ns) noexcept;

} // namespace hygaspi::am
