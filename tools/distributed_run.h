// hlo-run as an MPI program (docs/mpi.md): under mpirun the R x Q devices
// are split in contiguous blocks over the processes, each running its own
// block; the process holding device 0 prints and writes the result. Without
// a launcher (or with one process) nothing changes. This file keeps that
// logic out of hlo_run_main.cc: start-up, the device split and its note,
// error lines naming the process, the output of each process's devices,
// and ending every process together.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "backend_cpu/executor.h"
#include "backend_cpu/memory_estimate.h"
#include "ir/module.h"

namespace hlo::distributed {

// Starts MPI when an MPI launcher started this process. Errors (e.g. a
// build without MPI under mpirun) end the program with exit 1.
absl::Status Start(int* argc, char*** argv);

// "process 1 of 2 (host NAME): " when running over several processes, else
// "": prefixed to error lines so each one names its process.
std::string ErrorPrefix();
// Remembers the first error of this process (the cause other processes are
// told about).
void RecordError(absl::string_view message);

// Connects `options` to the other processes (if any) and notes on stderr
// which devices this process runs; fails when the process count does not
// divide the device count of `module` and `options`.
absl::Status Configure(const Module& module, cpu::RunOptions* options);

// This process's share of the run, for the memory check (processes, and
// how many run on this host): one process without a launcher.
cpu::ProcessShare Share();

// Whether this process holds device 0 (prints and writes the result).
bool HoldsDevice0();

// One directory per device this process ran, DIR/device-K (DIR created
// first; `flag` names the option in errors): `write(subdir, i)` fills the
// one of the i-th local device (device first_device + i), i < `devices`.
absl::Status WritePerDevice(const std::string& dir, const char* flag, const cpu::RunResult& result,
                            size_t devices,
                            const std::function<absl::Status(const std::string&, size_t)>& write);

// --output-dir with --all-devices: DIR/device-K/0.npy, ... for every device
// K this process ran.
absl::Status WriteDeviceOutputs(const std::string& dir, const cpu::RunResult& result);

// Runs made with the other processes so far (0 without them): the run
// numbers of the runs that follow start there.
int64_t RunsSoFar();

// hlo-run --profile: what this process sent to and received from the
// others per run, for each collective instruction and channel, averaged
// over runs [first_run, last_run); "" without other processes.
std::string TrafficTable(int64_t first_run, int64_t last_run);

// Ends this process in step with the others and returns its exit status:
// `code` as it is, or 1 when another process failed (reported on stderr).
int Finish(int code);

}  // namespace hlo::distributed
