#pragma once
// The terminal's backstop: while a PrintableStream lives, whatever is written to its stream
// (std::cout, std::cerr in main) reaches the stream's previous buffer as
// printable(text, Lines::kKept) (util/output_encoding.h), so that no name from an input, in a
// table, a header line, a warning or anything else, writes a raw terminal escape. The
// encoders at each sink keep the layout (a table cell stays on its line); this keeps the
// terminal safe whatever a sink forgot.

#include <array>
#include <ostream>
#include <streambuf>

namespace amdahl {

class PrintableStream {
 public:
  explicit PrintableStream(std::ostream& stream);
  // Writes what is left and gives the stream its buffer back.
  ~PrintableStream();
  PrintableStream(const PrintableStream&) = delete;
  PrintableStream& operator=(const PrintableStream&) = delete;

 private:
  class Buffer : public std::streambuf {
   public:
    explicit Buffer(std::streambuf* target);
    std::streambuf* target() const { return target_; }

   protected:
    int_type overflow(int_type c) override;
    int sync() override;

   private:
    // Writes the buffer out, all of it (`whole`) or up to an incomplete UTF-8 sequence at its
    // end, which is kept for the next write; false when the target failed.
    bool drain(bool whole);
    std::streambuf* target_;
    std::array<char, 8192> buffer_{};
  };
  std::ostream& stream_;
  Buffer buffer_;
};

}  // namespace amdahl
