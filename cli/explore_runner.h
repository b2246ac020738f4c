#pragma once
// Runs the points of an exploration on every core and, under mpirun, on every rank.
//
// The points are cut into chunks of consecutive points (the size depends on the point count
// only, so a resumed run cuts them the same whatever the ranks). Rank 0 holds the queue of
// chunks not done: its own worker threads take from it, and each other rank's main thread asks
// for chunks as its threads free up (dynamic load balancing: a fast rank takes more) and sends
// each finished chunk's results back. Only rank 0 keeps the results, writes the checkpoint and
// the output; a rank's result for a point is the same bytes whichever rank computes it, so the
// output does not depend on the ranks.
//
// Checkpoint (rank 0, with -o): every finished chunk is appended to DIR/explore.checkpoint as
// it arrives (a header naming the exploration's fingerprint, then records of chunk index,
// results and checksum). A killed run leaves it behind; --resume reads the records whose
// checksum holds (a record cut short by the kill is dropped) and computes only the rest.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/explore.h"

namespace amdahl::cli {

// The process's place in an MPI job: MPI is initialized on the first call when the process
// was launched by mpirun (OpenMPI, MPICH or a PMIx launcher), and finalized at exit. Throws
// UserError when launched by mpirun and amdahl was built without MPI.
struct Ranks {
  int rank = 0;
  int size = 1;
  int local_size = 1;  // ranks on this machine
  bool mpi = false;
};
const Ranks& mpi_ranks();

// The most worker threads a process runs (--threads): more than the cores of any one machine
// explore runs on, while each thread's stack (8 MiB of address space by default) keeps the
// whole within a few GiB; a huge count is an error before any work, not an abort.
inline constexpr unsigned kMaxThreads = 512;

struct RunOptions {
  std::size_t points = 0;
  unsigned threads = 0;    // per rank, at most kMaxThreads; 0: this machine's cores over its ranks
  std::string checkpoint;  // empty: none
  bool resume = false;
  std::uint64_t fingerprint = 0;  // of everything that decides the results
  // Rank 0: after each chunk, with the points done (resumed ones included).
  std::function<void(std::size_t done, std::size_t total)> progress;
};

struct RunStats {
  int ranks = 1;
  unsigned threads = 1;  // per rank
  std::size_t chunk_points = 0;
  std::size_t chunks = 0;
  std::size_t resumed_points = 0;           // read from the checkpoint
  std::vector<std::size_t> points_by_rank;  // computed in this run
  double seconds = 0;                       // wall time of the run
  double gathered_bytes = 0;                // results sent to rank 0 over MPI
};

// One worker thread's evaluator (it owns its workspace).
using PointEvaluator = std::function<analysis::PointResult(std::size_t point)>;

// Every point's result on rank 0 (in point order); an empty vector on the other ranks.
// Throws UserError for more than kMaxThreads threads, threads the system will not start, and a
// checkpoint that belongs to another exploration or cannot be written. A new checkpoint is
// created with the first finished chunk: a run that fails before any leaves none behind.
std::vector<analysis::PointResult> run_points(const RunOptions& options,
                                              const std::function<PointEvaluator()>& make_evaluator,
                                              RunStats& stats);

// Each point allocates and frees a step's vectors. glibc returns freed memory to the OS (its
// mmap threshold and heap trimming adapt as it goes) and the threads then fault the same pages
// in again: millions of page faults, the system time rivalling the work on a VM. This keeps
// freed memory in the process (glibc; elsewhere nothing). run_points calls it.
void keep_freed_memory();

// The 64-bit FNV-1a hash of `text`: an exploration's fingerprint from its canonical
// description (the checkpoint's records are checksummed with the same hash).
std::uint64_t fingerprint(std::string_view text);

// Points per chunk for `points` points: about a thousand chunks, at most 4096 points each.
std::size_t chunk_points(std::size_t points);

}  // namespace amdahl::cli
