// The page of `faultline report` (internal to report/; not installed): HTML,
// CSS and script in one file, drawn
// from the run's data (report.cc) by its own script, with nothing fetched.
#pragma once

#include <string>
#include <string_view>

namespace faultline::scenarios {

// The page for `data` (a JSON text safe inside a <script> element); its
// script writes every text of the page from the data, so nothing needs
// escaping as HTML.
std::string ReportPage(std::string_view data);

}  // namespace faultline::scenarios
