#include "app/build_id.h"

#include <elf.h>
#include <link.h>

#include <cstring>

#include <fmt/format.h>

namespace faultline::app {
namespace {

// The build id note in the main program's PT_NOTE segments, as hex.
int FromMainProgram(dl_phdr_info* info, std::size_t, void* out) {
  auto& hex = *static_cast<std::string*>(out);
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type != PT_NOTE) continue;
    const auto* at = reinterpret_cast<const unsigned char*>(info->dlpi_addr + segment.p_vaddr);
    const unsigned char* end = at + segment.p_memsz;
    // Notes are 4-aligned: a header, the name, the descriptor (elf(5)).
    constexpr auto kAlign = [](std::size_t n) { return (n + 3) & ~std::size_t{3}; };
    while (at + sizeof(ElfW(Nhdr)) <= end) {
      ElfW(Nhdr) note;
      std::memcpy(&note, at, sizeof note);
      const unsigned char* name = at + sizeof note;
      const unsigned char* desc = name + kAlign(note.n_namesz);
      if (desc + note.n_descsz > end) break;
      if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 &&
          std::memcmp(name, "GNU", 4) == 0) {
        for (std::size_t b = 0; b < note.n_descsz; ++b) hex += fmt::format("{:02x}", desc[b]);
        return 1;
      }
      at = desc + kAlign(note.n_descsz);
    }
  }
  return 1;  // The main program comes first: the libraries' ids are not ours.
}

}  // namespace

const std::string& BuildId() {
  static const std::string id = [] {
    std::string hex;
    dl_iterate_phdr(FromMainProgram, &hex);
    return hex.empty() ? std::string("unknown") : hex;
  }();
  return id;
}

}  // namespace faultline::app
