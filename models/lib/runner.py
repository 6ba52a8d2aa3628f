"""One runner for a folder of scripts: `RUNNER COMMAND [ARGS...]` runs the command's module
with the Python it needs (a venv under bench/out, or this one) and the repository on
PYTHONPATH, so the scripts import each other as packages (models.lib, bench.benchlib) and
nothing is loaded by its file path. models/run and bench/beats/run are two tables over it.
Standard library only: it runs before any venv exists."""

import os
import sys
from dataclasses import dataclass

from models.lib.paths import REPO


@dataclass
class Command:
    module: str    # dotted module run with -m, or a shell script's path from the repository
    python: str    # interpreter path; sys.executable when it needs nothing but the stdlib
    about: str     # one line for --help
    setup: str = "bench/beats/setup.sh"  # what makes `python` when it is missing


def usage(prog, commands):
    width = max(len(n) for n in commands) + 2
    lines = [f"usage: {prog} COMMAND [ARGS...]   ({prog} COMMAND --help: its options)", "",
             "commands:"]
    lines += [f"  {name:{width}}{c.about}" for name, c in commands.items()]
    return "\n".join(lines)


def run(prog, commands, argv):
    """Replaces this process with the command's; returns an exit code only on failure."""
    if not argv:
        print(usage(prog, commands), file=sys.stderr)
        return 64
    if argv[0] in ("-h", "--help", "help"):
        print(usage(prog, commands))
        return 0
    name, rest = argv[0], argv[1:]
    command = commands.get(name)
    if command is None:
        print(f"{prog}: no command '{name}' (one of: {', '.join(commands)})", file=sys.stderr)
        return 64
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (REPO, env.get("PYTHONPATH")) if p)
    if command.module.endswith(".sh"):
        args = ["bash", os.path.join(REPO, command.module), *rest]
    else:
        if not os.access(command.python, os.X_OK):
            print(f"{prog} {name}: {os.path.relpath(command.python, REPO)} is missing; run "
                  f"{command.setup}", file=sys.stderr)
            return 69
        args = [command.python, "-m", command.module, *rest]
    os.execvpe(args[0], args, env)
