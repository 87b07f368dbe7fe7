from fsmnet.cli import run

run()
