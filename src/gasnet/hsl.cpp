// Handler-safe locks [G1 §2.4.4]: a pthread mutex in the client's gasnet_hsl_t, with the checks
// the spec makes fatal (no recursion, unlock by the holder only, every lock released before a
// handler returns or replies: am.cpp counts them per thread).
#include <pthread.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "gasnet/internal.hpp"

using namespace hygaspi::gasnet;

namespace {

struct Hsl {
  pthread_mutex_t mutex;
  pthread_t owner;
  std::uintptr_t held; // 1 while locked
};
static_assert(sizeof(Hsl) <= sizeof(gasnet_hsl_t), "gasnet_hsl_t must hold the lock");
// GASNET_HSL_INITIALIZER is all zeros, as glibc's PTHREAD_MUTEX_INITIALIZER is.
static_assert(PTHREAD_MUTEX_DEFAULT == 0);

Hsl *as_lock(gasnet_hsl_t *hsl, const char *call) {
  if (hsl == nullptr)
    fatal(call, "a null handler-safe lock");
  return reinterpret_cast<Hsl *>(hsl);
}

// Only the holder itself can make both true, so relaxed loads suffice; another thread's stores
// race with them only by value (atomic_ref keeps that defined).
bool held_by_me(Hsl *l) {
  return std::atomic_ref<std::uintptr_t>(l->held).load(std::memory_order_relaxed) != 0 &&
         pthread_equal(std::atomic_ref<pthread_t>(l->owner).load(std::memory_order_relaxed), pthread_self());
}
void set_holder(Hsl *l, bool held) {
  std::atomic_ref<pthread_t>(l->owner).store(held ? pthread_self() : pthread_t{}, std::memory_order_relaxed);
  std::atomic_ref<std::uintptr_t>(l->held).store(held ? 1 : 0, std::memory_order_relaxed);
}

} // namespace

extern "C" {

void gasnet_hsl_init(gasnet_hsl_t *hsl) {
  Hsl *l = as_lock(hsl, "gasnet_hsl_init");
  std::memset(hsl, 0, sizeof *hsl);
  if (const int rc = pthread_mutex_init(&l->mutex, nullptr); rc != 0)
    fatal("gasnet_hsl_init", "pthread_mutex_init: %s", std::strerror(rc));
}

void gasnet_hsl_destroy(gasnet_hsl_t *hsl) {
  Hsl *l = as_lock(hsl, "gasnet_hsl_destroy");
  if (std::atomic_ref<std::uintptr_t>(l->held).load(std::memory_order_relaxed) != 0)
    fatal("gasnet_hsl_destroy", "destroying a locked handler-safe lock");
  if (const int rc = pthread_mutex_destroy(&l->mutex); rc != 0)
    fatal("gasnet_hsl_destroy", "pthread_mutex_destroy: %s", std::strerror(rc));
}

void gasnet_hsl_lock(gasnet_hsl_t *hsl) {
  Hsl *l = as_lock(hsl, "gasnet_hsl_lock");
  if (held_by_me(l))
    fatal("gasnet_hsl_lock", "this thread holds the lock already (no recursion)");
  if (const int rc = pthread_mutex_lock(&l->mutex); rc != 0)
    fatal("gasnet_hsl_lock", "pthread_mutex_lock: %s", std::strerror(rc));
  set_holder(l, true);
  ++context().hsl_held;
  context().publish();
}

int gasnet_hsl_trylock(gasnet_hsl_t *hsl) {
  Hsl *l = as_lock(hsl, "gasnet_hsl_trylock");
  if (held_by_me(l))
    fatal("gasnet_hsl_trylock", "this thread holds the lock already (no recursion)");
  const int rc = pthread_mutex_trylock(&l->mutex);
  if (rc == EBUSY)
    return GASNET_ERR_NOT_READY;
  if (rc != 0)
    fatal("gasnet_hsl_trylock", "pthread_mutex_trylock: %s", std::strerror(rc));
  set_holder(l, true);
  ++context().hsl_held;
  context().publish();
  return GASNET_OK;
}

void gasnet_hsl_unlock(gasnet_hsl_t *hsl) {
  Hsl *l = as_lock(hsl, "gasnet_hsl_unlock");
  if (!held_by_me(l))
    fatal("gasnet_hsl_unlock", "this thread does not hold the lock");
  set_holder(l, false);
  --context().hsl_held;
  context().publish();
  if (const int rc = pthread_mutex_unlock(&l->mutex); rc != 0)
    fatal("gasnet_hsl_unlock", "pthread_mutex_unlock: %s", std::strerror(rc));
}

} // extern "C"
