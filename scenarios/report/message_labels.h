// The short labels the report's diagram writes on its arrows, so that a
// reader sees what each message is without hovering: a request's method and
// path ("PUT /b/k"), a statement's verb and table ("INSERT s3objects"), a
// response's status or a CQL result ("200", "3 rows"). The whole text stays
// in the arrow's tooltip.
#pragma once

#include <string>
#include <string_view>

namespace faultline::scenarios {

// A network message's label from the trace's `what` ("PUT /b/k",
// "response 503", "RST", "QUERY /cql").
std::string MessageLabel(std::string_view what);

// A CQL statement's verb and what it acts on, without keyspace or quotes:
// "SELECT s3objects", "CREATE TABLE s3objects", "USE filecoingw_s3",
// "BATCH"; at most kMaxLabelChars characters.
std::string StatementLabel(std::string_view statement);

// A store's answer from its statement's outcome in the trace: "ok",
// "3 rows", or an error's words without its number and detail ("Object
// Not Found" of "error -301 Object Not Found. ...").
std::string OutcomeLabel(std::string_view outcome);

inline constexpr std::size_t kMaxLabelChars = 40;

}  // namespace faultline::scenarios
