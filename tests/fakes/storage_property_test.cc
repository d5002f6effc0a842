// Random sequences of writes, truncates, syncs and power losses on a file,
// checked against a simple model of what must survive.
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "fakes/volume.h"

namespace faultline::fakes {
namespace {

struct FileOp {
  enum class Kind : unsigned char { kWrite, kTruncate, kSync, kPowerLoss };
  Kind kind = Kind::kWrite;
  std::uint64_t offset = 0;                            // kWrite: where; kTruncate: the new size.
  std::string data;                                    // kWrite.
  CrashModel::Mode mode = CrashModel::Mode::kDropAll;  // kPowerLoss.
};

void showValue(const FileOp& op, std::ostream& out) {
  static const char* kKinds[] = {"write", "truncate", "sync", "power-loss"};
  out << kKinds[static_cast<int>(op.kind)] << '(' << op.offset;
  if (op.kind == FileOp::Kind::kWrite) out << ", \"" << op.data << '"';
  if (op.kind == FileOp::Kind::kPowerLoss) out << ", mode " << static_cast<int>(op.mode);
  out << ')';
}

rc::Gen<FileOp> GenFileOp() {
  return rc::gen::apply(
      [](FileOp::Kind kind, std::uint64_t offset, std::string data, int mode) {
        return FileOp{kind, offset, std::move(data), static_cast<CrashModel::Mode>(mode)};
      },
      rc::gen::weightedElement<FileOp::Kind>({{6, FileOp::Kind::kWrite},
                                              {1, FileOp::Kind::kTruncate},
                                              {2, FileOp::Kind::kSync},
                                              {2, FileOp::Kind::kPowerLoss}}),
      rc::gen::inRange<std::uint64_t>(0, 64),
      rc::gen::container<std::string>(rc::gen::inRange<char>('a', 'z' + 1)),
      rc::gen::inRange(0, 3));
}

// What the model knows: the durable image, and the writes since.
struct Model {
  std::string durable;
  std::vector<FileOp> pending;

  static void Apply(std::string& image, const FileOp& op) {
    if (op.kind == FileOp::Kind::kTruncate) {
      image.resize(op.offset);
      return;
    }
    if (image.size() < op.offset + op.data.size()) image.resize(op.offset + op.data.size(), '\0');
    image.replace(op.offset, op.data.size(), op.data);
  }
  std::string Current() const {
    std::string image = durable;
    for (const FileOp& op : pending) Apply(image, op);
    return image;
  }
  // Every image an in-order prefix of the pending writes could leave.
  std::set<std::string> Prefixes() const {
    std::set<std::string> images{durable};
    std::string image = durable;
    for (const FileOp& op : pending) {
      Apply(image, op);
      images.insert(image);
    }
    return images;
  }
  // Whether every byte of `image` could come from a torn mix: the durable
  // byte, a byte some pending write put there, or a gap's zero.
  bool CouldBeTorn(const std::string& image) const {
    for (std::size_t i = 0; i < image.size(); ++i) {
      bool possible = image[i] == '\0' || (i < durable.size() && image[i] == durable[i]);
      for (const FileOp& op : pending) {
        if (op.kind == FileOp::Kind::kWrite && i >= op.offset && i < op.offset + op.data.size()) {
          possible |= image[i] == op.data[i - op.offset];
        }
      }
      if (!possible) return false;
    }
    return true;
  }
};

RC_GTEST_PROP(StoragePropertyTest, PowerLossKeepsWhatTheModelSaysMustSurvive, ()) {
  const auto ops = *rc::gen::container<std::vector<FileOp>>(GenFileOp());
  const auto seed = *rc::gen::arbitrary<std::uint64_t>();
  RC_LOG() << "crash seed " << seed << "\n";
  sim::Rng random(seed);
  SimFile file;
  Model model;
  for (const FileOp& op : ops) {
    switch (op.kind) {
      case FileOp::Kind::kWrite:
        file.Write(op.offset, op.data);
        model.pending.push_back(op);
        break;
      case FileOp::Kind::kTruncate:
        file.Truncate(op.offset);
        model.pending.push_back(op);
        break;
      case FileOp::Kind::kSync:
        file.Sync();
        model.durable = model.Current();
        model.pending.clear();
        RC_ASSERT(file.durable_contents() == model.durable);
        break;
      case FileOp::Kind::kPowerLoss: {
        file.LoseUnsynced(random, CrashModel{op.mode, /*block_size=*/4, 0.5});
        const std::string& after = file.contents();
        switch (op.mode) {
          case CrashModel::Mode::kDropAll:
            RC_ASSERT(after == model.durable);
            break;
          case CrashModel::Mode::kKeepPrefix:
            RC_ASSERT(model.Prefixes().contains(after));
            break;
          case CrashModel::Mode::kTornBlocks:
            RC_ASSERT(model.CouldBeTorn(after));
            break;
        }
        // What survived is durable now: a second loss keeps it.
        RC_ASSERT(file.durable_contents() == after);
        model.durable = after;
        model.pending.clear();
        break;
      }
    }
    // Reads always see every write.
    RC_ASSERT(file.contents() == model.Current());
  }
}

}  // namespace
}  // namespace faultline::fakes
