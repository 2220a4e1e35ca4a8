#include "shm/am_ring.hpp"

namespace hygaspi::shm {

namespace {

// Whether `bytes` more fit behind the consumer's head, refreshing the cached head once. A head
// past our tail (the consumer's memory is another process's to write) never leaves room: the
// frame would land outside the buffer.
bool fits(const AmProducer &p, std::uint64_t bytes) noexcept {
  const std::uint64_t used = p.tail - p.seen;
  return used <= p.capacity && bytes <= p.capacity - used;
}
bool room(AmProducer &p, std::uint64_t bytes) noexcept {
  if (fits(p, bytes))
    return true;
  // acquire: pairs with the consumer's release, so its reads of the frames it freed are done
  // before we overwrite them.
  p.seen = p.ring->consumed.load(std::memory_order_acquire);
  return fits(p, bytes);
}

} // namespace

std::uint64_t am_frame_bytes(std::uint64_t message) noexcept {
  return (sizeof(AmFrame) + message + kAmFrameAlign - 1) / kAmFrameAlign * kAmFrameAlign;
}

char *am_reserve(AmProducer &p, std::uint32_t size) noexcept {
  const std::uint64_t need = am_frame_bytes(size);
  const std::uint64_t to_end = p.capacity - (p.tail & (p.capacity - 1));
  if (need > to_end) {
    // The message would wrap: fill the rest of this lap with a skip frame (to_end >= one frame:
    // positions and the capacity are multiples of kAmFrameAlign). It goes in as soon as it fits,
    // even when the message does not fit behind it yet: a message of a whole lap fits only once
    // the consumer has passed the skip. Stamped seq_cst: a skip that is not followed by its
    // message at once leaves the consumer something to pass, and the caller rings it (doorbell.hpp).
    if (!room(p, to_end))
      return nullptr;
    AmFrame &skip = am_frame_at(p.ring, p.capacity, p.tail);
    skip.size = kAmSkip;
    skip.stamp.store(p.tail + 1, std::memory_order_seq_cst);
    p.tail += to_end;
  }
  if (!room(p, need))
    return nullptr;
  return reinterpret_cast<char *>(&am_frame_at(p.ring, p.capacity, p.tail)) + sizeof(AmFrame);
}

void am_publish(AmProducer &p, std::uint32_t size) noexcept {
  AmFrame &f = am_frame_at(p.ring, p.capacity, p.tail);
  f.size = size;
  // seq_cst, not just release: the store is one half of the inbox doorbell's Dekker pair
  // (doorbell.hpp); the channel rings the receiver's doorbell next.
  f.stamp.store(p.tail + 1, std::memory_order_seq_cst);
  p.tail += am_frame_bytes(size);
}

const char *am_peek(AmConsumer &c, std::uint32_t &size) noexcept {
  for (;;) {
    AmFrame &f = am_frame_at(c.ring, c.capacity, c.head);
    // acquire: pairs with the producer's publication, so the message bytes are complete.
    if (f.stamp.load(std::memory_order_acquire) != c.head + 1)
      return nullptr;
    if (f.size != kAmSkip) {
      // A producer never writes a frame past the end of the buffer; a size that says otherwise is
      // corrupt (another process wrote it), and reading it would leave the ring: nothing is
      // published here, for ever.
      if (f.size > c.capacity - (c.head & (c.capacity - 1)) - sizeof(AmFrame))
        return nullptr;
      size = f.size;
      return reinterpret_cast<const char *>(&f) + sizeof(AmFrame);
    }
    c.head += c.capacity - (c.head & (c.capacity - 1));
    c.ring->consumed.store(c.head, std::memory_order_release);
  }
}

void am_release(AmConsumer &c, std::uint32_t size) noexcept {
  c.head += am_frame_bytes(size);
  // release: our reads of the frame are done before the producer may overwrite it.
  c.ring->consumed.store(c.head, std::memory_order_release);
}

} // namespace hygaspi::shm
