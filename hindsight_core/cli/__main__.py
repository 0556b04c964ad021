"""`python -m hindsight_core.cli`: the same as the `hindsight` command."""

from . import main

main()
