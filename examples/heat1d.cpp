// Demo: a 1-D heat equation, explicit Jacobi steps, on a ring of GASPI ranks. Each rank owns a
// block of cells plus one halo cell on each side; every step it writes its edge cells into its
// neighbours' halos with gaspi_write_notify and waits for theirs with gaspi_notify_waitsome. The
// result is checked against a serial run of the same steps, and rank 0 prints it.
//
//   hygaspi-run -n 4 ./heat1d
#include <GASPI.h>
#include <GASPI_Ext.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

constexpr int kCellsPerRank = 4096;
constexpr int kSteps = 2000;
constexpr double kAlpha = 0.25;
constexpr gaspi_segment_id_t kSeg = 0;
// Notification ids: halo from the left / right neighbour, per parity of the step so that a fast
// neighbour's next halo never lands on an id that is still to be consumed.
constexpr gaspi_notification_id_t kFromLeft = 0, kFromRight = 2;

void ok(gaspi_return_t rc, const char *what) {
  if (rc != GASPI_SUCCESS) {
    std::fprintf(stderr, "heat1d: %s failed: %s\n", what, gaspi_error_str(rc));
    std::exit(1);
  }
}

double initial(long i, long n) {
  return std::sin(3.14159265358979 * static_cast<double>(i) / static_cast<double>(n - 1)) * 100.0;
}

void step(const double *in, double *out, int n) {
  for (int i = 1; i <= n; ++i)
    out[i] = in[i] + kAlpha * (in[i - 1] - 2 * in[i] + in[i + 1]);
}

void wait_for(gaspi_notification_id_t id) {
  gaspi_notification_id_t got = 0;
  gaspi_notification_t val = 0;
  ok(gaspi_notify_waitsome(kSeg, id, 1, &got, GASPI_BLOCK), "notify_waitsome");
  ok(gaspi_notify_reset(kSeg, id, &val), "notify_reset");
}

} // namespace

int main() {
  ok(gaspi_proc_init(GASPI_BLOCK), "proc_init");
  gaspi_rank_t me = 0, n = 0;
  ok(gaspi_proc_rank(&me), "proc_rank");
  ok(gaspi_proc_num(&n), "proc_num");
  const int local = kCellsPerRank;
  const long total = static_cast<long>(local) * n;

  // Two buffers of local + 2 cells (halo left, cells, halo right) in one segment.
  const gaspi_size_t buf_bytes = (local + 2) * sizeof(double);
  ok(gaspi_segment_create(kSeg, 2 * buf_bytes, GASPI_GROUP_ALL, GASPI_BLOCK, GASPI_MEM_INITIALIZED), "segment_create");
  double *base = nullptr;
  ok(gaspi_segment_ptr(kSeg, reinterpret_cast<gaspi_pointer_t *>(&base)), "segment_ptr");
  double *buf[2] = {base, base + local + 2};
  for (int i = 1; i <= local; ++i)
    buf[0][i] = initial(static_cast<long>(me) * local + i - 1, total);

  const gaspi_rank_t left = static_cast<gaspi_rank_t>((me + n - 1) % n);
  const gaspi_rank_t right = static_cast<gaspi_rank_t>((me + 1) % n);
  ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "barrier");
  for (int t = 0; t < kSteps; ++t) {
    const int cur = t % 2;
    const gaspi_offset_t off = cur * buf_bytes;
    // Fixed ends of the global rod: rank 0's left and rank n-1's right boundary stay 0.
    if (me != 0) { // my first cell -> left neighbour's right halo
      ok(gaspi_write_notify(kSeg, off + sizeof(double), left, kSeg, off + (local + 1) * sizeof(double), sizeof(double),
                            kFromRight + cur, 1, 0, GASPI_BLOCK),
         "write_notify");
    }
    if (me != n - 1) { // my last cell -> right neighbour's left halo
      ok(gaspi_write_notify(kSeg, off + local * sizeof(double), right, kSeg, off, sizeof(double), kFromLeft + cur, 1, 0,
                            GASPI_BLOCK),
         "write_notify");
    }
    if (me != n - 1)
      wait_for(kFromRight + cur);
    if (me != 0)
      wait_for(kFromLeft + cur);
    step(buf[cur], buf[1 - cur], local);
    ok(gaspi_wait(0, GASPI_BLOCK), "wait");
  }
  const double *result = buf[kSteps % 2];

  // Check against the serial computation of the same rod.
  std::vector<double> a(total + 2, 0.0), b(total + 2, 0.0);
  for (long i = 1; i <= total; ++i)
    a[i] = initial(i - 1, total);
  for (int t = 0; t < kSteps; ++t) {
    step(a.data(), b.data(), static_cast<int>(total));
    a.swap(b);
  }
  double max_err = 0.0, sum = 0.0;
  for (int i = 1; i <= local; ++i) {
    max_err = std::max(max_err, std::fabs(result[i] - a[static_cast<long>(me) * local + i]));
    sum += result[i];
  }
  double global_err = 0.0, global_sum = 0.0;
  // Gather per-rank figures to rank 0 through its segment: (err, sum) at slot me.
  ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "barrier");
  base[2 * me] = max_err;
  base[2 * me + 1] = sum;
  if (me != 0)
    ok(gaspi_write_notify(kSeg, 2 * me * sizeof(double), 0, kSeg, 2 * me * sizeof(double), 2 * sizeof(double), 4 + me,
                          1, 0, GASPI_BLOCK),
       "write_notify");
  if (me == 0) {
    for (gaspi_rank_t r = 1; r < n; ++r)
      wait_for(4 + r);
    for (gaspi_rank_t r = 0; r < n; ++r) {
      global_err = std::max(global_err, base[2 * r]);
      global_sum += base[2 * r + 1];
    }
    const bool pass = global_err < 1e-9;
    std::printf("heat1d: %ld cells on %u ranks, %d steps: heat %.6f, max deviation from serial %.3g -> %s\n", total, n,
                kSteps, global_sum / static_cast<double>(total), global_err, pass ? "OK" : "WRONG");
    if (!pass)
      std::exit(1);
  }
  ok(gaspi_wait(0, GASPI_BLOCK), "wait");
  ok(gaspi_barrier(GASPI_GROUP_ALL, GASPI_BLOCK), "barrier");
  ok(gaspi_proc_term(GASPI_BLOCK), "proc_term");
  return 0;
}
