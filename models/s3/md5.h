// MD5 (RFC 1321) of a body, as S3 gives a single PUT's ETag: clients such
// as s3cmd compare it with their own and upload again when it differs.
#pragma once

#include <string>
#include <string_view>

namespace faultline::models::s3 {

// The digest as 32 lowercase hex digits.
std::string Md5Hex(std::string_view bytes);

}  // namespace faultline::models::s3
