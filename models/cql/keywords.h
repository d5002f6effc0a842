// The CQL parser's keyword table (internal to models/cql/; not installed).
#pragma once

#include <string_view>

namespace faultline::models::cql {

// Whether `word` (lower case) is a word YCQL's grammar will not take as a
// bare name: its reserved_keyword and type_func_name_keyword lists.
bool IsReservedWord(std::string_view word);

// Whether `word` (lower case) is reserved in Apache Cassandra 4's grammar
// (src/resources/org/apache/cassandra/cql3/reserved_keywords.txt). A word
// YCQL reserves and Cassandra does not (end, user, default, ...) is a name
// in Cassandra only.
bool IsCassandraReservedWord(std::string_view word);

}  // namespace faultline::models::cql
