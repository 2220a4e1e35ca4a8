// The median every benchmark reports, of a figure's repetitions or of its turns' ratios. Depends
// on neither GASPI, MPI nor Google Benchmark, so that every bench program can include it.
#pragma once

#include <algorithm>
#include <vector>

namespace bench {

// The middle value (the upper one of an even count); `v` must not be empty.
inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

} // namespace bench
