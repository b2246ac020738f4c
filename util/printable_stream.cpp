#include "util/printable_stream.h"

#include <cstring>
#include <string_view>

#include "util/output_encoding.h"

namespace amdahl {

namespace {

// The length of the tail of `text` that begins a UTF-8 sequence longer than the tail: the bytes
// a later write may complete.
std::size_t incomplete_tail(std::string_view text) {
  for (std::size_t back = 1; back <= 3 && back <= text.size(); ++back) {
    const auto c = static_cast<unsigned char>(text[text.size() - back]);
    if (c < 0x80) return 0;
    if (c >= 0xc0) {
      const std::size_t length = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
      return length > back ? back : 0;
    }
  }
  return 0;
}

}  // namespace

PrintableStream::Buffer::Buffer(std::streambuf* target) : target_(target) {
  setp(buffer_.data(), buffer_.data() + buffer_.size());
}

bool PrintableStream::Buffer::drain(bool whole) {
  const std::string_view held(pbase(), static_cast<std::size_t>(pptr() - pbase()));
  const std::size_t kept = whole ? 0 : incomplete_tail(held);
  const std::string out = printable(held.substr(0, held.size() - kept), Lines::kKept);
  const bool ok = target_->sputn(out.data(), static_cast<std::streamsize>(out.size())) ==
                  static_cast<std::streamsize>(out.size());
  std::memmove(buffer_.data(), held.data() + held.size() - kept, kept);
  setp(buffer_.data(), buffer_.data() + buffer_.size());
  pbump(static_cast<int>(kept));
  return ok;
}

PrintableStream::Buffer::int_type PrintableStream::Buffer::overflow(int_type c) {
  if (!drain(false)) return traits_type::eof();
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  *pptr() = traits_type::to_char_type(c);
  pbump(1);
  return c;
}

int PrintableStream::Buffer::sync() {
  const bool ok = drain(true);
  return ok && target_->pubsync() == 0 ? 0 : -1;
}

PrintableStream::PrintableStream(std::ostream& stream) : stream_(stream), buffer_(stream.rdbuf()) {
  stream_.flush();
  stream_.rdbuf(&buffer_);
}

PrintableStream::~PrintableStream() {
  stream_.flush();
  stream_.rdbuf(buffer_.target());
}

}  // namespace amdahl
