// The CQL parser's keyword table (internal to models/cql/; not installed).
#pragma once

#include <string_view>

namespace faultline::models::cql {

// Whether `word` (lower case) is a word YCQL's grammar will not take as a
// bare name: its reserved_keyword and type_func_name_keyword lists.
bool IsReservedWord(std::string_view word);

}  // namespace faultline::models::cql
