#include "csv_writer.h"

#include <cmath>
#include <sstream>
#include <stdexcept>

namespace amdahl::cudabench {
namespace {

void require_plain_field(const std::string& name, const std::string& value) {
  if (value.empty() || value.find_first_of(",\n\r") != std::string::npos) {
    throw std::invalid_argument("measurement field '" + name +
                                "' must be non-empty without commas or line breaks (got '" + value +
                                "')");
  }
}

std::string single_line(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

}  // namespace

ShapeString& ShapeString::add(const std::string& key, const std::string& value) {
  if (!text_.empty()) text_ += ';';
  text_ += key;
  text_ += '=';
  text_ += value;
  return *this;
}

void CsvWriter::write_preamble(const Provenance& provenance) {
  for (const auto& [key, value] : provenance)
    out_ << "# " << key << ": " << single_line(value) << '\n';
  write_header();
  out_.flush();
}

void CsvWriter::write_header() {
  if (header_written_) return;
  out_ << "bench,op_class,precision,shape,flops,bytes,time_s,reps\n";
  header_written_ = true;
}

void CsvWriter::write_row(const Measurement& m) {
  require_plain_field("bench", m.bench);
  require_plain_field("op_class", m.op_class);
  require_plain_field("precision", m.precision);
  require_plain_field("shape", m.shape);
  if (!(std::isfinite(m.time_s) && m.time_s > 0.0)) {
    throw std::invalid_argument("measurement time_s must be positive and finite (got " +
                                std::to_string(m.time_s) + ") for " + m.bench + " " + m.shape);
  }
  if (m.reps < 1)
    throw std::invalid_argument("measurement reps must be at least 1 for " + m.bench + " " +
                                m.shape);

  write_header();
  std::ostringstream time;
  time.precision(6);
  time << m.time_s;
  out_ << m.bench << ',' << m.op_class << ',' << m.precision << ',' << m.shape << ',' << m.flops
       << ',' << m.bytes << ',' << time.str() << ',' << m.reps << '\n';
  out_.flush();
}

}  // namespace amdahl::cudabench
