// Streams and events of the fake CUDA driver.
//
// Without the defer knob an asynchronous copy is done before the call returns, and every stream
// and event is always complete. With it, copies wait in their stream's queue and run only when the
// caller waits: cuStreamSynchronize, cuEventSynchronize, cuStreamDestroy, or a second query (the
// first cuStreamQuery or cuEventQuery after new work answers CUDA_ERROR_NOT_READY). A caller that
// reads a copy's result without waiting sees the old data.
//
// The null stream is the legacy default stream, ordered with every blocking stream (one created
// without CU_STREAM_NON_BLOCKING) as in a real driver: work queued on it first runs what the
// blocking streams hold, and work queued on a blocking stream first runs what it holds.
#include "fake_cuda.hpp"

#include <chrono>
#include <deque>
#include <mutex>
#include <set>
#include <utility>

namespace fake_cuda {

// The work of one stream, numbered in order of submission.
struct Queue {
  std::deque<std::pair<std::uint64_t, Copy>> pending;
  std::uint64_t submitted = 0;                       // number of the last copy queued
  bool queried = false;                              // a query answered NOT_READY since the last copy was queued
  std::chrono::steady_clock::time_point first_query; // when (the slow knob)
  bool blocking = true;

  // True once every copy numbered up to `last` has run.
  bool done_until(std::uint64_t last) const { return pending.empty() || pending.front().first > last; }
  void run_until(std::uint64_t last) {
    while (!done_until(last)) {
      pending.front().second.run();
      pending.pop_front();
    }
  }
  void run_all() { run_until(submitted); }
};

} // namespace fake_cuda

namespace hygaspi::cuda {
struct CUstream_st {
  std::shared_ptr<fake_cuda::Queue> queue;
};
// An event holds the queue it was recorded on (kept alive past the stream's destruction) and the
// number of the last copy queued before it.
struct CUevent_st {
  std::shared_ptr<fake_cuda::Queue> queue;
  std::uint64_t last = 0;
  bool queried = false;                              // a query answered NOT_READY since it was recorded
  std::chrono::steady_clock::time_point first_query; // when (the slow knob)
};
} // namespace hygaspi::cuda

namespace fake_cuda {
namespace {

struct Streams {
  std::mutex mutex; // guards everything here and every queue
  std::set<CUstream> live;
  std::set<CUevent> events;
  std::shared_ptr<Queue> legacy = std::make_shared<Queue>();
};
// Never destroyed, so that a call made while the process exits still finds it.
Streams &streams() {
  static Streams &s = *new Streams;
  return s;
}

// The queue of a stream handle (null: the legacy default stream), or null for a handle that is
// not a live stream. The mutex is held.
Queue *queue_of(Streams &s, CUstream stream) {
  if (!stream)
    return s.legacy.get();
  return s.live.count(stream) ? stream->queue.get() : nullptr;
}

// Runs the work that must precede new work on q, by the legacy default stream's ordering.
void order_before(Streams &s, Queue &q) {
  if (&q == s.legacy.get()) {
    for (const CUstream other : s.live) {
      if (other->queue->blocking)
        other->queue->run_all();
    }
  } else if (q.blocking) {
    s.legacy->run_all();
  }
}

// Answers a query: the first one over unfinished work says NOT_READY, the next one finishes it.
CUresult query(bool done, bool &queried, std::chrono::steady_clock::time_point &first) {
  if (done)
    return CUDA_SUCCESS;
  const auto now = std::chrono::steady_clock::now();
  if (!queried) {
    queried = true;
    first = now;
    return CUDA_ERROR_NOT_READY;
  }
  if (knobs().slow && now - first < std::chrono::milliseconds(kSlowMs))
    return CUDA_ERROR_NOT_READY;
  return CUDA_SUCCESS;
}

} // namespace

CUresult enqueue(CUstream stream, Copy copy) {
  Streams &s = streams();
  std::lock_guard lock(s.mutex);
  Queue *q = queue_of(s, stream);
  if (!q)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!knobs().defer) {
    copy.run();
    return CUDA_SUCCESS;
  }
  order_before(s, *q);
  q->pending.emplace_back(++q->submitted, std::move(copy));
  q->queried = false;
  return CUDA_SUCCESS;
}

void finish_legacy_work() {
  if (!knobs().defer)
    return;
  Streams &s = streams();
  std::lock_guard lock(s.mutex);
  order_before(s, *s.legacy);
  s.legacy->run_all();
}

namespace api {

CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags) {
  CUcontext ctx = nullptr;
  if (const CUresult r = ready_with_context(&ctx); r != CUDA_SUCCESS)
    return r;
  if (!phStream || (Flags & ~CU_STREAM_NON_BLOCKING) != 0)
    return CUDA_ERROR_INVALID_VALUE;
  auto *stream = new CUstream_st{std::make_shared<Queue>()};
  stream->queue->blocking = (Flags & CU_STREAM_NON_BLOCKING) == 0;
  Streams &s = streams();
  std::lock_guard lock(s.mutex);
  s.live.insert(stream);
  *phStream = stream;
  return CUDA_SUCCESS;
}

CUresult cuStreamSynchronize(CUstream hStream) {
  if (const CUresult r = ready(); r != CUDA_SUCCESS)
    return r;
  Streams &s = streams();
  std::lock_guard lock(s.mutex);
  Queue *q = queue_of(s, hStream);
  if (!q)
    return CUDA_ERROR_INVALID_HANDLE;
  q->run_all();
  return CUDA_SUCCESS;
}

CUresult cuStreamQuery(CUstream hStream) {
  if (const CUresult r = ready(); r != CUDA_SUCCESS)
    return r;
  Streams &s = streams();
  std::lock_guard lock(s.mutex);
  Queue *q = queue_of(s, hStream);
  if (!q)
    return CUDA_ERROR_INVALID_HANDLE;
  const CUresult res = query(q->pending.empty(), q->queried, q->first_query);
  if (res == CUDA_SUCCESS)
    q->run_all();
  return res;
}

// Finishes the stream's work first; events recorded on it stay valid (and complete).
CUresult cuStreamDestroy(CUstream hStream) {
  if (const CUresult r = ready(); r != CUDA_SUCCESS)
    return r;
  Streams &s = streams();
  {
    std::lock_guard lock(s.mutex);
    if (!hStream || !s.live.count(hStream))
      return CUDA_ERROR_INVALID_HANDLE;
    hStream->queue->run_all();
    s.live.erase(hStream);
  }
  delete hStream;
  return CUDA_SUCCESS;
}

CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags) {
  CUcontext ctx = nullptr;
  if (const CUresult r = ready_with_context(&ctx); r != CUDA_SUCCESS)
    return r;
  // CU_EVENT_BLOCKING_SYNC, CU_EVENT_DISABLE_TIMING, CU_EVENT_INTERPROCESS.
  if (!phEvent || (Flags & ~0x7u) != 0)
    return CUDA_ERROR_INVALID_VALUE;
  auto *event = new CUevent_st{};
  Streams &s = streams();
  std::lock_guard lock(s.mutex);
  s.events.insert(event);
  *phEvent = event;
  return CUDA_SUCCESS;
}

CUresult cuEventRecord(CUevent hEvent, CUstream hStream) {
  if (const CUresult r = ready(); r != CUDA_SUCCESS)
    return r;
  Streams &s = streams();
  std::lock_guard lock(s.mutex);
  Queue *q = queue_of(s, hStream);
  if (!q || !s.events.count(hEvent))
    return CUDA_ERROR_INVALID_HANDLE;
  order_before(s, *q);
  hEvent->queue = hStream ? hStream->queue : s.legacy;
  hEvent->last = q->submitted;
  hEvent->queried = false;
  return CUDA_SUCCESS;
}

// An event never recorded is complete, as in a real driver.
CUresult cuEventQuery(CUevent hEvent) {
  if (const CUresult r = ready(); r != CUDA_SUCCESS)
    return r;
  Streams &s = streams();
  std::lock_guard lock(s.mutex);
  if (!s.events.count(hEvent))
    return CUDA_ERROR_INVALID_HANDLE;
  if (!hEvent->queue)
    return CUDA_SUCCESS;
  const CUresult res = query(hEvent->queue->done_until(hEvent->last), hEvent->queried, hEvent->first_query);
  if (res == CUDA_SUCCESS)
    hEvent->queue->run_until(hEvent->last);
  return res;
}

CUresult cuEventSynchronize(CUevent hEvent) {
  if (const CUresult r = ready(); r != CUDA_SUCCESS)
    return r;
  Streams &s = streams();
  std::lock_guard lock(s.mutex);
  if (!s.events.count(hEvent))
    return CUDA_ERROR_INVALID_HANDLE;
  if (hEvent->queue)
    hEvent->queue->run_until(hEvent->last);
  return CUDA_SUCCESS;
}

CUresult cuEventDestroy(CUevent hEvent) {
  if (const CUresult r = ready(); r != CUDA_SUCCESS)
    return r;
  Streams &s = streams();
  {
    std::lock_guard lock(s.mutex);
    if (!s.events.erase(hEvent))
      return CUDA_ERROR_INVALID_HANDLE;
  }
  delete hEvent;
  return CUDA_SUCCESS;
}

} // namespace api

FAKE_CUDA_CHECK_TYPES

} // namespace fake_cuda
