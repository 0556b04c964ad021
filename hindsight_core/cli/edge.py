"""Where errors become one line and a non-zero exit, and where text comes in from standard input."""

from __future__ import annotations

from typing import Any, BinaryIO, Iterable, TextIO

import click

from ..errors import HindsightError, TextTooLargeError

#: where a command notes, in click's shared `meta`, the store it created, for `Group` to say so once it succeeded
CREATED = "hindsight.created_store"
#: what a size-limit message adds on the command line: the flag (and its variable) that raises the limit
LIMIT_HINT = "On the command line: --max-text-bytes N (or HINDSIGHT_MAX_TEXT_BYTES)."


def one_line(exc: BaseException) -> str:
    """An error's message on one line."""
    return " ".join(str(exc).split())


#: the group's options a user also types after the command (`hindsight recall --store X ...`)
HOISTED = ("--store", "--home")


def hoisted(args: list[str], commands: Iterable[str]) -> list[str]:
    """`args` with the `HOISTED` options that follow the command moved before it, where the group reads them."""
    at = next((i for i, arg in enumerate(args) if arg in set(commands)), len(args))
    moved: list[str] = []
    rest, i = list(args[:at + 1]), at + 1
    while i < len(args) and args[i] != "--":  # after --, the words are the command's own
        take = 2 if args[i] in HOISTED and i + 1 < len(args) else int(args[i].split("=")[0] in HOISTED)
        (moved if take else rest).extend(args[i:i + (take or 1)])
        i += take or 1
    return [*args[:at], *moved, *rest[at:], *args[i:]]


class Group(click.Group):
    """Turns hindsight's errors (and a few the system raises) into one clear line and exit status 1; takes the
    store's options after the command too (`hoisted`)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, hoisted(args, self.commands))

    def invoke(self, ctx: click.Context) -> Any:
        try:
            result = super().invoke(ctx)
            created = ctx.meta.get(CREATED)
            if created is not None:
                click.echo(f"hindsight: created a new store at {created}", err=True)
            return result
        except TextTooLargeError as exc:
            raise click.ClickException(f"{one_line(exc)} {LIMIT_HINT}") from exc
        except HindsightError as exc:
            raise click.ClickException(one_line(exc)) from exc
        except UnicodeDecodeError as exc:
            raise click.ClickException(not_utf8("the input", exc)) from exc
        except (FileNotFoundError, PermissionError, IsADirectoryError) as exc:
            raise click.ClickException(f"{exc.strerror}: {exc.filename}") from exc


def not_utf8(what: str, exc: UnicodeDecodeError) -> str:
    return (f"{what} is not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}); "
            "convert it first, e.g. `iconv -f latin1 -t utf-8 FILE > FILE.utf8`")


def stream(name: str) -> TextIO:
    """click's standard text stream `name` ("stdin", "stdout", "stderr"), as a test runner swaps it."""
    get: Any = click.get_text_stream  # typed here: click 8.5's own hints do not resolve for mypy
    found: TextIO = get(name)
    return found


def binary_stream(name: str) -> BinaryIO:
    get: Any = click.get_binary_stream
    found: BinaryIO = get(name)
    return found


def terminal(name: str) -> bool:
    """Whether the standard stream `name` is a terminal (nothing piped in or out)."""
    return stream(name).isatty()


def read_text(value: str | None, what: str) -> str:
    """The TEXT argument, or standard input when it is `-` or missing and something is piped in."""
    if value is not None and value != "-":
        return value
    if terminal("stdin"):
        raise click.UsageError(f"give the {what} as an argument, or pipe it in (`... | hindsight ... -`)")
    data = binary_stream("stdin").read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise click.ClickException(not_utf8(f"the {what} on standard input", exc)) from exc


def check_not_terminal(name: str, what: str) -> None:
    """Refuse to wait for a file on a terminal: `-` (the default) means piped-in input."""
    if name == "-" and terminal("stdin"):
        raise click.UsageError(f"give the {what} as FILE, or pipe it in (`hindsight import < FILE`)")


def optional_extra(exc: ImportError, module: str, extra: str) -> None:
    """Turn a missing optional dependency into the pip command that installs it; re-raise anything else."""
    if (exc.name or "").split(".")[0] == module:
        raise click.ClickException(f'this needs the {extra} extra: pip install "hindsight-memory[{extra}]"') from exc
    raise exc
