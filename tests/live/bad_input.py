"""live.bad_input_closes_one_connection: bad input on `faultline live`'s
sockets closes that connection with the protocol's error and leaves the
cluster and the other clients unharmed; nothing listens beyond loopback.

usage: bad_input.py FAULTLINE WORK_DIR
"""
import os
import re
import socket
import struct
import subprocess
import sys
import time

failures = []


def check(condition, what):
    print(("ok: " if condition else "FAIL: ") + what)
    if not condition:
        failures.append(what)


def read_all(sock, limit=1 << 20, timeout=10):
    """Everything the server sends until it closes (or `timeout`)."""
    sock.settimeout(timeout)
    data = b""
    try:
        while len(data) < limit:
            chunk = sock.recv(65536)
            if not chunk:
                return data, True
            data += chunk
    except socket.timeout:
        return data, False
    except ConnectionResetError:
        return data, True
    return data, False


def cql_frame(opcode, body, version=4, stream=1):
    return struct.pack(">BBhBi", version, 0, stream, opcode, len(body)) + body


def cql_error(data):
    """(code, message) of the ERROR frame `data` starts with, or None."""
    if len(data) < 9 or data[4] != 0x00:
        return None
    code = struct.unpack(">i", data[9:13])[0]
    length = struct.unpack(">H", data[13:15])[0]
    return code, data[15:15 + length].decode(errors="replace")


def cql_works(port):
    """A whole handshake and a query, on a fresh connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        startup = struct.pack(">H", 1) + struct.pack(">H", 11) + b"CQL_VERSION" + \
            struct.pack(">H", 5) + b"3.0.0"
        sock.sendall(cql_frame(0x01, startup))
        ready = sock.recv(9)
        if len(ready) < 9 or ready[4] != 0x02:
            return False
        query = b"SELECT key FROM system.local"
        body = struct.pack(">i", len(query)) + query + struct.pack(">HB", 1, 0)
        sock.sendall(cql_frame(0x07, body, stream=2))
        header = sock.recv(9)
        return len(header) == 9 and header[4] == 0x08


def s3_works(port):
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(b"PUT /b/ok HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nok")
        answer = sock.recv(4096)
        return answer.startswith(b"HTTP/1.1 200")


def main():
    faultline, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    # --control naming a file that is not a socket: refused, the file kept.
    precious = os.path.join(work, "precious.toml")
    with open(precious, "w") as f:
        f.write("keep me\n")
    refused = subprocess.run([faultline, "live", "--s3-port", "0", "--cql-port", "0", "--no-prompt",
                              "--control", precious], capture_output=True, text=True, timeout=60)
    check(refused.returncode == 2 and open(precious).read() == "keep me\n",
          "--control on a regular file: exit 2, the file kept (%s)" % refused.stderr.strip()[:100])
    log = open(os.path.join(work, "live.log"), "w+")
    live = subprocess.Popen([faultline, "live", "--s3-port", "0", "--cql-port", "0",
                             "--no-prompt"], stderr=log, stdin=subprocess.DEVNULL)
    try:
        ports = None
        for _ in range(200):
            log.seek(0)
            found = re.search(r"S3 on http://127.0.0.1:(\d+), CQL on 127.0.0.1:(\d+)", log.read())
            if found:
                ports = int(found.group(1)), int(found.group(2))
                break
            time.sleep(0.05)
        check(ports is not None, "live serves on 127.0.0.1")
        if ports is None:
            return 1
        s3, cql = ports

        # Garbage where a frame should be: a protocol error, then the door.
        with socket.create_connection(("127.0.0.1", cql)) as sock:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            data, closed = read_all(sock)
            error = cql_error(data)
            check(error is not None and error[0] == 0x000A and closed,
                  "CQL garbage: protocol error %r, connection closed" % (error,))
        # A frame that says it is 1 GB long.
        with socket.create_connection(("127.0.0.1", cql)) as sock:
            sock.sendall(struct.pack(">BBhBi", 4, 0, 7, 0x07, 1 << 30) + b"x" * 100)
            data, closed = read_all(sock)
            error = cql_error(data)
            check(error is not None and error[0] == 0x000A and "over the limit" in error[1] and closed,
                  "CQL 1 GB length prefix: %r, connection closed" % (error,))
        # A body that is not what its opcode says.
        with socket.create_connection(("127.0.0.1", cql)) as sock:
            sock.sendall(cql_frame(0x07, b"\xff\xff"))
            data, closed = read_all(sock)
            check(cql_error(data) is not None and closed, "CQL malformed QUERY body: error, closed")

        # Request smuggling: a Content-Length and a chunked body at once.
        with socket.create_connection(("127.0.0.1", s3)) as sock:
            sock.sendall(b"POST /b/k HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n"
                         b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
                         b"GET /b/secret HTTP/1.1\r\nHost: x\r\n\r\n")
            data, closed = read_all(sock)
            check(data.startswith(b"HTTP/1.1 400") and data.count(b"HTTP/1.1") == 1 and closed,
                  "HTTP smuggling: one 400, the smuggled request never served")
        # A body that says it is 1 GB long.
        with socket.create_connection(("127.0.0.1", s3)) as sock:
            sock.sendall(b"PUT /b/huge HTTP/1.1\r\nHost: x\r\nContent-Length: 1073741824\r\n\r\n")
            data, closed = read_all(sock)
            check(data.startswith(b"HTTP/1.1 413") and closed, "HTTP 1 GB body: 413, closed")
        # Garbage where a request line should be.
        with socket.create_connection(("127.0.0.1", s3)) as sock:
            sock.sendall(b"\x00\x01\x02 not http\r\n\r\n")
            data, closed = read_all(sock)
            check(data.startswith(b"HTTP/1.1 400") and closed, "HTTP garbage: 400, closed")

        # Half-open connections (a header begun, then silence) and a thousand
        # idle ones hold nothing up.
        held = []
        half = socket.create_connection(("127.0.0.1", cql))
        half.sendall(b"\x04\x00\x00")
        held.append(half)
        half = socket.create_connection(("127.0.0.1", s3))
        half.sendall(b"PUT /b/k HTTP/1.1\r\nContent-Le")
        held.append(half)
        for i in range(1000):
            held.append(socket.create_connection(("127.0.0.1", s3 if i % 2 else cql)))
        check(s3_works(s3), "with 1,000 idle and 2 half-open connections, S3 answers")
        check(cql_works(cql), "with 1,000 idle and 2 half-open connections, CQL answers")
        for sock in held:
            sock.close()

        # Nothing listens beyond loopback.
        others = subprocess.run(["hostname", "-I"], capture_output=True, text=True).stdout.split()
        for address in [a for a in others if ":" not in a][:1]:
            try:
                socket.create_connection((address, s3), timeout=2).close()
                check(False, "S3 is reachable on %s" % address)
            except OSError:
                check(True, "S3 is not reachable on %s (loopback only)" % address)
        check(live.poll() is None, "live is still running")
    finally:
        live.terminate()
        try:
            live.wait(timeout=30)
        except subprocess.TimeoutExpired:
            live.kill()
            failures.append("live did not stop on SIGTERM")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
