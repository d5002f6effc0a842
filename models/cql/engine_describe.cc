// DESCRIBE: the catalog as CREATE statements, in the shape ycqlsh prints.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>
#include <vector>

#include "models/cql/engine.h"
#include "sim/assert.h"

namespace faultline::models::cql {
namespace {

std::string OptionValue(const Options& options, std::string_view name, std::string fallback) {
  for (const auto& [key, value] : options) {
    if (key == name) return value;
  }
  return fallback;
}

// ycqlsh builds this from system_schema.keyspaces, which shows the store's
// own placement (one replica) whatever CREATE KEYSPACE asked for: YCQL keeps
// no replication settings. ycqlsh puts two spaces before AND here.
std::string DescribeKeyspace(const KeyspaceInfo& keyspace) {
  return fmt::format(
      "CREATE KEYSPACE {} WITH replication = {{'class': 'SimpleStrategy', "
      "'replication_factor': '1'}}  AND durable_writes = true;\n",
      QuotedName(keyspace.name));
}

std::string DescribeTable(const TableInfo& table);

// A table with its indexes after it, as the drivers' metadata exports them
// (IndexMetadata.as_cql_query); YCQL's shows each index's transactions.
std::string TableWithIndexes(const TableInfo& table, Dialect dialect) {
  std::string text = DescribeTable(table);
  for (const IndexInfo& index : table.indexes) {
    std::string made = IndexDefinitionText(table, index);
    const bool says_transactions =
        std::any_of(index.definition.options.begin(), index.definition.options.end(),
                    [](const auto& option) { return option.first == "transactions"; });
    if (dialect == Dialect::kYcql && !says_transactions) {
      made += index.definition.options.empty() && index.definition.clustering_order.empty()
                  ? " WITH transactions = {'enabled': 'true'}"
                  : " AND transactions = {'enabled': 'true'}";
    }
    text += "\n" + made + ";\n";
  }
  return text;
}

// Whether `type` names a user type of `types` not in `done`.
bool NamesPending(const TypeName& type, const UserTypes& types, const std::set<std::string>& done) {
  if (type.parameters.empty()) return types.contains(type.base) && !done.contains(type.base);
  return std::any_of(
      type.parameters.begin(), type.parameters.end(),
      [&](const TypeName& parameter) { return NamesPending(parameter, types, done); });
}

// The keyspace's types, each after the types it names (so that the text
// runs again), by name among those ready: ALTER TYPE can give a type a
// field of one made after it.
std::vector<const UserType*> TypesInDependencyOrder(const UserTypes& types) {
  std::vector<const UserType*> ordered;
  std::set<std::string> done;
  for (std::size_t pass = 0; pass <= types.size() && ordered.size() < types.size(); ++pass) {
    for (const auto& [name, type] : types) {
      if (done.contains(name)) continue;
      const bool ready =
          std::none_of(type.field_types.begin(), type.field_types.end(),
                       [&](const TypeName& field) { return NamesPending(field, types, done); });
      if (!ready) continue;
      ordered.push_back(&type);
      done.insert(name);
    }
  }
  // Types load only when each resolves (catalog_definitions.cc): no loop.
  FL_ASSERT_MSG(ordered.size() == types.size(), "{} of {} types ordered", ordered.size(),
                types.size());
  return ordered;
}

// The keyspace, its types (before the tables that use them), its tables.
std::string KeyspaceWithTables(const KeyspaceInfo& keyspace, Dialect dialect) {
  std::string text = DescribeKeyspace(keyspace);
  for (const UserType* type : TypesInDependencyOrder(keyspace.types)) {
    text += "\n" + TypeDefinitionText(keyspace.name, *type, /*laid_out=*/true) + ";\n";
  }
  for (const auto& [table_name, table] : keyspace.tables) {
    text += "\n" + TableWithIndexes(table, dialect);
  }
  return text;
}

std::string PrimaryKey(const TableInfo& table) {
  std::vector<std::string> partition;
  std::vector<std::string> clustering;
  for (const ColumnInfo& column : table.columns) {
    if (column.role == ColumnInfo::Role::kPartitionKey)
      partition.push_back(QuotedName(column.name));
    if (column.role == ColumnInfo::Role::kClustering) clustering.push_back(QuotedName(column.name));
  }
  std::string key =
      partition.size() == 1 ? partition[0] : fmt::format("({})", fmt::join(partition, ", "));
  for (const std::string& column : clustering) key += ", " + column;
  return key;
}

std::string DescribeTable(const TableInfo& table) {
  std::string text =
      fmt::format("CREATE TABLE {}.{} (\n", QuotedName(table.keyspace), QuotedName(table.name));
  const bool simple_key = table.KeyColumns() == 1;
  for (const ColumnInfo& column : table.columns) {
    text += fmt::format("    {} {}{}{},\n", QuotedName(column.name), column.type.ToString(),
                        column.is_static() ? " static" : "",
                        simple_key && column.is_key() ? " PRIMARY KEY" : "");
  }
  if (simple_key) {
    text.erase(text.size() - 2, 1);  // The last column takes no comma.
  } else {
    text += fmt::format("    PRIMARY KEY ({})\n", PrimaryKey(table));
  }
  std::vector<std::string> options;
  std::string order;
  for (const ColumnInfo& column : table.columns) {
    if (column.role != ColumnInfo::Role::kClustering) continue;
    order += fmt::format("{}{} {}", order.empty() ? "" : ", ", QuotedName(column.name),
                         column.descending ? "DESC" : "ASC");
  }
  if (!order.empty()) options.push_back(fmt::format("CLUSTERING ORDER BY ({})", order));
  options.push_back("default_time_to_live = " +
                    OptionValue(table.options, "default_time_to_live", "0"));
  for (const auto& [name, value] : table.options) {
    if (name != "default_time_to_live" && name != "transactions") {
      options.push_back(fmt::format("{} = {}", name, value));
    }
  }
  options.push_back("transactions = " +
                    OptionValue(table.options, "transactions", "{'enabled': 'false'}"));
  return text + fmt::format(") WITH {};\n", fmt::join(options, "\n    AND "));
}

std::string TableNames(const KeyspaceInfo& keyspace) {
  std::vector<std::string> names;
  for (const auto& [name, table] : keyspace.tables) names.push_back(QuotedName(name));
  const std::string heading = "Keyspace " + keyspace.name;
  return fmt::format("{}\n{}\n{}\n", heading, std::string(heading.size(), '-'),
                     fmt::join(names, "  "));
}

QueryResult Text(std::string text) {
  QueryResult result;
  result.kind = QueryResult::Kind::kText;
  result.text = std::move(text);
  return result;
}

}  // namespace

Outcome Engine::Run(Session& session, const Describe& statement) {
  switch (statement.what) {
    case Describe::What::kKeyspaces: {
      std::vector<std::string> names;
      for (const auto& [name, keyspace] : catalog_.keyspaces()) names.push_back(QuotedName(name));
      return Text(fmt::format("{}\n", fmt::join(names, "  ")));
    }
    case Describe::What::kCluster:
      // cqlsh's DESCRIBE CLUSTER, with system.local's name and partitioner.
      return Text("\nCluster: local cluster\nPartitioner: Murmur3Partitioner\n");
    case Describe::What::kTables: {
      // With a keyspace in use, ycqlsh lists just its table names.
      if (const KeyspaceInfo* current = catalog_.FindKeyspace(session.keyspace)) {
        std::vector<std::string> names;
        for (const auto& [name, table] : current->tables) names.push_back(QuotedName(name));
        return Text(fmt::format("{}\n", fmt::join(names, "  ")));
      }
      std::vector<std::string> sections;
      for (const auto& [name, keyspace] : catalog_.keyspaces()) {
        sections.push_back(TableNames(keyspace));
      }
      return Text(fmt::format("{}", fmt::join(sections, "\n")));
    }
    case Describe::What::kSchema: {
      std::vector<std::string> sections;
      for (const auto& [name, keyspace] : catalog_.keyspaces()) {
        if (!keyspace.system) sections.push_back(KeyspaceWithTables(keyspace, dialect_));
      }
      return Text(fmt::format("{}", fmt::join(sections, "\n")));
    }
    case Describe::What::kKeyspace: {
      const std::string& name = statement.keyspace.empty() ? session.keyspace : statement.keyspace;
      if (name.empty()) return NoKeyspace();
      const KeyspaceInfo* keyspace = catalog_.FindKeyspace(name);
      if (keyspace == nullptr) return KeyspaceNotFound();
      return Text(KeyspaceWithTables(*keyspace, dialect_));
    }
    case Describe::What::kName:
      if (statement.table.keyspace.empty()) {
        if (const KeyspaceInfo* keyspace = catalog_.FindKeyspace(statement.table.name)) {
          return Text(KeyspaceWithTables(*keyspace, dialect_));
        }
      }
      break;
    case Describe::What::kTable:
      break;
  }
  std::variant<const TableInfo*, CqlError> resolved = ResolveTable(session, statement.table, false);
  if (auto* error = std::get_if<CqlError>(&resolved)) return std::move(*error);
  return Text(TableWithIndexes(*std::get<const TableInfo*>(resolved), dialect_));
}

}  // namespace faultline::models::cql
