// For benchmarks whose raw floors call MPI beside the library (whose progress thread calls MPI
// too): MPI is then the benchmark's, at MPI_THREAD_MULTIPLE (the library runs that thread only if
// MPI grants it), and the benchmark's to finalize once the library has stopped its engine.
#pragma once
#include <mpi.h>

#include <cstdlib>

inline void init_mpi_owned(int &argc, char **&argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  std::atexit([] {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized)
      MPI_Finalize();
  });
}
