"""`make run`'s launcher as an operator meets it: one stack per set of ports and Redis directory, and every process
stopped by a signal or by the launcher's own death."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil

from deploy.launcher import ROOT, free_port


def launch(tmp: Path, gateway: int, rules: int) -> subprocess.Popen[str]:
    env = dict(os.environ, MANAFORGE_GATEWAY_PORT=str(gateway), MANAFORGE_RULES_PORT=str(rules))
    env["MANAFORGE_RUN_DIR"] = str(tmp)
    env["MANAFORGE_WEB_PORT"] = str(free_port())  # the browser client's edge, never the default 8080 here
    return subprocess.Popen(
        [sys.executable, "-m", "deploy.launcher", "run"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def wait_running(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    seen = ""
    deadline = time.monotonic() + 60
    while "Manaforge is running" not in seen:
        assert time.monotonic() < deadline and process.poll() is None, seen
        seen += process.stdout.readline()
    return seen


def test_a_second_stack_is_refused_and_a_signal_stops_every_process(tmp_path: Path) -> None:
    ports = free_port(), free_port()
    first = launch(tmp_path, *ports)
    try:
        wait_running(first)
        children = psutil.Process(first.pid).children(recursive=True)
        assert len(children) >= 4  # redis, rules, gateway, worker
        same_ports = launch(tmp_path, *ports)
        out, _ = same_ports.communicate(timeout=60)
        assert same_ports.returncode == 1 and f"port {ports[0]} on 127.0.0.1 is taken by pid" in out
        same_dir = launch(tmp_path, free_port(), free_port())
        out, _ = same_dir.communicate(timeout=60)
        assert same_dir.returncode == 1 and "is in use by Manaforge pid" in out
        first.send_signal(signal.SIGHUP)
        rest, _ = first.communicate(timeout=60)
        assert first.returncode == 0 and "Traceback" not in rest and "stopped." in rest
        _, alive = psutil.wait_procs(children, timeout=10)
        assert alive == []
    finally:
        if first.poll() is None:
            first.kill()


def test_the_stack_dies_with_a_killed_launcher(tmp_path: Path) -> None:
    launcher = launch(tmp_path, free_port(), free_port())
    try:
        wait_running(launcher)
        children = psutil.Process(launcher.pid).children(recursive=True)
        launcher.kill()
        launcher.wait(10)
        _, alive = psutil.wait_procs(children, timeout=15)
        assert alive == []
    finally:
        if launcher.poll() is None:
            launcher.kill()


def test_servers_get_ports_no_outgoing_connection_can_hold() -> None:
    """A process restarted on its port (`Stack.restart`: Redis after a crash, a cluster node) must find it free.
    A port of the kernel's ephemeral range can meanwhile be the local end of any outgoing connection, so the
    launcher's ports lie below it (CI once saw a Redis restarted on its port never answer)."""
    from deploy.launcher import free_cluster_port

    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    ports = [free_port() for _ in range(50)]
    cluster = [free_cluster_port() for _ in range(20)]
    assert all(port < low for port in ports) and all(port + 10000 < low for port in cluster)
    assert len(set(ports)) == len(ports)  # none handed out twice: a stack takes several before its servers bind them


def test_no_python_runs_in_a_child_between_fork_and_exec(tmp_path: Path) -> None:
    """The launcher restarts processes from a busy, threaded process (gRPC clients, the soak's load): Python code run
    in the child before exec (a `preexec_fn`, and with it every at-fork handler, gRPC's among them) can deadlock or
    crash there (a restarted Redis died of SIGSEGV before exec). The launcher starts its children with no Python in
    between, yet they still die with the launcher (test_the_stack_dies_with_a_killed_launcher)."""
    marker = tmp_path / "python-ran-in-the-child"
    probe = (
        "import os, sys\n"
        "from deploy.launcher import Stack\n"
        f"os.register_at_fork(after_in_child=lambda: open({str(marker)!r}, 'w').close())\n"
        "stack = Stack()\n"
        "stack._spawn('probe', [sys.executable, '-c', 'import time; time.sleep(0.1)'])\n"
        "assert stack.processes['probe'].wait(20) == 0\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert not marker.exists()
