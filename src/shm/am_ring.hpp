// The byte ring that carries messages on a node (bridge/am_channel.hpp: active messages and GASPI
// passive messages): one per sender, receiver and lane, in the receiver's inbox. Single producer
// (the sending process; its threads take turns under the channel's lock), single consumer (the
// receiving process, likewise). Nothing is shared between senders:
//  - the producer keeps its tail in its own memory and reads the consumer's `consumed` only when
//    its cached copy says the ring is full;
//  - a message is one frame, its stamp in the same cache line as the first 48 bytes of the message,
//    so a short message crosses in one line (a ring shared by all senders, with a CAS on a shared
//    tail, claim lines and tickets, moved three lines per message and cost 5x the raw round trip);
//  - a sender that dies mid-frame leaves an unstamped frame in its own ring, which nobody else
//    writes or waits for: no claim to skip.
//
// Frames sit at stream positions (bytes written since the ring was made, never reset), each a
// multiple of kAmFrameAlign. The frame at position p is published by storing its stamp p + 1
// (release), after the message bytes: the consumer looks for stamp == head + 1 (acquire), so a
// frame of an earlier lap (stamp p - k * capacity + 1) or zeroed memory never looks published. A
// frame that would run past the end of the buffer is preceded by a skip frame that fills the rest
// of the lap. Positions are 64-bit byte counts, which a ring written at 100 GB/s would wrap after
// five years.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "shm/layout.hpp"

namespace hygaspi::shm {

inline constexpr std::uint64_t kAmFrameAlign = 64;

struct AmFrame {
  std::atomic<std::uint64_t> stamp; // position + 1 once published
  std::uint32_t size;               // message bytes, or kAmSkip
  std::uint32_t reserved;
  // the message follows (16-byte aligned)
};
static_assert(sizeof(AmFrame) == 16);
inline constexpr std::uint32_t kAmSkip = 0xffffffffu;

// The ring as it lies in shared memory: the consumer's line, then `capacity` bytes of frames.
struct alignas(kCacheLine) AmRingShared {
  std::atomic<std::uint64_t> consumed; // the consumer's head (release), read by the producer
};
static_assert(sizeof(AmRingShared) == kCacheLine);

// Bytes of one ring carrying messages of up to `max_message` bytes in `capacity` bytes of frames
// (a multiple of kAmFrameAlign, at least one frame of the largest message).
[[nodiscard]] std::uint64_t am_frame_bytes(std::uint64_t message) noexcept;
[[nodiscard]] inline std::uint64_t am_ring_bytes(std::uint64_t capacity) noexcept {
  return sizeof(AmRingShared) + capacity;
}

// The producer's side, in the sender's memory.
struct AmProducer {
  AmRingShared *ring = nullptr; // nullptr until the receiver's inbox is mapped
  std::uint64_t capacity = 0;
  std::uint64_t tail = 0; // next position to write
  std::uint64_t seen = 0; // the consumer's head as last read
};

// Room for a message of `size` bytes at the tail: its bytes, or nullptr while the ring is full
// (the consumer has not freed enough yet). When the message would wrap, writes a skip frame to the
// end of the lap first, as soon as that fits; the tail then moves even when the call returns
// nullptr, and the consumer has a skip to pass before the message fits (the caller wakes it). The
// caller fills the bytes, then calls am_publish with the same size.
[[nodiscard]] char *am_reserve(AmProducer &p, std::uint32_t size) noexcept;
void am_publish(AmProducer &p, std::uint32_t size) noexcept;

// The consumer's side, in the receiver's memory.
struct AmConsumer {
  AmRingShared *ring = nullptr;
  std::uint64_t capacity = 0;
  std::uint64_t head = 0; // next position to read
};

// The message at the head, or nullptr when none is published (skip frames are passed over). It
// stays valid, in place, until am_release. A frame whose size runs past the buffer (corrupt: no
// producer writes one) never counts as published.
[[nodiscard]] const char *am_peek(AmConsumer &c, std::uint32_t &size) noexcept;
void am_release(AmConsumer &c, std::uint32_t size) noexcept;
// The frame at stream position `position` of a ring of `capacity` bytes (a power of two: the
// channel sizes it).
[[nodiscard]] inline AmFrame &am_frame_at(AmRingShared *ring, std::uint64_t capacity, std::uint64_t position) noexcept {
  return *reinterpret_cast<AmFrame *>(reinterpret_cast<char *>(ring) + sizeof(AmRingShared) +
                                      (position & (capacity - 1)));
}

// Whether a message (or a skip) is published at the head; a read-only look (inline: a poll makes
// one per ring).
[[nodiscard]] inline bool am_pending(const AmConsumer &c) noexcept {
  // `consumed`, not c.head: another thread of the consumer may be moving c.head under its lock.
  // It lies in this process's cache (only the consumer writes it), so the look costs one line.
  const std::uint64_t head = c.ring->consumed.load(std::memory_order_relaxed);
  return am_frame_at(c.ring, c.capacity, head).stamp.load(std::memory_order_acquire) == head + 1;
}

} // namespace hygaspi::shm
