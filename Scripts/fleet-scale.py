#!/usr/bin/env python3
"""The fleet at thousands of machines, simulated on one host.

    swift build --product FleetSimulator --product prefs
    python3 Scripts/fleet-scale.py --machines 1000                 # the relayed topology
    python3 Scripts/fleet-scale.py --machines 80 --topology single  # today's single server
    python3 Scripts/fleet-scale.py --machines 200 --check           # CI: fails when a target is missed

What runs, all on loopback in a temporary directory, stopped and removed on exit:

- PostgreSQL's primary (wal_level = logical, its default max_connections of 100), and, relayed,
  RELAYS subscriber databases ("relays", each its own cluster) set up by `prefs relay`, and
  PgBouncer in transaction mode in front of the primary (pool of 20, server_login_retry 1 s).
- The fleet's role `fleet` (not a superuser), `CONNECTION LIMIT 60` on the primary (relayed; single: one slot per machine and 5).
- MACHINES simulated machines: real `DefaultsPostgresSync` instances (FleetSimulator), each with
  its own SQLite file, its own client and its own relay connection, 250 to a process. Relayed,
  each pushes and fetches through PgBouncer and listens on a relay; single, each holds one
  connection to the primary and listens there (as before this topology existed).

What it measures (CLOCK_REALTIME, one clock for every process):

- in step: from the start of the simulators until every machine says it is in step.
- fan-out: WRITES writes, one at a time, each by a random machine; for each, the time until
  99 % of the other machines' observers heard it, and the median and largest delay.
- the primary's CPU per write: user + system time of the postmaster and every backend (the
  reaped ones' through the postmaster's children times) over the writes, divided by their
  number; also the same over as long without writes (the fleet's background: the relays' safety
  questions go to the relays, the once-a-minute checks to the primary), and the difference.
- connections on the primary: the most client backends and wal senders seen during the run.
- storm: every machine writes a key of its own at once; until every machine holds all of them.
- restart: the primary stopped (fast), STORM_DURING machines write while it is down, started
  again; from its start until every machine holds those writes, and when the machines that had
  to reconnect did (per second after the start).

Exit status 1 with --check when a target is missed: 99 % within 1 s, at most 5 ms of the
primary's CPU per write, at most 100 connections on the primary, convergence after the restart
within 30 s. Results are printed as a table and written as JSON (--json).
"""

import argparse
import json
import math
import os
import queue
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from fleet_scale_servers import TICKS, Bouncer, Cluster


class Fleet:
    """The simulator processes, their events, and the commands sent to them."""

    def __init__(self, binary, machines, per_process, directory, postgres, relays):
        self.lock = threading.Lock()
        self.arrivals = {}        # key -> {machine: ns}
        self.wrote = {}           # key -> ns
        self.replies = queue.Queue()
        self.logs = []            # (machine, ns, line)
        self.processes = []
        for first in range(0, machines, per_process):
            count = min(per_process, machines - first)
            argv = [binary, "--machines", str(count), "--first", str(first), "--directory", directory, "--postgres", postgres]
            for relay in relays:
                argv += ["--relay", relay]
            process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
            process.first, process.count = first, count
            threading.Thread(target=self.read, args=(process,), daemon=True).start()
            self.processes.append(process)
        self.machines = machines

    def read(self, process):
        for line in process.stdout:
            parts = line.rstrip("\n").split(" ", 3)
            kind = parts[0]
            with self.lock:
                if kind == "arrived":
                    self.arrivals.setdefault(parts[1], {})[int(parts[2])] = int(parts[3])
                elif kind == "wrote":
                    self.wrote[parts[1]] = int(parts[2])
                elif kind == "log":
                    self.logs.append((int(parts[1]), int(parts[2]), parts[3] if len(parts) > 3 else ""))
                else:
                    self.replies.put(parts)

    def send(self, process, command):
        process.stdin.write(command + "\n")
        process.stdin.flush()

    def ask_all(self, command, reply_kind, timeout=60):
        for process in self.processes:
            self.send(process, command)
        answers = []
        deadline = time.time() + timeout
        while len(answers) < len(self.processes):
            parts = self.replies.get(timeout=max(0.1, deadline - time.time()))
            if parts[0] == reply_kind:
                answers.append(parts)
            elif parts[0] == "error":
                raise RuntimeError(" ".join(parts))
        return answers

    def connected(self):
        return sum(int(p[1]) for p in self.ask_all("status", "status"))

    def write(self, machine, key, value):
        process = next(p for p in self.processes if p.first <= machine < p.first + p.count)
        self.send(process, f"write {machine - process.first} {key} {value}")

    def holding(self, prefix, expected):
        return sum(int(p[2]) for p in self.ask_all(f"count {prefix} {expected}", "count"))

    def quit(self):
        for process in self.processes:
            try:
                self.send(process, "quit")
            except OSError:
                pass
        for process in self.processes:
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()


def wait_until(predicate, timeout, interval=0.1):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    return predicate()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--machines", type=int, default=1000)
    parser.add_argument("--topology", choices=["relayed", "single"], default="relayed")
    parser.add_argument("--relays", type=int, default=2)
    parser.add_argument("--writes", type=int, default=20)
    parser.add_argument("--cpu-writes", type=int, default=200)
    parser.add_argument("--per-process", type=int, default=250)
    parser.add_argument("--during-outage", type=int, default=10)
    parser.add_argument("--bin", default=None, help="the directory of FleetSimulator and prefs (swift build --show-bin-path)")
    parser.add_argument("--simulator-bin", default=None,
                        help="where FleetSimulator is, when not beside prefs (a release build: swift build -c release)")
    parser.add_argument("--json", default=None)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()

    binaries = args.bin or subprocess.run(["swift", "build", "--show-bin-path"], check=True, capture_output=True,
                                          text=True).stdout.strip()
    simulator = os.path.join(args.simulator_bin or binaries, "FleetSimulator")
    prefs = os.path.join(binaries, "prefs")
    for path in (simulator, prefs):
        if not os.access(path, os.X_OK):
            sys.exit(f"fleet-scale: {path} not found: swift build --product FleetSimulator --product prefs")

    root = tempfile.mkdtemp(prefix="fleet-scale-")
    os.chmod(root, 0o755)
    servers, bouncer, fleet = [], None, None
    results = {"machines": args.machines, "topology": args.topology, "relays": args.relays if args.topology == "relayed" else 0,
               "host": f"{os.cpu_count()} cores, {socket.gethostname()}"}
    try:
        single = args.topology == "single"
        # Single: one connection per machine on the primary, as that topology needs.
        primary_connections = max(100, args.machines + 20) if single else 100
        primary = Cluster(root, "primary", {"wal_level": "logical", "max_connections": primary_connections, "fsync": "off",
                                            "max_wal_senders": 20, "max_replication_slots": 20})
        servers.append(primary)
        password = "fleet-secret"
        primary.psql(f"CREATE ROLE fleet LOGIN PASSWORD '{password}' CONNECTION LIMIT {args.machines + 5 if single else 60}")
        primary.psql("CREATE DATABASE fleet OWNER fleet")
        relay_urls = []
        if not single:
            per_relay = math.ceil(args.machines / args.relays)
            relays = [Cluster(root, f"relay{i}", {"max_connections": per_relay + 60, "fsync": "off"}) for i in range(args.relays)]
            servers += relays
            for relay in relays:
                relay.psql(f"CREATE ROLE fleet LOGIN PASSWORD '{password}'")
                relay.psql("CREATE DATABASE fleet OWNER fleet")
            subprocess.run([prefs, "relay", "--primary", primary.url(database="fleet")]
                           + sum((["--relay", r.url(database="fleet")] for r in relays), []), check=True, capture_output=True)
            # The fleet's role pushes on the primary and reads on the relays; it owns nothing.
            primary.psql("GRANT SELECT, INSERT, UPDATE ON defaults_fleet TO fleet", database="fleet")
            for relay in relays:
                relay.psql("GRANT SELECT ON defaults_fleet TO fleet", database="fleet")
            bouncer = Bouncer(root, primary, "fleet", "fleet", password, pool=20)
            postgres = f"postgres://fleet:{password}@127.0.0.1:{bouncer.port}/fleet"
            relay_urls = [r.url(user="fleet", database="fleet", password=password) for r in relays]
        else:
            postgres = primary.url(user="fleet", database="fleet", password=password)
        machines_dir = os.path.join(root, "machines")
        os.makedirs(machines_dir)

        peak = [0]
        sampling = [True]

        def sample():
            while sampling[0]:
                try:
                    count = int(primary.psql("SELECT count(*) FROM pg_stat_activity WHERE backend_type IN ('client backend', 'walsender')"))
                    peak[0] = max(peak[0], count - 1)  # not this query's own
                except subprocess.CalledProcessError:
                    pass
                time.sleep(0.5)

        started = time.time()
        fleet = Fleet(simulator, args.machines, args.per_process, machines_dir, postgres, relay_urls)
        if not wait_until(lambda: fleet.connected() == args.machines, timeout=max(60, args.machines / 5), interval=0.5):
            with fleet.lock:
                fine = {m for m, _, line in fleet.logs if "connected; in step" in line}
                said = [(m, line) for m, _, line in fleet.logs if m not in fine][-20:]
            raise RuntimeError(f"only {fleet.connected()} of {args.machines} machines in step; last lines: {said}")
        results["all_in_step_s"] = round(time.time() - started, 2)
        print(f"{args.machines} machines in step after {results['all_in_step_s']} s", flush=True)
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        time.sleep(2)

        # Fan-out, and the primary's CPU over the writes. The first write is each machine's first
        # apply (statements prepared, pages read): measured, and reported apart.
        others = args.machines - 1
        reach99, medians, largest = [], [], []
        for n in range(-1, args.writes):
            key = f"probe.w{n}" if n >= 0 else "probe.first"
            writer = random.randrange(args.machines)
            fleet.write(writer, key, f"v{n}")
            wait_until(lambda: len(fleet.arrivals.get(key, {})) >= others + 1, timeout=30, interval=0.02)
            with fleet.lock:
                at = fleet.wrote.get(key)
                delays = sorted((ns - at) / 1e6 for machine, ns in fleet.arrivals.get(key, {}).items() if machine != writer)
            if at is None or len(delays) < math.ceil(0.99 * others):
                reach99.append(float("inf"))
            else:
                reach99.append(delays[math.ceil(0.99 * others) - 1])
            medians.append(statistics.median(delays) if delays else float("inf"))
            largest.append(delays[-1] if delays else float("inf"))
            time.sleep(0.2)
            if n < 0:
                results["first_write_99_ms"] = round(reach99.pop(), 1)
                medians.pop()
                largest.pop()
        # The primary's CPU: a stream of writes (50 a second, each by a random machine), then as
        # long with none, for the background.
        time.sleep(1)
        cpu_before, clock_before = primary.cpu_seconds(), time.time()
        for n in range(args.cpu_writes):
            fleet.write(random.randrange(args.machines), f"load.{n % 50}", f"v{n}")
            time.sleep(0.02)
        time.sleep(1)
        writes_cpu = primary.cpu_seconds() - cpu_before
        writes_span = time.time() - clock_before
        idle_before = primary.cpu_seconds()
        time.sleep(writes_span)
        idle_cpu = primary.cpu_seconds() - idle_before
        results["fanout_99_ms"] = {"median": round(statistics.median(reach99), 1), "max": round(max(reach99), 1),
                                   "each": [round(x, 1) for x in reach99]}
        results["fanout_ms"] = {"median": round(statistics.median(medians), 1), "max": round(max(largest), 1)}
        results["primary_cpu_per_write_ms"] = round(writes_cpu / args.cpu_writes * 1000, 2)
        results["primary_cpu_idle_ms_per_s"] = round(idle_cpu / writes_span * 1000, 2)
        results["primary_cpu_per_write_net_ms"] = round(max(0.0, writes_cpu - idle_cpu) / args.cpu_writes * 1000, 2)
        print(f"first write: 99 % reached in {results['first_write_99_ms']} ms", flush=True)
        print(f"fan-out: 99 % reached in {results['fanout_99_ms']} ms; delays {results['fanout_ms']} ms; "
              f"primary CPU per write {results['primary_cpu_per_write_ms']} ms "
              f"(background {results['primary_cpu_idle_ms_per_s']} ms/s, net {results['primary_cpu_per_write_net_ms']} ms)", flush=True)

        # Storm: every machine writes at once. Where the CPU goes: the primary, the relays, the
        # simulated machines.
        def process_cpu(pid):
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / TICKS

        def storm_cpu():
            return (primary.cpu_seconds(), sum(r.cpu_seconds() for r in servers[1:]),
                    sum(process_cpu(p.pid) for p in fleet.processes))

        cpu_storm_before = storm_cpu()
        storm_started = time.time()
        for process in fleet.processes:
            fleet.send(process, "storm storm")
        converged = wait_until(lambda: fleet.holding("storm", args.machines) == args.machines, timeout=300, interval=0.5)
        results["storm_converged_s"] = round(time.time() - storm_started, 2) if converged else None
        results["storm_cpu_s"] = dict(zip(("primary", "relays", "machines"),
                                          (round(b - a, 1) for a, b in zip(cpu_storm_before, storm_cpu()))))
        print(f"storm of {args.machines} writers converged in {results['storm_converged_s']} s; CPU seconds {results['storm_cpu_s']}",
              flush=True)

        # Restart: writes while the primary is down; how long until every machine holds them.
        fleet.logs.clear()
        primary.stop("fast")
        stopped = time.time()
        writers = random.sample(range(args.machines), min(args.during_outage, args.machines))
        for i, machine in enumerate(writers):
            fleet.write(machine, f"probe.r{i}", "during")
        time.sleep(max(0.0, 3 - (time.time() - stopped)))
        primary.start()
        restarted = time.time()
        keys = [f"probe.r{i}" for i in range(len(writers))]

        def holds_all():
            with fleet.lock:
                return all(len(fleet.arrivals.get(k, {})) >= args.machines - 1 for k in keys)

        converged = wait_until(holds_all, timeout=120, interval=0.2)
        results["restart_converged_s"] = round(time.time() - restarted, 2) if converged else None
        with fleet.lock:
            reconnects = sorted((ns / 1e9 - restarted) for _, ns, line in fleet.logs if "connected; in step" in line)
            failures = sum(1 for _, _, line in fleet.logs if "retrying with back-off" in line)
        with fleet.lock:
            last = {}
            for machine, ns, line in fleet.logs:
                if "connected; in step" in line:
                    last[machine] = ns
            slowest = sorted(last, key=last.get)[-2:]
            results["restart_slowest_machines"] = {m: [f"{(ns / 1e9 - restarted):+.2f} s {line}" for mm, ns, line in fleet.logs if mm == m]
                                                   for m in slowest}
        per_second = {}
        for t in reconnects:
            per_second[max(0, int(t))] = per_second.get(max(0, int(t)), 0) + 1
        results["restart"] = {"machines_that_reconnected": len(reconnects), "said_unreachable": failures,
                              "reconnections_per_second_after_start": dict(sorted(per_second.items())),
                              "largest_in_one_second": max(per_second.values()) if per_second else 0}
        time.sleep(1)
        sampling[0] = False
        results["primary_connections_peak"] = peak[0]
        print(f"restart: every machine held the {len(keys)} writes made while the primary was down "
              f"{results['restart_converged_s']} s after it started; {results['restart']}", flush=True)
        print(f"connections on the primary, at most: {peak[0]}", flush=True)
    finally:
        if fleet:
            fleet.quit()
        if bouncer:
            bouncer.stop()
        for server in servers:
            try:
                server.stop("immediate")
            except subprocess.CalledProcessError:
                pass
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)

    print(json.dumps(results, indent=2))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)
    if args.check:
        missed = []
        if not results["fanout_99_ms"]["max"] <= 1000:
            missed.append(f"99 % reached in {results['fanout_99_ms']['max']} ms (target 1000)")
        if not results["primary_cpu_per_write_ms"] <= 5:
            missed.append(f"primary CPU per write {results['primary_cpu_per_write_ms']} ms (target 5)")
        if not results["primary_connections_peak"] <= 100:
            missed.append(f"{results['primary_connections_peak']} connections on the primary (target 100)")
        if results["restart_converged_s"] is None or results["restart_converged_s"] > 30:
            missed.append(f"converged {results['restart_converged_s']} s after the restart (target 30)")
        if missed:
            sys.exit("fleet-scale: targets missed: " + "; ".join(missed))
        print("fleet-scale: every target met")


if __name__ == "__main__":
    main()
