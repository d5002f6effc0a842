// The byte-level parts of the S3 front (s3_front.cc), apart so they are
// tested and fuzzed alone: a path's percent-encoding, and the aws-chunked
// body encoding of SigV4 streaming uploads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace faultline::live {

// "/b/my%20key" -> "/b/my key"; nullopt when a '%' is not followed by two
// hex digits.
std::optional<std::string> PercentDecoded(std::string_view text);

// Whether a body is aws-chunked: its Content-Encoding says so, or its
// x-amz-content-sha256 is a STREAMING-* signature.
bool IsAwsChunked(std::string_view content_encoding, std::string_view content_sha256);

// The payload of an aws-chunked body: chunks of "HEX[;chunk-signature=..]\r\n"
// then that many bytes and "\r\n", ended by a chunk of size 0 (then
// trailers, ignored). nullopt when it is malformed or truncated.
std::optional<std::string> DecodeAwsChunked(std::string_view body);

// A single byte range of a body of `size` bytes ("bytes=0-99", "bytes=100-",
// "bytes=-50"): its first byte and length; nullopt when the header is not
// one range (then the whole body is served). `satisfiable` is false for a
// range wholly past the end (416).
struct ByteRange {
  std::uint64_t first = 0;
  std::uint64_t length = 0;
  bool satisfiable = true;
};
std::optional<ByteRange> ParseRange(std::string_view header, std::uint64_t size);

}  // namespace faultline::live
