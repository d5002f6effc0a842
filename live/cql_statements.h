// What the CQL front must know of a statement that the store's answer does
// not say: the types of its bind markers (PREPARE's metadata, and how to
// read the values a driver binds), its values written into its text (the
// `cql` step a request is recorded as), and the schema change a DDL makes
// (its RESULT and the SCHEMA_CHANGE event).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "models/cql/catalog.h"
#include "models/cql/engine.h"
#include "models/cql/errors.h"

namespace faultline::live::cql {

using models::cql::ColumnSpec;
using models::cql::CqlError;
using models::cql::Value;

// A statement's bind markers, in order: each its column's name and type,
// with the table it is of.
struct BindMarkers {
  std::string keyspace;
  std::string table;
  std::vector<ColumnSpec> columns;
  // The partition key's markers (PREPARE's pk_index), in key order.
  std::vector<std::uint16_t> partition_key;
  // A SELECT's result columns when the catalog says them (else empty).
  std::vector<ColumnSpec> result;
};

// The markers of `text` in session keyspace `keyspace`, read against
// `catalog`; the error the store would give when the statement does not
// parse, or names a table it does not have.
std::variant<BindMarkers, CqlError> MarkersOf(std::string_view text, const std::string& keyspace,
                                              const models::cql::Catalog& catalog);

// `text` with each bind marker replaced by its value as a CQL literal;
// an error when a value cannot be one of its marker's type.
std::variant<std::string, CqlError> Inlined(std::string_view text, const BindMarkers& markers,
                                            const std::vector<std::optional<Value>>& values);

// A DDL statement's change, as the protocol's SCHEMA_CHANGE says it.
struct SchemaChange {
  std::string change;  // CREATED, UPDATED, DROPPED
  std::string target;  // KEYSPACE, TABLE, TYPE
  std::string keyspace;
  std::string name;  // Empty for a keyspace.
};
std::optional<SchemaChange> SchemaChangeOf(std::string_view text, const std::string& keyspace);

// The keyspace and table a statement reads or writes, for a RESULT's
// metadata ("" when it names none).
std::pair<std::string, std::string> TableOf(std::string_view text, const std::string& keyspace);

}  // namespace faultline::live::cql
