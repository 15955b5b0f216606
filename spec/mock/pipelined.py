"""A keep-alive HTTP/1.1 server for spec/attack16_spec.lua: it prints "PORT PID", then answers each
request it reads on a connection, in order, with "connN PATH" (its connection's number and the
request's path), 100 ms late for a path holding "slow", and for a path holding "twice" a second
answer "connN late" 100 ms after the first; a body is read by its Content-Length. With an argument N
it listens on N ports (spec/attack17_spec.lua), printing "PORT PID PORT2 ... PORTN"."""
import itertools
import os
import socket
import sys
import threading
import time


def receive(conn):
    try:
        return conn.recv(65536)
    except OSError:  # the client closed it
        return b""


def serve(conn, n):
    buf = b""
    while True:
        while b"\r\n\r\n" not in buf:
            data = receive(conn)
            if not data:
                conn.close()
                return
            buf += data
        head, buf = buf.split(b"\r\n\r\n", 1)
        lines = head.split(b"\r\n")
        path = lines[0].split(b" ")[1].decode()
        length = 0
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        while len(buf) < length:
            data = receive(conn)
            if not data:
                conn.close()
                return
            buf += data
        buf = buf[length:]
        if "slow" in path:
            time.sleep(0.1)
        answers = ["conn%d %s" % (n, path)] + (["conn%d late" % n] if "twice" in path else [])
        for i, answer in enumerate(answers):
            if i:
                time.sleep(0.1)
            try:
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s" % (len(answer), answer.encode()))
            except OSError:
                return


def accept(srv, count):
    while True:
        conn, _ = srv.accept()
        n = next(count)
        threading.Thread(target=serve, args=(conn, n), daemon=True).start()


def main():
    listeners = []
    for _ in range(int(sys.argv[1]) if len(sys.argv) > 1 else 1):
        srv = socket.socket()
        srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        srv.bind(("127.0.0.1", 0))
        srv.listen(16)
        listeners.append(srv)
    ports = [str(srv.getsockname()[1]) for srv in listeners]
    print(" ".join([ports[0], str(os.getpid())] + ports[1:]), flush=True)
    count = itertools.count(1)
    for srv in listeners[1:]:
        threading.Thread(target=accept, args=(srv, count), daemon=True).start()
    accept(listeners[0], count)


main()
