# Writes OUTPUT, a C++ source that holds the catalogue's TOML files (NAMES,
# in order, from DIR) as byte arrays, so the binary carries the catalogue and
# the files under scenarios/catalogue/ are its only copy. Run by
# scenarios/CMakeLists.txt at build time whenever a file changes.
string(REPLACE "|" ";" NAMES "${NAMES}")
set(arrays "")
set(entries "")
set(index 0)
foreach(name IN LISTS NAMES)
  file(READ "${DIR}/${name}.toml" hex HEX)
  string(LENGTH "${hex}" hex_length)
  math(EXPR size "${hex_length} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  # unsigned char: a byte over 0x7f (UTF-8 in a story) is no narrowing.
  string(APPEND arrays "constexpr unsigned char kFile${index}[] = {${bytes}0};\n")
  string(APPEND entries
         "      {\"${name}\", std::string_view(reinterpret_cast<const char*>(kFile${index}), ${size})},\n")
  math(EXPR index "${index} + 1")
endforeach()
file(WRITE "${OUTPUT}.tmp"
"// Generated from scenarios/catalogue/*.toml by scenarios/embed_catalogue.cmake.
#include \"scenarios/catalogue/catalogue.h\"

namespace faultline::scenarios {
namespace {

${arrays}
}  // namespace

const std::vector<CatalogueFile>& CatalogueFiles() {
  static const std::vector<CatalogueFile> kFiles = {
${entries}  };
  return kFiles;
}

}  // namespace faultline::scenarios
")
# Rewritten only when it changes, so an unchanged catalogue rebuilds nothing.
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
