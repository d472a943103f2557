"""Sub-commands of ``pibg``: one module each, each exposing ``register(subparsers)``.

A module sets ``handler=`` on its parser (``parser.set_defaults(handler=run)``); the handler takes
the parsed ``argparse.Namespace`` and returns the exit code.
"""
