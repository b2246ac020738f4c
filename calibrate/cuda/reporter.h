// Where benchmarks put their results: rows go to the CSV, a one-line summary of each goes to
// the progress stream (stderr), with the achieved rate so a reader can sanity-check the run
// as it goes.
#pragma once

#include <chrono>
#include <ostream>
#include <string>

#include "csv_writer.h"

namespace amdahl::cudabench {

class Reporter {
 public:
  Reporter(CsvWriter& writer, std::ostream& progress) : writer_(writer), progress_(progress) {}

  void begin_group(const std::string& name, const std::string& description);
  // Rows and seconds since begin_group.
  void end_group();
  void record(const Measurement& measurement);
  // A measurement left out (does not fit in memory, unsupported, out of time): progress only.
  void skip(const std::string& what, const std::string& reason);
  // Free-form progress line.
  void note(const std::string& message);

  int rows_written() const { return rows_written_; }

 private:
  CsvWriter& writer_;
  std::ostream& progress_;
  std::string group_;
  std::chrono::steady_clock::time_point group_start_;
  int group_rows_ = 0;
  int group_skips_ = 0;
  int rows_written_ = 0;
};

}  // namespace amdahl::cudabench
