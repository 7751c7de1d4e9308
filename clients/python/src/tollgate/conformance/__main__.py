"""python3 -m tollgate.conformance [CASES_DIR or FILES...] [--cluster-url URL]

Runs every case against a private redis-server (and a private Redis Cluster for the cases that
need one), prints `PASS <file>` or `FAIL <file>: step N: ...` per case, then
`N passed, M failed[, K skipped]`; exits 1 on any failure."""
from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path
from typing import List, Optional

import redis
from redis.cluster import RedisCluster

from .cases import CaseError, case_files, default_cases_dir, load, skip_reason
from .runner import StepFailed, run_case
from .servers import RedisClusterServers, RedisServer


def _files(arguments: List[str]) -> List[Path]:
    if not arguments:
        found = default_cases_dir()
        if found is None:
            raise SystemExit("no conformance/cases folder found; name the cases to run")
        return case_files(found)
    files: List[Path] = []
    for argument in map(Path, arguments):
        files += case_files(argument) if argument.is_dir() else [argument]
    return files


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m tollgate.conformance")
    parser.add_argument("cases", nargs="*", help="case files or folders (default: conformance/cases)")
    parser.add_argument("--no-cluster", action="store_true", help="skip the cases that need a Redis Cluster")
    options = parser.parse_args(argv)
    files = _files(options.cases)
    wants_cluster, skips = [], []
    for path in files:
        try:
            case = load(path)
            wants_cluster.append(bool(case.get("cluster")))
            skips.append(skip_reason(case))
        except (CaseError, ValueError):
            wants_cluster.append(False)
            skips.append(None)
    passed = failed = skipped = 0
    cluster_servers = None
    with RedisServer() as server:
        single = redis.Redis(port=server.port)
        if any(wants_cluster) and not options.no_cluster and shutil.which("redis-cli"):
            cluster_servers = RedisClusterServers()
        try:
            cluster = RedisCluster(host="127.0.0.1", port=cluster_servers.port) if cluster_servers else None
            for path, needs_cluster, skip in zip(files, wants_cluster, skips):
                if skip:
                    print(f"SKIP {path.name}: {skip}")
                    skipped += 1
                    continue
                if needs_cluster and cluster is None:
                    print(f"SKIP {path.name}: needs a Redis Cluster (none here)")
                    skipped += 1
                    continue
                try:
                    if needs_cluster:
                        run_case(path, cluster, cluster_servers)
                    else:
                        run_case(path, single, server)
                    print(f"PASS {path.name}")
                    passed += 1
                except (StepFailed, CaseError, ValueError) as failure:
                    print(f"FAIL {path.name}: {failure}")
                    failed += 1
                except Exception as failure:  # noqa: BLE001 - a crash is a failure of this case
                    print(f"FAIL {path.name}: {type(failure).__name__}: {failure}")
                    failed += 1
                sys.stdout.flush()
        finally:
            if cluster_servers:
                cluster_servers.stop()
    summary = f"{passed} passed, {failed} failed"
    print(summary + (f", {skipped} skipped" if skipped else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
