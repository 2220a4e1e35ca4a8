// For benchmarks whose raw floors call MPI beside the library (whose progress thread calls MPI
// too): MPI is then the benchmark's, at MPI_THREAD_MULTIPLE (the library runs that thread only if
// MPI grants it), and the benchmark's to finalize once the library has stopped its engine.
// BENCH_MPI_THREAD=serialized asks for MPI_THREAD_SERIALIZED instead: on a host whose Open MPI
// has no single-copy mechanism (no CMA: some VMs and containers), osc/rdma serves no window, and
// osc/pt2pt (OMPI_MCA_osc=sm,rdma,pt2pt) refuses MPI_THREAD_MULTIPLE.
#pragma once
#include <mpi.h>

#include <cstdlib>
#include <cstring>

inline void init_mpi_owned(int &argc, char **&argv) {
  const char *level = std::getenv("BENCH_MPI_THREAD");
  const bool serialized = level != nullptr && std::strcmp(level, "serialized") == 0;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, serialized ? MPI_THREAD_SERIALIZED : MPI_THREAD_MULTIPLE, &provided);
  std::atexit([] {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized)
      MPI_Finalize();
  });
}
