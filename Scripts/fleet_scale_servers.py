"""The servers Scripts/fleet-scale.py starts: PostgreSQL clusters (the primary, the relays)
and PgBouncer, on loopback, in a temporary directory, run as the postgres account under root."""

import os
import pwd
import shutil
import signal
import socket
import subprocess
import time


PG_BIN = sorted(d for d in os.listdir("/usr/lib/postgresql") if d.isdigit())
PG_BIN = f"/usr/lib/postgresql/{PG_BIN[-1]}/bin" if PG_BIN else None
PGBOUNCER = shutil.which("pgbouncer") or "/usr/sbin/pgbouncer"
TICKS = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def as_server(argv, **kw):
    """Runs argv as the postgres account when this is root (PostgreSQL refuses root)."""
    if os.geteuid() == 0:
        argv = ["runuser", "-u", "postgres", "--"] + argv
    return subprocess.run(argv, check=True, capture_output=True, text=True, **kw)


class Cluster:
    """One PostgreSQL server in its own directory."""

    def __init__(self, root, name, settings):
        self.dir = os.path.join(root, name)
        self.port = free_port()
        os.makedirs(self.dir)
        self.chown(self.dir)
        as_server([f"{PG_BIN}/initdb", "-D", self.dir + "/data", "-A", "trust", "-U", "postgres", "--no-sync"])
        self.options = " ".join(f"-c {k}={v}" for k, v in settings.items())
        self.start()

    @staticmethod
    def chown(path):
        if os.geteuid() == 0:
            account = pwd.getpwnam("postgres")
            os.chown(path, account.pw_uid, account.pw_gid)

    def start(self):
        as_server([f"{PG_BIN}/pg_ctl", "start", "-w", "-t", "60", "-D", self.dir + "/data", "-l", self.dir + "/server.log",
                   "-o", f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 {self.options}"])

    def stop(self, mode="fast"):
        as_server([f"{PG_BIN}/pg_ctl", "stop", "-w", "-t", "60", "-m", mode, "-D", self.dir + "/data"])

    def psql(self, sql, database="postgres"):
        out = subprocess.run(["psql", "-X", "-A", "-t", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", str(self.port),
                              "-U", "postgres", "-d", database, "-c", sql], check=True, capture_output=True, text=True)
        return out.stdout.strip()

    def url(self, user="postgres", database="postgres", password=None):
        secret = f":{password}" if password else ""
        return f"postgres://{user}{secret}@127.0.0.1:{self.port}/{database}"

    def postmaster_pid(self):
        with open(self.dir + "/data/postmaster.pid") as f:
            return int(f.readline())

    def cpu_seconds(self):
        """The postmaster's and its live children's user + system time, and the reaped children's."""
        root = self.postmaster_pid()
        total = 0
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            # fields[0] is the state (field 3); ppid is field 4, utime 14, stime 15, cutime 16, cstime 17.
            ppid = int(fields[1])
            if int(pid) == root:
                total += sum(int(x) for x in fields[11:15])
            elif ppid == root:
                total += int(fields[11]) + int(fields[12])
        return total / TICKS


class Bouncer:
    def __init__(self, root, primary, database, user, password, pool):
        self.dir = os.path.join(root, "bouncer")
        os.makedirs(self.dir)
        Cluster.chown(self.dir)
        self.port = free_port()
        ini = f"""[databases]
{database} = host=127.0.0.1 port={primary.port} dbname={database}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {self.port}
unix_socket_dir = {self.dir}
auth_type = md5
auth_file = {self.dir}/users.txt
pool_mode = transaction
default_pool_size = {pool}
max_client_conn = 20000
server_login_retry = 1
ignore_startup_parameters = extra_float_digits,options,application_name
logfile = {self.dir}/pgbouncer.log
pidfile = {self.dir}/pgbouncer.pid
"""
        for name, text in (("pgbouncer.ini", ini), ("users.txt", f'"{user}" "{password}"\n')):
            with open(os.path.join(self.dir, name), "w") as f:
                f.write(text)
            Cluster.chown(os.path.join(self.dir, name))
        # One descriptor per client: the account's login limits (1,024 here) would refuse the
        # thousandth machine ("accept() failed: Too many open files"), so it gets the hard limit.
        as_server(["sh", "-c", f'ulimit -n "$(ulimit -Hn)" && exec {PGBOUNCER} -d {self.dir}/pgbouncer.ini'])
        deadline = time.time() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                if time.time() > deadline:
                    raise RuntimeError("PgBouncer did not start: " + open(self.dir + "/pgbouncer.log").read()[-2000:])
                time.sleep(0.1)

    def stop(self):
        try:
            with open(self.dir + "/pgbouncer.pid") as f:
                os.kill(int(f.read().strip()), signal.SIGINT)
        except (OSError, ValueError):
            pass
