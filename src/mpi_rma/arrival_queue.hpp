// The messages of one lane of active messages that arrived and are not handed out yet, in the
// order of their sequence numbers (eager.hpp says where the numbers come from). Most arrive in
// order and leave at once, so the queue is mostly empty or short: a vector read from `head_`, which
// allocates nothing once warm. A std::deque did here what it does when one inserts into it while it
// is empty: a push at its front, which allocated a block, and the pop freed it, once per message.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace hygaspi::mpi {

// T has a member `seq` (std::uint64_t).
template <class T> class ArrivalQueue {
public:
  using iterator = typename std::vector<T>::iterator;

  [[nodiscard]] bool empty() const noexcept { return head_ == items_.size(); }
  [[nodiscard]] std::size_t size() const noexcept { return items_.size() - head_; }
  T &front() noexcept { return items_[head_]; }
  iterator begin() noexcept { return items_.begin() + static_cast<std::ptrdiff_t>(head_); }
  iterator end() noexcept { return items_.end(); }

  // After every element whose number is lower or equal.
  void insert(T item) {
    if (head_ >= kCompactAt && 2 * head_ >= items_.size()) { // most of the vector is handed out
      items_.erase(items_.begin(), begin());
      head_ = 0;
    }
    const auto at =
        std::upper_bound(begin(), end(), item.seq, [](std::uint64_t seq, const T &x) { return seq < x.seq; });
    items_.insert(at, std::move(item));
  }
  void pop_front() noexcept {
    if (++head_ == items_.size())
      clear();
  }
  iterator erase(iterator at) { return items_.erase(at); }
  void clear() noexcept {
    items_.clear();
    head_ = 0;
  }

private:
  static constexpr std::size_t kCompactAt = 32;
  std::vector<T> items_;
  std::size_t head_ = 0; // items_[0, head_) were handed out
};

} // namespace hygaspi::mpi
