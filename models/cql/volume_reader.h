// A read-only SQLite VFS over a database's bytes in memory (internal to
// models/cql/; not installed), read where they are each time SQLite asks
// (StoreSnapshot's): a connection kept open on it keeps its parsed schema
// while the bytes change under it between reads. No simulated I/O, no
// fault point, no trace event; no real file, clock or randomness.
#pragma once

#include <sqlite3.h>

#include <string>

namespace faultline::models::cql {

// The name to open `bytes` by (sqlite3_open_v2 with VolumeReaderVfs(),
// read-only): `*bytes` is read at every read, so the owner repoints it
// when the file it shows is another object, and keeps it alive while the
// connection reads.
std::string VolumeReaderPath(const std::string* const* bytes);

// The VFS's name; registered once, on first use, with no state of its own.
const char* VolumeReaderVfs();

}  // namespace faultline::models::cql
