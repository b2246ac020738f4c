#include "cli/explore_runner.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <filesystem>
#include <limits>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

#include "util/error.h"
#include "util/hash.h"
#include "util/input_file.h"
#include "util/path_policy.h"

#ifdef __linux__
#include <sched.h>
#endif
#ifdef __GLIBC__
#include <malloc.h>
#endif

#ifdef AMDAHL_WITH_MPI
#include <mpi.h>
#endif

namespace amdahl::cli {
namespace {

namespace fs = std::filesystem;
using analysis::PointResult;
using Clock = std::chrono::steady_clock;

constexpr char kMagic[] = "amdahl-explore-checkpoint 2";
// A main thread with nothing to do waits this long before looking again (MPI's blocking calls
// would spin a core a worker thread needs).
constexpr auto kPoll = std::chrono::microseconds(200);

// MPI message tags.
enum Tag : int { kRequest = 1, kChunks = 2, kResult = 3 };

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

bool launched_by_mpirun() {
  return env("OMPI_COMM_WORLD_SIZE") || env("PMI_SIZE") || env("PMIX_RANK");
}

// The chunks not yet handed out, shared by a rank's worker threads (and, on rank 0, by the
// other ranks' requests); closed when no more will come.
class ChunkQueue {
 public:
  void push(std::size_t chunk) {
    {
      std::lock_guard lock(m_);
      q_.push_back(chunk);
    }
    cv_.notify_one();
  }
  void close() {
    {
      std::lock_guard lock(m_);
      closed_ = true;
    }
    cv_.notify_all();
  }
  // Blocks until a chunk or the close.
  std::optional<std::size_t> pop() {
    std::unique_lock lock(m_);
    cv_.wait(lock, [&] { return !q_.empty() || closed_; });
    if (q_.empty()) return std::nullopt;
    const std::size_t c = q_.front();
    q_.pop_front();
    return c;
  }
  std::optional<std::size_t> try_pop() {
    std::lock_guard lock(m_);
    if (q_.empty()) return std::nullopt;
    const std::size_t c = q_.front();
    q_.pop_front();
    return c;
  }
  std::size_t size() {
    std::lock_guard lock(m_);
    return q_.size();
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::size_t> q_;
  bool closed_ = false;
};

struct Finished {
  std::size_t chunk;
  std::vector<PointResult> results;
};

// Chunks the worker threads finished, for the main thread.
class FinishedQueue {
 public:
  void push(Finished f) {
    std::lock_guard lock(m_);
    q_.push_back(std::move(f));
  }
  std::vector<Finished> take() {
    std::lock_guard lock(m_);
    std::vector<Finished> out(std::make_move_iterator(q_.begin()),
                              std::make_move_iterator(q_.end()));
    q_.clear();
    return out;
  }

 private:
  std::mutex m_;
  std::deque<Finished> q_;
};

// The worker threads of one rank: each takes chunks from `queue` until it closes.
class Workers {
 public:
  Workers(unsigned n, std::size_t points, std::size_t chunk_points, ChunkQueue& queue,
          FinishedQueue& finished, const std::function<PointEvaluator()>& make_evaluator)
      : queue_(queue) {
    try {
      threads_.reserve(n);
      for (unsigned t = 0; t < n; ++t) start(points, chunk_points, finished, make_evaluator);
    } catch (const std::system_error& e) {
      // The destructor does not run for a constructor that throws: stop the threads started.
      stop_.store(true);
      queue_.close();
      join();
      throw UserError(
          fmt::format("explore: cannot start worker thread {} of {} ({}); give fewer --threads",
                      threads_.size() + 1, n, e.what()));
    }
  }
  // Leaving early (an error): the threads stop after their current chunk.
  ~Workers() {
    stop_.store(true);
    queue_.close();
    join();
  }
  void join() {
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }
  bool all_exited() const { return exited_.load() == threads_.size(); }
  unsigned busy() const { return busy_.load(); }
  void rethrow() {
    std::lock_guard lock(error_m_);
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void start(std::size_t points, std::size_t chunk_points, FinishedQueue& finished,
             const std::function<PointEvaluator()>& make_evaluator) {
    ChunkQueue& queue = queue_;
    threads_.emplace_back([&, points, chunk_points] {
      try {
        const PointEvaluator evaluate = make_evaluator();
        while (const auto chunk = queue.pop()) {
          if (stop_.load()) break;
          busy_.fetch_add(1);
          const std::size_t begin = *chunk * chunk_points;
          const std::size_t end = std::min(points, begin + chunk_points);
          Finished f{*chunk, {}};
          f.results.reserve(end - begin);
          for (std::size_t p = begin; p < end; ++p) f.results.push_back(evaluate(p));
          finished.push(std::move(f));
          busy_.fetch_sub(1);
        }
      } catch (...) {
        std::lock_guard lock(error_m_);
        if (!error_) error_ = std::current_exception();
        queue.close();
      }
      exited_.fetch_add(1);
    });
  }

  ChunkQueue& queue_;
  std::vector<std::thread> threads_;
  std::atomic<bool> stop_{false};
  std::atomic<unsigned> busy_{0};
  std::atomic<std::size_t> exited_{0};
  std::mutex error_m_;
  std::exception_ptr error_;
};

// Rank 0's checkpoint: the header, then one record per finished chunk.
class Checkpoint {
 public:
  Checkpoint(const RunOptions& o, std::size_t chunk_points,
             std::vector<std::optional<std::vector<PointResult>>>& done)
      : path_(o.checkpoint) {
    if (path_.empty()) return;
    // The results are this machine's bytes: its byte order is part of the header.
    const std::string header =
        fmt::format("{} {:016x} {} {} {} {}\n", kMagic, o.fingerprint, o.points, chunk_points,
                    sizeof(PointResult), std::endian::native == std::endian::little ? "le" : "be");
    if (fs::exists(path_)) {
      if (!o.resume)
        throw UserError(fmt::format(
            "{} is an unfinished exploration's checkpoint: give --resume to continue it, or "
            "remove it to start over",
            path_));
      const std::uintmax_t good = read(header, done);
      // Opened without following a link, never over a pipe or device (util/path_policy.h).
      file_ = open_in_place(path_, true, "the checkpoint");
      if (::ftruncate(::fileno(file_), static_cast<off_t>(good)) != 0)  // a cut-short record
        throw UserError(
            fmt::format("cannot append to the checkpoint {}: {}", path_, std::strerror(errno)));
    } else if (o.resume) {
      throw UserError(fmt::format("--resume: no checkpoint {} to resume from", path_));
    } else {
      header_ = header;  // written with the first record (create())
    }
  }
  ~Checkpoint() {
    if (file_) std::fclose(file_);
  }
  void append(std::size_t chunk, const std::vector<PointResult>& results) {
    if (path_.empty()) return;
    if (!file_) create();
    const std::uint64_t head[2] = {chunk, results.size()};
    const std::size_t bytes = results.size() * sizeof(PointResult);
    const std::uint64_t sum = fnv1a(results.data(), bytes, fnv1a(head, sizeof head));
    bool ok = std::fwrite(head, sizeof head, 1, file_) == 1;
    ok = ok && (bytes == 0 || std::fwrite(results.data(), bytes, 1, file_) == 1);
    ok = ok && std::fwrite(&sum, sizeof sum, 1, file_) == 1;
    ok = ok && std::fflush(file_) == 0;
    if (!ok)
      throw UserError(
          fmt::format("cannot write the checkpoint {}: {}", path_, std::strerror(errno)));
  }

 private:
  // The records of an existing checkpoint into `done`; returns the bytes that hold good ones.
  std::uintmax_t read(const std::string& header,
                      std::vector<std::optional<std::vector<PointResult>>>& done) {
    // A regular file (a pipe named like it would hang the read), recorded as an input.
    check_input_file(path_, std::numeric_limits<std::uintmax_t>::max(), "the checkpoint");
    std::FILE* f = std::fopen(path_.c_str(), "rb");
    if (!f) throw UserError(fmt::format("cannot read the checkpoint {}", path_));
    std::string got(header.size(), '\0');
    const bool same = std::fread(got.data(), 1, got.size(), f) == got.size() && got == header;
    if (!same) {
      std::fclose(f);
      throw UserError(fmt::format(
          "--resume: the checkpoint {} belongs to another exploration (other system, axes, "
          "workloads or amdahl version); remove it to start over",
          path_));
    }
    std::uintmax_t good = header.size();
    while (true) {
      std::uint64_t head[2];
      if (std::fread(head, sizeof head, 1, f) != 1) break;
      const std::uint64_t chunk = head[0], count = head[1];
      if (chunk >= done.size() || count > (1u << 20)) break;
      std::vector<PointResult> r(count);
      std::uint64_t sum = 0;
      if (count && std::fread(r.data(), count * sizeof(PointResult), 1, f) != 1) break;
      if (std::fread(&sum, sizeof sum, 1, f) != 1) break;
      if (sum != fnv1a(r.data(), count * sizeof(PointResult), fnv1a(head, sizeof head))) break;
      done[chunk] = std::move(r);
      good += sizeof head + count * sizeof(PointResult) + sizeof sum;
    }
    std::fclose(f);
    return good;
  }

  // A new checkpoint, created only once a chunk has finished (an argument error, a thread that
  // will not start, a base that fails leave no checkpoint behind to be named or resumed). O_EXCL:
  // a file (or a link) that appeared meanwhile is not written through.
  void create() {
    std::error_code ec;
    fs::create_directories(fs::path(path_).parent_path(), ec);
    file_ = open_in_place(path_, false, "the checkpoint");  // O_EXCL, no link followed
    if (std::fwrite(header_.data(), 1, header_.size(), file_) != header_.size())
      throw UserError(
          fmt::format("cannot write the checkpoint {}: {}", path_, std::strerror(errno)));
  }

  std::string path_;
  std::string header_;  // of a checkpoint not yet created
  std::FILE* file_ = nullptr;
};

// The cores this process may run on: mpirun binds each rank to its own cores (one each when
// there are as many ranks as cores), a plain run may use the machine's. A rank that is not
// bound shares the machine's cores with the machine's other ranks.
unsigned default_threads(const Ranks& r) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
#ifdef __linux__
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    const unsigned allowed = static_cast<unsigned>(CPU_COUNT(&set));
    if (allowed > 0 && allowed < cores) return allowed;
  }
#endif
  return std::max(1u, cores / static_cast<unsigned>(std::max(1, r.local_size)));
}

#ifdef AMDAHL_WITH_MPI
void mpi_check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw InternalError(fmt::format("MPI: {} failed ({})", what, rc));
}
#endif

// A worker rank: asks rank 0 for chunks while its threads can take them, sends back results.
void run_worker_rank([[maybe_unused]] const RunOptions& o, [[maybe_unused]] unsigned threads,
                     [[maybe_unused]] std::size_t chunk_points,
                     [[maybe_unused]] const std::function<PointEvaluator()>& make_evaluator,
                     [[maybe_unused]] RunStats& stats) {
#ifdef AMDAHL_WITH_MPI
  ChunkQueue queue;
  FinishedQueue finished;
  Workers workers(threads, o.points, chunk_points, queue, finished, make_evaluator);
  bool stopped = false, asked = false;
  std::vector<std::uint64_t> reply(threads);
  std::vector<unsigned char> buffer;
  // Sends the finished chunks to rank 0; false when there were none.
  auto send_finished = [&] {
    bool any = false;
    for (Finished& f : finished.take()) {
      any = true;
      const std::size_t bytes = f.results.size() * sizeof(PointResult);
      buffer.resize(sizeof(std::uint64_t) + bytes);
      const std::uint64_t chunk = f.chunk;
      std::memcpy(buffer.data(), &chunk, sizeof chunk);
      if (bytes) std::memcpy(buffer.data() + sizeof chunk, f.results.data(), bytes);
      mpi_check(MPI_Send(buffer.data(), static_cast<int>(buffer.size()), MPI_BYTE, 0, kResult,
                         MPI_COMM_WORLD),
                "send results");
      stats.points_by_rank[0] += f.results.size();
    }
    return any;
  };
  while (true) {
    bool idle = !send_finished();
    workers.rethrow();
    if (!stopped && !asked && queue.size() + workers.busy() < threads) {
      const std::uint64_t want = threads - queue.size() - workers.busy();
      mpi_check(MPI_Send(&want, 1, MPI_UINT64_T, 0, kRequest, MPI_COMM_WORLD), "request");
      asked = true;
      idle = false;
    }
    if (asked) {
      int arrived = 0;
      MPI_Status status;
      mpi_check(MPI_Iprobe(0, kChunks, MPI_COMM_WORLD, &arrived, &status), "probe");
      if (arrived) {
        int count = 0;
        MPI_Get_count(&status, MPI_UINT64_T, &count);
        reply.resize(static_cast<std::size_t>(count));
        mpi_check(MPI_Recv(reply.data(), count, MPI_UINT64_T, 0, kChunks, MPI_COMM_WORLD,
                           MPI_STATUS_IGNORE),
                  "receive chunks");
        asked = false;
        idle = false;
        if (count == 0) {
          stopped = true;
          queue.close();
        }
        for (const std::uint64_t c : reply) queue.push(c);
      }
    }
    // Once the threads have exited nothing more can finish: send the last results and leave.
    if (stopped && workers.all_exited() && !send_finished()) break;
    if (idle) std::this_thread::sleep_for(kPoll);
  }
  workers.join();
  workers.rethrow();
#endif
}

}  // namespace

const Ranks& mpi_ranks() {
  static const Ranks ranks = [] {
    Ranks r;
    if (!launched_by_mpirun()) return r;
#ifdef AMDAHL_WITH_MPI
    int provided = 0;
    mpi_check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "init");
    std::atexit([] {
      int finalized = 0;
      MPI_Finalized(&finalized);
      if (!finalized) MPI_Finalize();
    });
    MPI_Comm_rank(MPI_COMM_WORLD, &r.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &r.size);
    MPI_Comm local;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
    MPI_Comm_size(local, &r.local_size);
    MPI_Comm_free(&local);
    r.mpi = true;
    return r;
#else
    throw UserError(
        "launched by mpirun, but this amdahl was built without MPI (install libopenmpi-dev and "
        "rebuild: scripts/setup)");
#endif
  }();
  return ranks;
}

void keep_freed_memory() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

std::uint64_t fingerprint(std::string_view text) { return fnv1a(text.data(), text.size()); }

std::size_t chunk_points(std::size_t points) {
  return std::clamp<std::size_t>((points + 1023) / 1024, 1, 4096);
}

std::vector<PointResult> run_points(const RunOptions& o,
                                    const std::function<PointEvaluator()>& make_evaluator,
                                    RunStats& stats) {
  keep_freed_memory();
  const Ranks& ranks = mpi_ranks();
  const auto start = Clock::now();
  if (o.threads > kMaxThreads)
    throw UserError(fmt::format("--threads: at most {} worker threads per process (got {})",
                                kMaxThreads, o.threads));
  const unsigned threads = o.threads ? o.threads : std::min(kMaxThreads, default_threads(ranks));
  const std::size_t per_chunk = chunk_points(o.points);
  const std::size_t chunks = (o.points + per_chunk - 1) / per_chunk;
  stats = RunStats{};
  stats.ranks = ranks.size;
  stats.threads = threads;
  stats.chunk_points = per_chunk;
  stats.chunks = chunks;
  stats.points_by_rank.assign(static_cast<std::size_t>(ranks.size), 0);
  if (ranks.rank != 0) {
    stats.points_by_rank.assign(1, 0);
    run_worker_rank(o, threads, per_chunk, make_evaluator, stats);
    stats.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return {};
  }

  std::vector<std::optional<std::vector<PointResult>>> done(chunks);
  Checkpoint checkpoint(o, per_chunk, done);
  std::size_t done_chunks = 0, done_points = 0;
  ChunkQueue queue;
  for (std::size_t c = 0; c < chunks; ++c)
    if (done[c]) {
      ++done_chunks;
      done_points += done[c]->size();
    } else {
      queue.push(c);
    }
  stats.resumed_points = done_points;
  queue.close();  // rank 0's queue is complete from the start
  if (o.progress) o.progress(done_points, o.points);

  FinishedQueue finished;
  Workers workers(threads, o.points, per_chunk, queue, finished, make_evaluator);
  auto store = [&](std::size_t chunk, std::vector<PointResult> results, int rank) {
    if (chunk >= chunks || done[chunk]) throw InternalError("explore: a chunk finished twice");
    checkpoint.append(chunk, results);
    stats.points_by_rank[static_cast<std::size_t>(rank)] += results.size();
    done_points += results.size();
    done[chunk] = std::move(results);
    ++done_chunks;
    if (o.progress) o.progress(done_points, o.points);
  };
  [[maybe_unused]] int stopped_ranks = 0;
  [[maybe_unused]] std::vector<unsigned char> buffer;
  while (true) {
    bool idle = true;
    for (Finished& f : finished.take()) {
      idle = false;
      store(f.chunk, std::move(f.results), 0);
    }
    workers.rethrow();
#ifdef AMDAHL_WITH_MPI
    if (ranks.mpi) {
      int arrived = 0;
      MPI_Status status;
      while ((mpi_check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &arrived, &status),
                        "probe"),
              arrived)) {
        idle = false;
        if (status.MPI_TAG == kRequest) {
          std::uint64_t want = 0;
          mpi_check(MPI_Recv(&want, 1, MPI_UINT64_T, status.MPI_SOURCE, kRequest, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE),
                    "receive request");
          std::vector<std::uint64_t> give;
          while (give.size() < want)
            if (const auto c = queue.try_pop())
              give.push_back(*c);
            else
              break;
          if (give.empty()) ++stopped_ranks;
          mpi_check(MPI_Send(give.data(), static_cast<int>(give.size()), MPI_UINT64_T,
                             status.MPI_SOURCE, kChunks, MPI_COMM_WORLD),
                    "send chunks");
        } else if (status.MPI_TAG == kResult) {
          int bytes = 0;
          MPI_Get_count(&status, MPI_BYTE, &bytes);
          buffer.resize(static_cast<std::size_t>(bytes));
          mpi_check(MPI_Recv(buffer.data(), bytes, MPI_BYTE, status.MPI_SOURCE, kResult,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                    "receive results");
          stats.gathered_bytes += bytes;
          std::uint64_t chunk = 0;
          std::memcpy(&chunk, buffer.data(), sizeof chunk);
          std::vector<PointResult> results((buffer.size() - sizeof chunk) / sizeof(PointResult));
          if (!results.empty())
            std::memcpy(results.data(), buffer.data() + sizeof chunk,
                        results.size() * sizeof(PointResult));
          store(static_cast<std::size_t>(chunk), std::move(results), status.MPI_SOURCE);
        } else {
          throw InternalError(fmt::format("explore: unexpected MPI tag {}", status.MPI_TAG));
        }
      }
    }
#endif
    const bool others_done = !ranks.mpi || stopped_ranks == ranks.size - 1;
    if (done_chunks == chunks && others_done && workers.all_exited()) break;
    if (idle) std::this_thread::sleep_for(kPoll);
  }
  workers.join();
  workers.rethrow();
  std::vector<PointResult> out;
  out.reserve(o.points);
  for (auto& d : done) out.insert(out.end(), d->begin(), d->end());
  stats.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return out;
}

}  // namespace amdahl::cli
