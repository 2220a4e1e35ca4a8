// libFuzzer target: the check a target rank applies to a global atomic request that arrives from
// another node over MPI (src/mpi_rma/remote_atomics.hpp valid_atomic_request, tags.hpp
// valid_reply_tag; used by RemoteAtomics::take and serve_atomic in src/bridge/progress.cpp).
//
// Input: the raw bytes of an AtomicRequest as MPI_Mrecv would leave them (short input: zero
// padded, as the zero-initialised receive buffer), then 8 bytes of segment size. A request the
// check accepts is executed the way serve_atomic executes it (apply_atomic), on a heap buffer of exactly the
// segment's size (sizes up to 64 KiB are allocated; larger ones are checked arithmetically), so
// ASan reports any word the check lets through outside the segment.
#include "fuzz_check.hpp"
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "mpi_rma/remote_atomics.hpp"

using namespace hygaspi::mpi;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  AtomicRequest request{};
  std::memcpy(&request, data, size < sizeof request ? size : sizeof request);
  std::uint64_t segment_size = 0;
  if (size > sizeof request)
    std::memcpy(&segment_size, data + sizeof request,
                size - sizeof request < sizeof segment_size ? size - sizeof request : sizeof segment_size);

  if (valid_reply_tag(request.reply_tag))
    FUZZ_CHECK(request.reply_tag >= kTagReply && request.reply_tag < kTagReply + kReplyTags);

  // Interesting sizes are small: fold most inputs into [0, 64 KiB] so the buffer can be allocated.
  const bool allocate = (segment_size >> 63) == 0;
  if (allocate)
    segment_size %= 65537;
  if (!valid_atomic_request(request, segment_size))
    return 0;
  FUZZ_CHECK(hygaspi::valid(request.op));
  const std::uint64_t w = hygaspi::width(request.op.type);
  FUZZ_CHECK(request.offset % w == 0);
  FUZZ_CHECK(segment_size >= w && request.offset <= segment_size - w);
  if (!allocate)
    return 0;
  // Exactly segment_size bytes, so that ASan sees the first byte past the end; operator new[]
  // aligns to 16, as a segment's data (page-aligned) is aligned.
  auto bytes = std::make_unique<char[]>(segment_size);
  (void)hygaspi::apply_atomic(bytes.get() + request.offset, request.op);
  return 0;
}
