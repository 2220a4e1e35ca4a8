// RMA through a GASNet-EX TM-pair into memory this process cannot map: another node's segment of
// an endpoint beyond the primordial one (host or device memory), or a node peer's non-primordial
// host segment. The owner serves it: the initiator sends the bytes (a put) or asks for them (a
// get) in internal Medium AMs, all in flight at once, and a handler at the owner copies each into
// or out of the segment its endpoint has bound now (checked there) and answers it (an ack, or the
// bytes); the initiator waits for every answer, polling.
//
// Chunks of kMaxMedium (a node ring carries no more). Across nodes each is a large message of the
// MPI path (announced, then received by the owner's progress; Open MPI moves it in fragments that
// wait for that progress), which makes bulk data slow: on the fake driver over vader a device ->
// device put took 0.6-0.7x the same bytes moved by hand (cuMemcpyDtoH, MPI_Put + flush,
// cuMemcpyHtoD; bench_mk staged) up to 512 B, but 2-4.5x from 4 KiB to 2 MiB and 3x at 16 MiB.
// Chunks of 4 MiB, tried, were worse from 4 KiB to 2 MiB. The remedy is RMA into a staging area at
// the owner, announced by a short AM. A device-memory side goes through host memory: the
// initiator's in pieces of kStagePiece on its device's stream, the owner's chunk by chunk with
// cuMemcpy, which the driver completes before the handler returns.
#include <algorithm>
#include <cstring>

#include "gasnet/ex_internal.hpp"

using namespace hygaspi;
using namespace hygaspi::gasnet;
using namespace hygaspi::gasnet::ex;

namespace {

// One operation at its initiator, on its stack until every chunk is answered.
struct Op {
  std::atomic<std::uint64_t> answered{0};
  std::atomic<int> failed{0}; // the first Failure an owner reported
};

// What an owner reports instead of serving a chunk.
enum Failure : int { kOk = 0, kNoSegment = 1, kOutside = 2, kCopy = 3 };
const char *failure_text(int f) {
  switch (f) {
  case kNoSegment:
    return "the endpoint has no segment bound there now (destroyed?)";
  case kOutside:
    return "the range lies outside the segment bound there now";
  default:
    return "its device copy failed (see its message)";
  }
}

gasnet_handlerarg_t hi(const void *p) { return high(reinterpret_cast<std::uint64_t>(p)); }
gasnet_handlerarg_t lo(const void *p) { return low(reinterpret_cast<std::uint64_t>(p)); }
template <class T> T *pointer(gasnet_handlerarg_t h, gasnet_handlerarg_t l) {
  return reinterpret_cast<T *>(join(h, l));
}

// The owner's side: the address of [offset, +n) in the segment endpoint `index` has bound now.
int locate(gasnet_handlerarg_t index, std::uint64_t offset, std::size_t n, gex_hyg_Segment *&seg, char *&at) {
  const gex_hyg_EP *e = created(static_cast<std::uint32_t>(index));
  seg = e != nullptr ? e->bound.load(std::memory_order_acquire) : nullptr;
  if (seg == nullptr || seg->destroyed)
    return kNoSegment;
  if (offset > seg->size || n > seg->size - offset)
    return kOutside;
  at = static_cast<char *>(seg->addr) + offset;
  return kOk;
}

// A copy in a handler: memcpy for host memory, the driver's own wait for device memory.
int copy_here(kinds::CudaDevice *dev, void *dst, const void *src, std::size_t n) {
  if (dev == nullptr) {
    std::memcpy(dst, src, n);
    return kOk;
  }
  std::string why;
  if (!dev->copy_now(dst, src, n, why)) {
    std::fprintf(stderr, "[%u] gasnet_AMPoll: a served copy failed: %s\n", state().mynode, why.c_str());
    return kCopy;
  }
  return kOk;
}

} // namespace

namespace hygaspi::gasnet {

void handle_served(const Token &token, gasnet_handler_t handler, const gasnet_handlerarg_t *args, int nargs, char *body,
                   std::size_t nbytes) {
  switch (handler) {
  case kHandlerServedPut: { // index, offset hi/lo, op hi/lo; the bytes
    if (nargs != 5)
      break;
    gex_hyg_Segment *seg = nullptr;
    char *at = nullptr;
    int f = locate(args[0], join(args[1], args[2]), nbytes, seg, at);
    if (f == kOk)
      f = copy_here(seg->device(), at, body, nbytes);
    const gasnet_handlerarg_t ack[3] = {args[3], args[4], f};
    am_internal(token.source, kHandlerServedAck, ack, 3, nullptr, 0, true);
    return;
  }
  case kHandlerServedAck: { // op hi/lo, failure
    if (nargs != 3)
      break;
    Op *op = pointer<Op>(args[0], args[1]);
    if (args[2] != kOk) {
      int none = kOk;
      op->failed.compare_exchange_strong(none, args[2]);
    }
    op->answered.fetch_add(1, std::memory_order_acq_rel);
    return;
  }
  case kHandlerServedGet: { // index, offset hi/lo, length, destination hi/lo, op hi/lo, device ordinal + 1
    if (nargs != 9)
      break;
    const auto n = static_cast<std::size_t>(static_cast<std::uint32_t>(args[3]));
    gex_hyg_Segment *seg = nullptr;
    char *at = nullptr;
    alignas(16) static thread_local char out[kMaxMedium]; // the answer's bytes: at most a chunk
    int f = n <= kMaxMedium ? locate(args[0], join(args[1], args[2]), n, seg, at) : kOutside;
    if (f == kOk)
      f = copy_here(seg->device(), out, at, n);
    const gasnet_handlerarg_t reply[6] = {args[4], args[5], args[6], args[7], args[8], f};
    am_internal(token.source, kHandlerServedData, reply, 6, out, f == kOk ? n : 0, true);
    return;
  }
  case kHandlerServedData: { // destination hi/lo, op hi/lo, device ordinal + 1, failure; the bytes
    if (nargs != 6)
      break;
    Op *op = pointer<Op>(args[2], args[3]);
    int f = args[5];
    if (f == kOk && nbytes != 0) {
      kinds::CudaDevice *dev = args[4] == 0 ? nullptr : local_device(static_cast<unsigned>(args[4] - 1));
      f = args[4] != 0 && dev == nullptr ? kCopy : copy_here(dev, pointer<char>(args[0], args[1]), body, nbytes);
    }
    if (f != kOk) {
      int none = kOk;
      op->failed.compare_exchange_strong(none, f);
    }
    op->answered.fetch_add(1, std::memory_order_acq_rel);
    return;
  }
  default:
    break;
  }
  fatal("gasnet_AMPoll", "a malformed served-RMA message (handler %u, %d arguments) from node %u", handler, nargs,
        token.source);
}

} // namespace hygaspi::gasnet

namespace hygaspi::gasnet::ex {

void served_copy(const char *call, gex_Rank_t jobrank, gex_EP_Index_t index, std::uint64_t offset, void *local,
                 std::size_t n, bool put, kinds::CudaDevice *local_dev) {
  constexpr std::size_t chunk = kMaxMedium;
  Op op;
  std::uint64_t chunks = 0;
  const auto ordinal = static_cast<gasnet_handlerarg_t>(local_dev == nullptr ? 0 : local_dev->ordinal() + 1);
  if (put) {
    // A device-memory source goes through a bounce buffer, a piece at a time; the chunks of a
    // piece are copied into the AM channel before am_internal returns, so the buffer is free again.
    std::vector<char> bounce(local_dev != nullptr ? std::min(n, kStagePiece) : 0);
    for (std::size_t piece = 0; piece < n; piece += kStagePiece) {
      const std::size_t piece_len = std::min(kStagePiece, n - piece);
      const char *src = static_cast<const char *>(local) + piece;
      if (local_dev != nullptr) {
        device_copy(call, *local_dev, bounce.data(), src, piece_len);
        src = bounce.data();
      }
      for (std::size_t done = 0; done < piece_len; done += chunk, ++chunks) {
        const std::uint64_t at = offset + piece + done;
        const gasnet_handlerarg_t args[5] = {static_cast<gasnet_handlerarg_t>(index), high(at), low(at), hi(&op),
                                             lo(&op)};
        am_internal(jobrank, kHandlerServedPut, args, 5, src + done, std::min(chunk, piece_len - done));
      }
    }
  } else {
    for (std::size_t done = 0; done < n; done += chunk, ++chunks) {
      const std::uint64_t at = offset + done;
      char *dst = static_cast<char *>(local) + done;
      const gasnet_handlerarg_t args[9] = {static_cast<gasnet_handlerarg_t>(index),
                                           high(at),
                                           low(at),
                                           static_cast<gasnet_handlerarg_t>(std::min(chunk, n - done)),
                                           hi(dst),
                                           lo(dst),
                                           hi(&op),
                                           lo(&op),
                                           ordinal};
      am_internal(jobrank, kHandlerServedGet, args, 9);
    }
  }
  block_until([&] { return op.answered.load(std::memory_order_acquire) == chunks; });
  if (const int f = op.failed.load(); f != kOk)
    fatal(call, "rank %u could not serve [%llu, +%zu) of its endpoint %u: %s", jobrank,
          static_cast<unsigned long long>(offset), n, index, failure_text(f));
}

} // namespace hygaspi::gasnet::ex
