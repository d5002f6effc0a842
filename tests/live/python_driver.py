"""The DataStax Python driver (Debian's python3-cassandra) against
`faultline live`'s CQL front: it negotiates the protocol down to v4, creates a
keyspace and a table, inserts, pages, prepares and executes, sees another
session's schema change through its event, and after `kill yugabyte` (typed
at the control socket) reconnects and prepares again.

usage: python_driver.py CQL_PORT CONTROL_SOCKET
"""
import logging
import socket
import warnings
import sys
import time

from cassandra.cluster import Cluster
from cassandra.policies import ConstantReconnectionPolicy, RoundRobinPolicy
from cassandra.query import BatchStatement, SimpleStatement

logging.basicConfig(level=logging.CRITICAL)
warnings.filterwarnings("ignore", category=DeprecationWarning)


def prompt(path, line):
    with socket.socket(socket.AF_UNIX) as control:
        control.connect(path)
        control.sendall((line + "\n").encode())
        control.settimeout(60)
        answer = b""
        while not answer.endswith(b"\n"):
            chunk = control.recv(65536)
            if not chunk:
                break
            answer += chunk
    return answer.decode()


def connect(port, **options):
    # No protocol_version: the driver opens at its newest and steps down on
    # the server's "Invalid or unsupported protocol version" error.
    return Cluster(["127.0.0.1"], port=port, load_balancing_policy=RoundRobinPolicy(),
                   reconnection_policy=ConstantReconnectionPolicy(0.5), connect_timeout=10,
                   **options)


def check(condition, what):
    if not condition:
        print("FAIL:", what)
        sys.exit(1)
    print("ok:", what)


def main():
    port, control = int(sys.argv[1]), sys.argv[2]
    cluster = connect(port)
    session = cluster.connect()
    check(cluster.protocol_version == 4, "negotiated protocol v4")
    watcher = connect(port, protocol_version=4)
    watcher.connect()

    session.execute("CREATE KEYSPACE IF NOT EXISTS shop WITH replication = "
                    "{'class': 'SimpleStrategy', 'replication_factor': 1}")
    session.set_keyspace("shop")
    session.execute("CREATE TABLE items (id int PRIMARY KEY, name text, price double, tags set<text>)")
    for i in range(7):
        session.execute("INSERT INTO items (id, name, price, tags) VALUES (%s, %s, %s, %s)",
                        (i, "item%d" % i, i * 1.25, {"t%d" % i, "all"}))
    insert = session.prepare("INSERT INTO items (id, name, price) VALUES (?, ?, ?)")
    session.execute(insert, (10, "prepared", 9.75))
    select = session.prepare("SELECT id, name, price, tags FROM items WHERE id = ?")
    row = session.execute(select, (3,)).one()
    check(row.name == "item3" and row.price == 3.75 and row.tags == {"t3", "all"},
          "a prepared select reads what was inserted: %r" % (row,))
    batch = BatchStatement()
    batch.add(insert, (20, "batched one", 2.0))
    batch.add(insert, (21, "batched two", 2.5))
    batch.add(SimpleStatement("DELETE FROM items WHERE id = %s"), (6,))
    session.execute(batch)
    batched = sorted(r.id for r in session.execute("SELECT id FROM items WHERE id IN (6, 20, 21)"))
    check(batched == [20, 21], "a BATCH of prepared and plain statements applied: %r" % batched)
    for batched_id in (20, 21):
        session.execute("DELETE FROM items WHERE id = %s", (batched_id,))
    session.execute(insert, (6, "item6", 7.5))
    pages = session.execute(SimpleStatement("SELECT id FROM items", fetch_size=3))
    first_page = list(pages.current_rows)
    ids = sorted(r.id for r in pages)
    check(len(first_page) == 3 and ids == [0, 1, 2, 3, 4, 5, 6, 10],
          "paged 3 rows at a time: %r" % ids)

    # The other session learns of the table from the SCHEMA_CHANGE event.
    def watcher_sees_items():
        keyspace = watcher.metadata.keyspaces.get("shop")
        return keyspace is not None and "items" in keyspace.tables

    deadline = time.time() + 20
    while not watcher_sees_items() and time.time() < deadline:
        time.sleep(0.2)
    check(watcher_sees_items(), "another session saw the schema change")
    watcher.shutdown()

    print(prompt(control, "kill yugabyte"), end="")
    deadline = time.time() + 60
    failures = 0
    while True:
        try:
            session.execute(insert, (11, "after the restart", 1.0))
            break
        except Exception as error:  # NoHostAvailable, OperationTimedOut while it restarts
            failures += 1
            if time.time() > deadline:
                raise
            time.sleep(0.5)
    check(failures > 0, "the kill reached the driver (%d failed tries)" % failures)
    row = session.execute(select, (11,)).one()
    check(row is not None and row.name == "after the restart",
          "reconnected and prepared again after the store restarted")
    cluster.shutdown()
    print("python driver: all checks passed")


if __name__ == "__main__":
    main()
