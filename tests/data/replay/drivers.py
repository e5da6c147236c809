#!/usr/bin/env python3
"""Drivers' traffic in the wire protocol, for make-fixtures-18.sh: what JDBC, node-postgres,
psycopg 3 and a pooler send and libpq cannot (an Execute with a row count). Usage:
drivers.py SOCKET_PATH (trust authentication, user and database postgres)."""
import socket
import struct
import sys


def msg(kind, body):
    return kind + struct.pack('!i', len(body) + 4) + body


def cstr(s):
    return s.encode() + b'\0'


class Conn:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.connect(path)
        body = struct.pack('!i', 196608)
        for k, v in (('user', 'postgres'), ('database', 'postgres'), ('application_name', 'drivers')):
            body += cstr(k) + cstr(v)
        body += b'\0'
        self.s.sendall(struct.pack('!i', len(body) + 4) + body)
        self.until(b'Z')

    def read(self, n):
        b = b''
        while len(b) < n:
            more = self.s.recv(n - len(b))
            if not more:
                raise EOFError
            b += more
        return b

    def until(self, kind):  # read messages up to one of kind
        while True:
            head = self.read(5)
            self.read(struct.unpack('!i', head[1:])[0] - 4)
            if head[:1] == kind:
                return

    def parse(self, name, sql):
        self.s.sendall(msg(b'P', cstr(name) + cstr(sql) + struct.pack('!h', 0)))

    def bind(self, portal, name, params):
        b = cstr(portal) + cstr(name) + struct.pack('!hh', 0, len(params))
        for p in params:
            b += struct.pack('!i', -1) if p is None else struct.pack('!i', len(p.encode())) + p.encode()
        self.s.sendall(msg(b'B', b + struct.pack('!h', 0)))

    def execute(self, portal, rows=0):
        self.s.sendall(msg(b'E', cstr(portal) + struct.pack('!i', rows)))

    def suspended(self):  # flush, and read up to PortalSuspended
        self.s.sendall(msg(b'H', b''))
        self.until(b's')

    def sync(self):
        self.s.sendall(msg(b'S', b''))
        self.until(b'Z')

    def query(self, sql):
        self.s.sendall(msg(b'Q', cstr(sql)))
        self.until(b'Z')

    def fetch_in_parts(self, portal, name, sql, params, rows, parts):  # as JDBC's fetchSize
        self.parse(name, sql)
        self.bind(portal, name, params)
        for _ in range(parts - 1):
            self.execute(portal, rows)
            self.suspended()
        self.execute(portal, rows)
        self.sync()

    def run(self, portal, name, sql, params):  # one statement: Parse, Bind, Execute, Sync
        if sql is not None:
            self.parse(name, sql)
        self.bind(portal, name, params)
        self.execute(portal)
        self.sync()


c = Conn(sys.argv[1])
c.query("DROP TABLE IF EXISTS drv_t; CREATE TABLE drv_t (a int, b text); "
        "INSERT INTO drv_t SELECT g, 'row ' || g FROM generate_series(1, 10) g")
# A named statement executed again and again (JDBC past prepareThreshold, sysbench).
c.run('', 'S_1', 'SELECT b FROM drv_t WHERE a = $1', ['3'])
c.run('', 'S_1', None, ['4'])
# A portal fetched three rows at a time (JDBC's fetchSize): its first execute, two fetches.
c.query('BEGIN')
c.fetch_in_parts('C_3', 'S_2', 'SELECT a, b FROM drv_t WHERE a > $1 ORDER BY a', ['2'], 3, 3)
c.query('COMMIT')
# The unnamed statement through a named portal, fetched in two parts.
c.query('BEGIN')
c.fetch_in_parts('C_4', '', 'SELECT a FROM drv_t WHERE a <> $1', ['1'], 4, 2)
c.query('COMMIT')
# The name deallocated and prepared again with another text; DISCARD PLANS keeps it.
c.query('DEALLOCATE "S_1"')
c.run('', 'S_1', 'SELECT a FROM drv_t WHERE b = $1', ['row 5'])
c.query('DISCARD PLANS')
c.run('', 'S_1', None, ['row 6'])
# A pooler's reset, and the name once more with a third text (a quote and a NULL).
c.query('DISCARD ALL')
c.run('', 'S_1', 'SELECT count(*) FROM drv_t WHERE a < $1 AND b IS DISTINCT FROM $2', ['7', "it's"])
c.run('', '', 'SELECT $1::text IS NULL, length($2::text)', [None, 'short'])
# A value longer than log_parameter_max_length (12): the log cuts it ('...').
c.run('', '', 'SELECT length($1::text)', ['x' * 40])
c.query('DEALLOCATE ALL')
c.s.sendall(msg(b'X', b''))
c.s.close()
