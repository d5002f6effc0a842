#include "live/http_body.h"

#include <algorithm>
#include <charconv>
#include <cstdint>

namespace faultline::live {
namespace {

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::optional<std::string> PercentDecoded(std::string_view text) {
  std::string decoded;
  decoded.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      decoded += text[i];
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    const int high = HexDigit(text[i + 1]);
    const int low = HexDigit(text[i + 2]);
    if (high < 0 || low < 0) return std::nullopt;
    decoded += static_cast<char>(high * 16 + low);
    i += 2;
  }
  return decoded;
}

bool IsAwsChunked(std::string_view content_encoding, std::string_view content_sha256) {
  return content_encoding.find("aws-chunked") != std::string_view::npos ||
         content_sha256.starts_with("STREAMING-");
}

std::optional<std::string> DecodeAwsChunked(std::string_view body) {
  std::string payload;
  std::size_t at = 0;
  // Each chunk is at least its header's 3 bytes: the body bounds the loop.
  for (std::size_t chunks = 0; chunks <= body.size(); ++chunks) {
    const std::size_t line_end = body.find("\r\n", at);
    if (line_end == std::string_view::npos) return std::nullopt;
    const std::string_view header = body.substr(at, line_end - at);
    const std::string_view hex = header.substr(0, header.find(';'));
    std::uint64_t size = 0;
    const auto [end, error] = std::from_chars(hex.data(), hex.data() + hex.size(), size, 16);
    if (hex.empty() || error != std::errc() || end != hex.data() + hex.size()) return std::nullopt;
    at = line_end + 2;
    if (size == 0) return payload;  // Trailers may follow; nothing of the payload.
    if (size > body.size() - at || body.size() - at - size < 2) return std::nullopt;
    payload.append(body.substr(at, size));
    at += size;
    if (body.substr(at, 2) != "\r\n") return std::nullopt;
    at += 2;
  }
  return std::nullopt;
}

std::optional<ByteRange> ParseRange(std::string_view header, std::uint64_t size) {
  if (!header.starts_with("bytes=") || header.find(',') != std::string_view::npos) {
    return std::nullopt;
  }
  const std::string_view spec = header.substr(6);
  const std::size_t dash = spec.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  const auto number = [](std::string_view text) -> std::optional<std::uint64_t> {
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size())
      return std::nullopt;
    return value;
  };
  const std::string_view from = spec.substr(0, dash);
  const std::string_view to = spec.substr(dash + 1);
  if (from.empty()) {  // The last N bytes.
    const std::optional<std::uint64_t> suffix = number(to);
    if (!suffix) return std::nullopt;
    const std::uint64_t length = std::min(*suffix, size);
    return ByteRange{size - length, length, length > 0};
  }
  const std::optional<std::uint64_t> first = number(from);
  if (!first) return std::nullopt;
  if (*first >= size) return ByteRange{*first, 0, false};
  std::uint64_t last = size - 1;
  if (!to.empty()) {
    const std::optional<std::uint64_t> given = number(to);
    if (!given || *given < *first) return std::nullopt;
    last = std::min(*given, size - 1);
  }
  return ByteRange{*first, last - *first + 1, true};
}

}  // namespace faultline::live
