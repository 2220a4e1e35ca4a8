#include "mpi_rma/ring_watch.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/log.hpp"
#include "mpi_rma/mpi_call.hpp"
#include "mpi_rma/mpi_env.hpp"

namespace hygaspi::mpi {

namespace {

// How long a connection attempt may take before its host counts as gone: on a live host a
// listening rank's kernel answers at once (accepted, or refused when its process is gone).
constexpr int kConnectMs = 2000;

// This host's IPv4 addresses, those of other interfaces first, then loopback, at most `max`.
std::vector<std::uint32_t> host_addresses(unsigned max) {
  std::vector<std::uint32_t> out;
  ifaddrs *list = nullptr;
  if (getifaddrs(&list) == 0) {
    for (const ifaddrs *a = list; a != nullptr && out.size() + 1 < max; a = a->ifa_next)
      if (a->ifa_addr != nullptr && a->ifa_addr->sa_family == AF_INET && (a->ifa_flags & IFF_UP) != 0 &&
          (a->ifa_flags & IFF_LOOPBACK) == 0)
        out.push_back(reinterpret_cast<const sockaddr_in *>(a->ifa_addr)->sin_addr.s_addr);
    freeifaddrs(list);
  }
  out.push_back(htonl(INADDR_LOOPBACK));
  return out;
}

// Who shares this process's loopback: the same boot of the same machine, and the same network
// namespace (the two "hosts" of scripts/multihost.sh are one boot, two namespaces).
std::uint64_t network_identity() noexcept {
  std::uint64_t id = 0;
  if (std::FILE *f = std::fopen("/proc/sys/kernel/random/boot_id", "r")) {
    for (int c; (c = std::fgetc(f)) != EOF;)
      id = (id ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL; // FNV-1a
    std::fclose(f);
  }
  struct stat ns {};
  if (stat("/proc/self/ns/net", &ns) == 0)
    id = (id ^ static_cast<std::uint64_t>(ns.st_ino)) * 0x100000001b3ULL;
  return id;
}

// Keepalive probes from the kernel: a successor whose host goes down (no reset will come) shows as
// ETIMEDOUT after about 10 + 3 * 2 s of silence. A live host's kernel answers them itself.
void keep_alive(int fd) noexcept {
  const int on = 1, idle = 10, interval = 2, count = 3;
  (void)setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
  (void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  (void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
  (void)setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
}

} // namespace

void RingWatch::open(Env &env) {
  std::lock_guard guard(mutex_);
  close_locked();
  me_ = env.rank();
  const int n = env.size();
  Card mine;
  mine.network = network_identity();
  // Any number that another process is unlikely to write first; getrandom() rarely fails.
  if (getrandom(&token_, sizeof token_, GRND_NONBLOCK) != static_cast<ssize_t>(sizeof token_))
    token_ = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
             (static_cast<std::uint64_t>(getpid()) << 40);
  mine.token = token_;
  listener_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  sockaddr_in any{};
  any.sin_family = AF_INET;
  any.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t length = sizeof any;
  if (listener_ >= 0 && bind(listener_, reinterpret_cast<sockaddr *>(&any), sizeof any) == 0 &&
      listen(listener_, SOMAXCONN) == 0 && getsockname(listener_, reinterpret_cast<sockaddr *>(&any), &length) == 0) {
    const std::vector<std::uint32_t> addresses = host_addresses(kMaxAddresses);
    std::copy(addresses.begin(), addresses.end(), mine.address.begin());
    mine.count = static_cast<std::uint16_t>(addresses.size());
    mine.port = any.sin_port;
  } else {
    log::warn("no listening socket (%s): deaths of ranks with no live node peer go unseen", std::strerror(errno));
  }
  // Every rank takes part in the collectives, listening or not.
  cards_.assign(static_cast<std::size_t>(n), Card{});
  passed_.assign(static_cast<std::size_t>(n), 0);
  {
    auto lock = env.lock();
    if (HYGASPI_MPI(MPI_Allgather(&mine, sizeof mine, MPI_BYTE, cards_.data(), sizeof mine, MPI_BYTE, env.comm())) !=
        GASPI_SUCCESS)
      cards_.assign(static_cast<std::size_t>(n), Card{}); // logged; nobody is watched
  }
  if (cards_[static_cast<std::size_t>(me_)].count != 0)
    advance((me_ + 1) % n, 0, nullptr); // every rank listens by now: each did before its part of the gather
  // The successors write their tokens once their watchers have connected; a connection that does
  // not show the right one at once leads elsewhere, and the next address is tried at later looks.
  {
    auto lock = env.lock();
    (void)HYGASPI_MPI(MPI_Barrier(env.comm()));
  }
  if (listener_ >= 0)
    accept_watchers();
  if (fd_ >= 0) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, kConnectMs) != 1 || read_successor() != 1 || token_bytes_ != sizeof token_)
      advance(successor_, address_ + 1, nullptr); // no token, or another process's: its next address
  }
  if (successor_ >= 0 && fd_ < 0)
    log::warn("rank %d cannot be reached over TCP: it is not watched for deaths that no node peer sees", successor_);
  open_.store(listener_ >= 0, std::memory_order_release);
}

void RingWatch::close() noexcept {
  std::lock_guard guard(mutex_);
  close_locked();
}

void RingWatch::close_locked() noexcept {
  open_.store(false, std::memory_order_release);
  if (listener_ >= 0) {
    // Every watcher is told that this rank leaves, those still in the accept queue too: closing
    // the listener with them queued would reset their connections, which they take for a death.
    accept_watchers();
    for (int fd : watchers_) {
      (void)send(fd, &kLeaving, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
      ::close(fd);
    }
    watchers_.clear();
    ::close(listener_);
    listener_ = -1;
  }
  stop_watching();
}

void RingWatch::stop_watching() noexcept {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = -1;
  successor_ = -1;
}

void RingWatch::accept_watchers() noexcept {
  for (int fd; (fd = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0;) {
    (void)send(fd, &token_, sizeof token_, MSG_NOSIGNAL | MSG_DONTWAIT); // 8 bytes fit any socket buffer
    watchers_.push_back(fd);
  }
}

int RingWatch::read_successor() noexcept {
  for (;;) {
    unsigned char buffer[8];
    const std::size_t want = token_bytes_ < sizeof buffer ? sizeof buffer - token_bytes_ : 1;
    const ssize_t got = recv(fd_, buffer, want, MSG_DONTWAIT);
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
      return 1;
    if (got <= 0)
      return -1; // the end of the stream, a reset, or no answer to the keepalive (ETIMEDOUT)
    if (token_bytes_ == sizeof buffer)
      return buffer[0] == static_cast<unsigned char>(kLeaving) ? 0 : -1;
    std::copy(buffer, buffer + got, token_read_.begin() + token_bytes_);
    token_bytes_ += static_cast<unsigned>(got);
    if (token_bytes_ < sizeof buffer)
      continue;
    std::uint64_t token = 0;
    std::memcpy(&token, token_read_.data(), sizeof token);
    if (token != cards_[static_cast<std::size_t>(successor_)].token)
      return -2;
  }
}

void RingWatch::look(const Callbacks &cb) noexcept {
  accept_watchers();
  if (fd_ < 0)
    return; // nobody to watch
  const int gone = successor_;
  const int n = static_cast<int>(cards_.size());
  switch (read_successor()) {
  case 1:
    return; // alive
  case 0:
    // The job ends in order (every rank has reached its term, or gasnet_exit ends the job): the
    // ranks after it may be closing too, and their refused connections would not mean deaths.
    log::debug("rank %d left the job in order: this rank stops watching", gone);
    stop_watching();
    return;
  case -2:
    advance(gone, address_ + 1, &cb); // another process answered at that address: the rank's next one
    return;
  default:
    if (token_bytes_ < sizeof token_) {
      // Closed before it showed its token: the rank died before its first look since this rank
      // connected, or the address led elsewhere. Connecting again tells: a dead rank refuses.
      advance(gone, 0, &cb);
      return;
    }
    passed_[static_cast<std::size_t>(gone)] = 1;
    log::warn("rank %d died: its process closed its connection to this rank without leaving the job", gone);
    cb.call_died(cb.died, MpiRank{gone});
    advance((gone + 1) % n, 0, &cb);
  }
}

void RingWatch::advance(int rank, unsigned first, const Callbacks *cb) noexcept {
  if (fd_ >= 0)
    ::close(fd_);
  fd_ = -1;
  successor_ = -1;
  const int n = static_cast<int>(cards_.size());
  for (int k = 0; k < n; ++k) {
    const int next = (rank + k) % n;
    if (next == me_)
      return; // every other rank is gone
    const Card &card = cards_[static_cast<std::size_t>(next)];
    if (passed_[static_cast<std::size_t>(next)] != 0 || card.count == 0 ||
        (cb != nullptr && cb->call_gone(cb->gone, MpiRank{next})))
      continue;
    successor_ = next;
    token_bytes_ = 0;
    const int fd = connect_to(next, k == 0 ? first : 0);
    fd_ = std::max(fd, -1);
    if (fd_ >= 0 || cb == nullptr)
      return; // at open(), a rank out of reach is left unwatched (open() says so)
    passed_[static_cast<std::size_t>(next)] = 1;
    if (fd == -2 || (k == 0 && first > 0)) {
      // No address of it can be tried from here (loopback alone, of another host), or its first
      // ones led to other processes and the others refuse: it cannot be found, not known dead.
      log::warn("rank %d is not watched: none of its addresses leads to it", next);
      continue;
    }
    log::warn("rank %d died: its process no longer accepts connections", next);
    cb->call_died(cb->died, MpiRank{next});
  }
}

int RingWatch::connect_to(int rank, unsigned first) noexcept {
  const Card &card = cards_[static_cast<std::size_t>(rank)];
  const bool same_network = card.network == cards_[static_cast<std::size_t>(me_)].network;
  int result = -2;
  for (unsigned a = first; a < card.count && a < kMaxAddresses; ++a) {
    if (card.address[a] == htonl(INADDR_LOOPBACK) && !same_network)
      continue; // this host's loopback, not the rank's
    result = -1;
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
      return -2; // this process is out of sockets: nothing is known of the rank
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_addr.s_addr = card.address[a];
    to.sin_port = card.port;
    int rc = connect(fd, reinterpret_cast<const sockaddr *>(&to), sizeof to);
    if (rc != 0 && errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      int error = ETIMEDOUT;
      socklen_t length = sizeof error;
      if (::poll(&p, 1, kConnectMs) == 1)
        (void)getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
      rc = error == 0 ? 0 : -1;
    }
    if (rc == 0) {
      keep_alive(fd);
      address_ = a;
      return fd;
    }
    ::close(fd);
  }
  return result;
}

} // namespace hygaspi::mpi
