"""The in-process fakes live mode's throughput is measured against
(bench/live_throughput.sh), the same clients on both:

  live_peers.py s3 PORT    an S3 fake: PUT and GET of objects in a dict,
                           HTTP/1.1 keep-alive (Python's http.server)
  live_peers.py cql PORT   a CQL native protocol v4 fake over SQLite: what
                           the Python driver asks when it connects (system
                           tables, answered from constants), then PREPARE and
                           EXECUTE of bench.kv's INSERT and point SELECT

Each is the least a server can do to serve those clients: the baseline
for what the simulated cluster behind faultline live costs on top.
"""
import socketserver
import sqlite3
import struct
import sys
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class S3(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # Headers and body go as they are written.
    objects = {}

    def log_message(self, *args):
        pass

    def do_PUT(self):
        length = int(self.headers.get("Content-Length", 0))
        S3.objects[self.path] = self.rfile.read(length)
        self.send_response(200)
        self.send_header("ETag", '"x"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        body = S3.objects.get(self.path)
        self.send_response(200 if body is not None else 404)
        body = body or b""
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def string(text):
    data = text.encode()
    return struct.pack(">H", len(data)) + data


def rows(columns, values):
    """A RESULT Rows body: columns (name, type id), rows of bytes or None."""
    body = struct.pack(">iii", 2, 0x0001, len(columns)) + string("ks") + string("t")
    for name, type_id in columns:
        body += string(name) + struct.pack(">H", type_id)
        if type_id == 0x22:  # set<text>
            body += struct.pack(">H", 0x0D)
    body += struct.pack(">i", len(values))
    for row in values:
        for cell in row:
            body += struct.pack(">i", -1) if cell is None else struct.pack(">i", len(cell)) + cell
    return body


LOCAL = [("key", 0x0D), ("cluster_name", 0x0D), ("data_center", 0x0D), ("rack", 0x0D),
         ("release_version", 0x0D), ("partitioner", 0x0D), ("rpc_address", 0x10),
         ("broadcast_address", 0x10), ("host_id", 0x0C), ("schema_version", 0x0C),
         ("tokens", 0x22)]
LOCAL_ROW = [b"local", b"fake", b"datacenter1", b"rack1", b"3.11.0",
             b"org.apache.cassandra.dht.Murmur3Partitioner", bytes([127, 0, 0, 1]),
             bytes([127, 0, 0, 1]), uuid.UUID(int=1).bytes, uuid.UUID(int=2).bytes,
             struct.pack(">i", 1) + struct.pack(">i", 1) + b"0"]
PEERS = [("peer", 0x10), ("rpc_address", 0x10), ("data_center", 0x0D), ("rack", 0x0D),
         ("host_id", 0x0C), ("schema_version", 0x0C), ("release_version", 0x0D)]


class Cql(socketserver.BaseRequestHandler):
    disable_nagle_algorithm = True
    def setup(self):
        self.db = sqlite3.connect(":memory:")
        self.db.execute("CREATE TABLE IF NOT EXISTS kv (k INTEGER PRIMARY KEY, v TEXT)")

    def frame(self, stream, opcode, body):
        self.request.sendall(struct.pack(">BBhBi", 0x84, 0, stream, opcode, len(body)) + body)

    def read(self, n):
        data = b""
        while len(data) < n:
            chunk = self.request.recv(n - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return data

    def handle(self):
        try:
            while True:
                version, _, stream, opcode, length = struct.unpack(">BBhBi", self.read(9))
                body = self.read(length)
                if version != 4:
                    self.frame(stream, 0x00, struct.pack(">i", 0x0A) +
                               string("Invalid or unsupported protocol version"))
                    return
                self.answer(stream, opcode, body)
        except (EOFError, ConnectionError):
            return

    def answer(self, stream, opcode, body):
        if opcode == 0x05:  # OPTIONS
            self.frame(stream, 0x06, struct.pack(">H", 2) + string("CQL_VERSION") +
                       struct.pack(">H", 1) + string("3.4.4") + string("COMPRESSION") +
                       struct.pack(">H", 0))
        elif opcode in (0x01, 0x0B):  # STARTUP, REGISTER
            self.frame(stream, 0x02, b"")
        elif opcode == 0x07:  # QUERY: only the driver's own, of system tables
            (length,) = struct.unpack(">i", body[:4])
            query = body[4:4 + length].decode()
            if "peers_v2" in query:
                self.frame(stream, 0x00, struct.pack(">i", 0x2200) + string("no peers_v2"))
            elif "system.local" in query:
                self.frame(stream, 0x08, rows(LOCAL, [LOCAL_ROW]))
            elif "system.peers" in query:
                self.frame(stream, 0x08, rows(PEERS, []))
            elif query.startswith("SELECT"):
                self.frame(stream, 0x08, rows([("keyspace_name", 0x0D)], []))
            else:
                self.frame(stream, 0x08, struct.pack(">i", 1))
        elif opcode == 0x09:  # PREPARE: bench.kv's INSERT or SELECT
            (length,) = struct.unpack(">i", body[:4])
            query = body[4:4 + length].decode()
            insert = query.startswith("INSERT")
            prepared = struct.pack(">i", 4) + struct.pack(">H", 1) + (b"I" if insert else b"S")
            binds = [("k", 0x09)] + ([("v", 0x0D)] if insert else [])
            prepared += struct.pack(">iii", 0x0001, len(binds), 1) + struct.pack(">H", 0)
            prepared += string("bench") + string("kv")
            for name, type_id in binds:
                prepared += string(name) + struct.pack(">H", type_id)
            if insert:
                prepared += struct.pack(">ii", 0x0004, 0)
            else:
                prepared += struct.pack(">ii", 0x0001, 1) + string("bench") + string("kv") + \
                    string("v") + struct.pack(">H", 0x0D)
            self.frame(stream, 0x08, prepared)
        elif opcode == 0x0A:  # EXECUTE
            (id_length,) = struct.unpack(">H", body[:2])
            kind = body[2:2 + id_length]
            at = 2 + id_length + 3  # consistency, flags
            (count,) = struct.unpack(">H", body[at:at + 2])
            at += 2
            values = []
            for _ in range(count):
                (n,) = struct.unpack(">i", body[at:at + 4])
                values.append(body[at + 4:at + 4 + n])
                at += 4 + n
            key = struct.unpack(">i", values[0])[0]
            if kind == b"I":
                self.db.execute("INSERT OR REPLACE INTO kv VALUES (?, ?)", (key, values[1].decode()))
                self.frame(stream, 0x08, struct.pack(">i", 1))
            else:
                found = self.db.execute("SELECT v FROM kv WHERE k = ?", (key,)).fetchall()
                self.frame(stream, 0x08, rows([("v", 0x0D)], [[r[0].encode()] for r in found]))
        else:
            self.frame(stream, 0x00, struct.pack(">i", 0x0A) + string("unsupported"))


class ThreadingTcp(socketserver.ThreadingMixIn, socketserver.TCPServer):
    allow_reuse_address = True
    daemon_threads = True


if __name__ == "__main__":
    kind, port = sys.argv[1], int(sys.argv[2])
    if kind == "s3":
        ThreadingHTTPServer(("127.0.0.1", port), S3).serve_forever()
    else:
        # One database for every connection: the driver's pool opens several.
        shared = sqlite3.connect(":memory:", check_same_thread=False)
        shared.execute("CREATE TABLE kv (k INTEGER PRIMARY KEY, v TEXT)")
        lock = threading.Lock()

        class Shared(Cql):
            def setup(self):
                self.db = shared

        ThreadingTcp(("127.0.0.1", port), Shared).serve_forever()
