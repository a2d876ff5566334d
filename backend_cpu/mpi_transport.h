// The Transport of hlo-run under mpirun: MPI (standard MPI-3 calls only,
// so OpenMPI and MPICH both work). One progress thread per process makes
// every MPI call after start-up (MPI_THREAD_SERIALIZED is enough); device
// threads only queue messages and wait on their hubs. Built when the
// CMake option HLO_WITH_MPI is on; otherwise StartMpi says so. Design and
// fault handling: docs/mpi.md.
#pragma once

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "backend_cpu/transport.h"

namespace hlo::cpu {

class MpiProcesses : public Transport {
 public:
  // Finishes the processes' work together: waits (still serving messages)
  // until every process called Finish, then finalizes MPI. `failed`: this
  // process failed (after ReportFailure). Returns an error when another
  // process failed, naming it. If the others do not all arrive within
  // `timeout_seconds` after a failure is known, reports that on stderr and
  // ends every process with MPI_Abort (never a hang).
  virtual absl::Status Finish(bool failed, double timeout_seconds) = 0;
};

// Whether an MPI launcher (mpirun/mpiexec of OpenMPI or MPICH) started this
// process, from its environment.
bool LaunchedByMpi();

// True when this build has MPI support.
bool MpiBuilt();

// Initializes MPI and starts the progress thread. Call once, early, from
// the main thread.
absl::StatusOr<std::unique_ptr<MpiProcesses>> StartMpi(int* argc, char*** argv);

}  // namespace hlo::cpu
