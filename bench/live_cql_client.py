"""The Python driver's point queries per second against a CQL server
(bench/live_throughput.sh): N rows inserted by a prepared INSERT, then M
prepared point SELECTs, one after another. Prints "inserts/s selects/s".

usage: live_cql_client.py PORT ROWS SELECTS
"""
import logging
import sys
import time
import warnings

from cassandra.cluster import Cluster
from cassandra.policies import RoundRobinPolicy

logging.basicConfig(level=logging.CRITICAL)
warnings.filterwarnings("ignore", category=DeprecationWarning)

port, rows, selects = (int(a) for a in sys.argv[1:4])
cluster = Cluster(["127.0.0.1"], port=port, protocol_version=4,
                  load_balancing_policy=RoundRobinPolicy(), connect_timeout=20)
session = cluster.connect()
session.default_timeout = 60
session.execute("CREATE KEYSPACE IF NOT EXISTS bench WITH replication = "
                "{'class': 'SimpleStrategy', 'replication_factor': 1}")
session.execute("CREATE TABLE IF NOT EXISTS bench.kv (k int PRIMARY KEY, v text)")
insert = session.prepare("INSERT INTO bench.kv (k, v) VALUES (?, ?)")
select = session.prepare("SELECT v FROM bench.kv WHERE k = ?")
start = time.perf_counter()
for k in range(rows):
    session.execute(insert, (k, "value %d" % k))
inserted = time.perf_counter()
for i in range(selects):
    row = session.execute(select, ((i * 7919) % rows,)).one()
    assert row is not None
done = time.perf_counter()
print("%.0f %.0f" % (rows / (inserted - start), selects / (done - inserted)))
cluster.shutdown()
