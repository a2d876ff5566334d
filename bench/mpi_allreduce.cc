// The engine's own limit for docs/mpi.md's all-reduce figures: times
// MPI_Allreduce (sum of f32) of the given size across the processes of
// mpirun, the best of N repetitions, and prints time and bus bandwidth
// (2 (P-1)/P x bytes / time, the usual all-reduce measure).
//   mpirun -np 4 build/bench/mpi_allreduce 16777216 5
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long n = argc > 1 ? std::atol(argv[1]) : 16777216;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  std::vector<float> in(static_cast<size_t>(n), 1.0f + rank), out(static_cast<size_t>(n));
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    MPI_Allreduce(in.data(), out.data(), static_cast<int>(n), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    double t = MPI_Wtime() - start, slowest = 0;
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    best = std::min(best, slowest);
  }
  if (rank == 0) {
    const double bytes = 4.0 * n;
    std::printf("MPI_Allreduce %.0f MB over %d processes: %.4f s, bus bandwidth %.2f GB/s\n",
                bytes / 1e6, size, best, 2.0 * (size - 1) / size * bytes / best / 1e9);
  }
  MPI_Finalize();
  return 0;
}
