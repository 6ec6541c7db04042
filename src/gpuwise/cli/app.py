"""The `gpuwise` command: language and debug flags, the command modules, one error boundary.

`--lang` and `--debug` are accepted anywhere on the line (they are read before typer sees the
arguments), so help texts can be built in the user's language.
"""

from __future__ import annotations

import gc
import os
import sys
import traceback
from collections.abc import Sequence

import click
import typer

from gpuwise.errors import GpuwiseError
from gpuwise.i18n import detect_lang, get_lang, set_lang, t

COMMANDS = (
    "gpus", "models", "estimate", "fit", "offers", "cost", "plan", "doctor", "supervise",
    "watch", "record", "runs", "exporter", "prices", "bench", "calibrate",
    "setup", "audit", "export", "serve", "mcp",
)  # fmt: skip


def _pre_parse(args: list[str]) -> tuple[str | None, bool, list[str]]:
    """Pull `--lang X`, `--lang=X` and `--debug` out of the argument list."""
    lang: str | None = None
    debug = False
    rest: list[str] = []
    it = iter(args)
    for arg in it:
        if arg == "--":  # what follows belongs to a wrapped command (supervise, record)
            rest.append(arg)
            rest.extend(it)
            break
        if arg == "--debug":
            debug = True
        elif arg == "--lang":
            lang = next(it, None)
        elif arg.startswith("--lang="):
            lang = arg.split("=", 1)[1]
        else:
            rest.append(arg)
    if lang is not None and lang.lower() not in ("zh", "en", "zh_cn", "zh-cn", "en_us", "en-us"):
        raise GpuwiseError("cli.bad_lang", value=lang)
    return lang, debug, rest


def build_app(only: str | None = None) -> typer.Typer:
    """The typer application, help in the current language.

    With `only` (the command on the line), just that command's module is imported and
    registered: typer inspects every registered function's signature on each start, which for
    all 18 commands cost about 0.03 s of every run. Root help and mistyped commands (which
    need the full list for suggestions) register them all.
    """
    app = typer.Typer(
        name="gpuwise",
        help=t("cli.help"),
        no_args_is_help=True,
        suggest_commands=False,
        add_completion=False,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        context_settings={"help_option_names": ["-h", "--help"]},
    )

    @app.callback()
    def _root(
        lang: str = typer.Option(None, "--lang", help=t("cli.opt_lang")),
        debug: bool = typer.Option(False, "--debug", help=t("cli.opt_debug")),
        version: bool = typer.Option(False, "--version", "-V", help=t("flags.opt_version")),
    ) -> None:
        """Documented here; the values are read by _pre_parse."""

    import importlib

    for name in (only,) if only in COMMANDS else COMMANDS:
        try:
            module = importlib.import_module(f"gpuwise.cli.cmd_{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"gpuwise.cli.cmd_{name}":
                raise
            continue
        module.register(app)
    return app


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: run a command, turning every error into one line and an exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args
    from gpuwise.cli.startup import end_start_up, prepare_streams, version_line
    from gpuwise.diag import new_run

    new_run()

    prepare_streams(debug)
    try:
        lang, debug, rest = _pre_parse(args)
        set_lang(detect_lang(lang))
        prepare_streams(debug, lang_given=lang is not None)
        if rest[:1] in (["--version"], ["-V"]):
            sys.stdout.write(version_line() + "\n")
            return 0
        from gpuwise.cli.localize import localize_click

        localize_click(get_lang())
        app = build_app(only=rest[0] if rest else None)
        end_start_up()
        rv = app(args=rest, prog_name="gpuwise", standalone_mode=False)
        return rv if isinstance(rv, int) and not isinstance(rv, bool) else 0
    except click.exceptions.NoArgsIsHelpError as exc:  # `gpuwise`, `gpuwise runs`: the help
        exc.show()
        return exc.exit_code
    except click.UsageError as exc:
        if debug:
            traceback.print_exc()
        sys.stderr.write(_usage_line(exc, rest) + "\n")
        return 2
    except click.ClickException as exc:
        sys.stderr.write(f"{t('cli.error')}: {exc.format_message()}\n")
        return exc.exit_code
    except click.Abort:
        return 130
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except GpuwiseError as exc:
        if debug:
            traceback.print_exc()
        sys.stderr.write(f"{t('cli.error')}: {exc.render()}\n")
        return 2
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        if debug:
            traceback.print_exc()
        sys.stderr.write(t("cli.unexpected", error=f"{type(exc).__name__}: {exc}") + "\n")
        return 1
    return 0


def _usage_line(exc: click.UsageError, rest: list[str]) -> str:
    """click's usage error as one line (README: bad input prints one line), naming the help to
    read instead of printing click's Usage/Try/Error block of three or four lines."""
    command = exc.ctx.command_path if exc.ctx is not None else "gpuwise"
    if command == "gpuwise" and rest[:1] and rest[0] in COMMANDS:  # an option of the command
        command = f"gpuwise {rest[0]}"
    message = " ".join(exc.format_message().split())
    return f"{t('cli.error')}: " + t("cli.usage_error", message=message, command=command)


def run() -> None:
    """Console-script wrapper.

    No cyclic collection during start-up (`pause_gc_for_process`; back on before the command
    runs, see `end_start_up`). Before exiting, every object is moved out of the collector's
    reach (`gc.freeze`): the interpreter's shutdown runs one last full collection, which over
    the modules, schema classes and unpickled catalog a command leaves behind cost about 0.05 s
    of every run (issue 26). Shutdown itself is unchanged: atexit handlers run and streams are
    flushed.

    Pydantic looks for plugins the first time a model validates, which walks the metadata of
    every installed distribution (6 ms over this project's 108, more in a large conda
    environment); gpuwise's own documents have no use for them. A user who sets
    PYDANTIC_DISABLE_PLUGINS keeps their value.
    """
    from gpuwise.cli.startup import pause_gc_for_process

    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    pause_gc_for_process()
    code = main()
    gc.freeze()
    sys.exit(code)
