#!/usr/bin/env python3
"""Runs `faultline check-migrations` on every folder of the corpus and
compares what it found with the folder's expected.txt: one line per static
finding (severity, rule, file:line:col) and per dynamic finding (check,
runner, store, file, verdict, the version to force, how many cases, and
the runner's own risk it is, if it is one), then the exit status. `--update` rewrites the expected files (read the diff!).

usage: corpus_test.py FAULTLINE CORPUS_DIR [--update] [FOLDER...]
"""
import json
import shlex
import subprocess
import sys
from pathlib import Path


def digest(faultline, corpus, folder):
    args = shlex.split((folder / "args").read_text()) if (folder / "args").exists() else []
    run = subprocess.run([faultline, "check-migrations", folder.name, *args, "--format", "json"],
                         cwd=corpus, capture_output=True, text=True, timeout=300)
    if run.returncode not in (0, 1):
        return f"exit {run.returncode}\n{run.stderr}"
    report = json.loads(run.stdout)
    lines = []
    for f in report["static"]:
        lines.append(f"static {f['severity']} {f['rule']} {f['file']}:{f['line']}:{f['column']}")
    for f in report["dynamic"]:
        force = f" force {f['force_to']}" if f["force_to"] else ""
        risk = f" (runner's own: {f['runner_risk']})" if f["runner_risk"] else ""
        lines.append(f"dynamic {f['check']} {f['runner']} {f['store']} {f['file'] or '(folder)'} "
                     f"{f['verdict']}{force} x{len(f['cases'])}{risk}")
        # The folder's unsafe findings each have a repro; a runner's risk
        # has one, on its first finding.
        if f["fails"] and "repro" not in f:
            lines.append("  MISSING REPRO")
    for risk in report["runner_risks"]:
        if not risk["repro_file"]:
            lines.append(f"  MISSING REPRO of {risk['id']}")
    for note in report["notes"]:
        lines.append(f"note {note}")
    lines.append(f"exit {run.returncode}")
    return "\n".join(lines) + "\n"


def main():
    faultline, corpus = sys.argv[1], Path(sys.argv[2])
    update = "--update" in sys.argv[3:]
    only = [a for a in sys.argv[3:] if a != "--update"]
    folders = sorted(p for p in corpus.iterdir() if p.is_dir() and (p / "expected.txt").exists()
                     or (update and p.is_dir() and (p / "args").exists()))
    failed = 0
    for folder in folders:
        if only and folder.name not in only:
            continue
        got = digest(faultline, corpus, folder)
        expected_file = folder / "expected.txt"
        if update:
            expected_file.write_text(got)
            continue
        expected = expected_file.read_text()
        if got != expected:
            failed += 1
            print(f"FAIL {folder.name}:\n--- expected\n{expected}--- got\n{got}")
        else:
            print(f"ok   {folder.name}")
    print(f"{len(folders)} folders, {failed} differ")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
