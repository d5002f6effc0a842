// The byte-level parts of the S3 front (s3_front.cc), apart so they are
// tested and fuzzed alone: a path's percent-encoding, and the aws-chunked
// body encoding of SigV4 streaming uploads.
#pragma once

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

}  // namespace faultline::live
