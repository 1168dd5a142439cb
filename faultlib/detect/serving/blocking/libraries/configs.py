"""Config-file loaders: libraries whose one call opens a settings file (YAML, ``.env``, a Hydra config tree) and
parses it.

Part of ``check blocking``'s vocabulary (the registry: :mod:`faultlib.detect.serving.blocking.libraries`).
A service that builds its settings inside an async start-up (``async def init_app``, an aiohttp ``get_app``) reads
the file on the loop, the way ``open`` + ``yaml.safe_load`` would (those are in ``stdlib.py``). None of these
libraries has an async reader. Left out on purpose: the parsers of text already in memory
(``trafaret_config.parse_and_validate``, ``OmegaConf.create``, ``dotenv_values(stream=...)``), and Dynaconf, whose
``Dynaconf(...)`` settings object is lazy (the files are read on the first attribute access, which a static
reading cannot place).
"""

from __future__ import annotations

from faultlib.detect.serving.blocking.entries import BlocksWhen, Vocabulary

F = "blocking_file_io"
TRAFARET = ("https://github.com/tailhook/trafaret-config#readme (read_and_validate(filename, trafaret) opens and "
            "parses the YAML file; commandline.config_from_options reads the file named by --config the same way; "
            "parse_and_validate takes the text instead)")
OMEGACONF = ("https://omegaconf.readthedocs.io/en/latest/usage.html#from-a-yaml-file (OmegaConf.load opens and "
             "parses the YAML file; OmegaConf.save writes one; OmegaConf.create builds in memory)")
HYDRA = ("https://hydra.cc/docs/advanced/compose_api/ (compose() loads the primary config and its defaults list "
         "from the config search path: one YAML file read per config group)")
DOTENV = ("https://github.com/theskumar/python-dotenv#getting-started (load_dotenv and dotenv_values open and parse "
          "the .env file -- found by walking up from the caller's directory when no path is given -- unless a "
          "stream= is passed)")
DOTENV_WRITERS = ("https://github.com/theskumar/python-dotenv#command-line-interface and dotenv/main.py (set_key and "
                  "unset_key read the .env file, write the changed lines to a temporary file and move it over the "
                  "original)")
ENVIRONS = ("https://github.com/sloria/environs#reading-env-files (Env.read_env reads the .env file through "
            "python-dotenv)")
CONFUSE = ("https://confuse.readthedocs.io/en/latest/usage.html#search-paths (Configuration(appname, modname, "
           "read=True) reads the user and default config.yaml files when it is built; set_file reads one more)")

_STREAM = BlocksWhen("stream", position=1, test="unset", absent=True)

CONFIG_FILES = Vocabulary(
    calls={
        **{f"trafaret_config.{f}": (F, TRAFARET) for f in ("read_and_validate", "simple.read_and_validate",
                                                          "commandline.config_from_options")},
        **{f"omegaconf.OmegaConf.{f}": (F, OMEGACONF) for f in ("load", "save")},
        **{f"hydra.{f}": (F, HYDRA) for f in ("compose", "compose.compose")},
        **{f"dotenv.{f}": (F, DOTENV) for f in ("load_dotenv", "dotenv_values", "main.load_dotenv",
                                                "main.dotenv_values")},
        **{f"dotenv.{m}{f}": (F, DOTENV_WRITERS) for m in ("", "main.") for f in ("set_key", "unset_key")},
        "environs.Env.read_env": (F, ENVIRONS),
        "confuse.Configuration": (F, CONFUSE),
        "confuse.LazyConfig.set_file": (F, CONFUSE),
        "confuse.Configuration.set_file": (F, CONFUSE),
    },
    when={**{f"dotenv.{f}": _STREAM for f in ("load_dotenv", "dotenv_values", "main.load_dotenv",
                                               "main.dotenv_values")},
          "confuse.Configuration": BlocksWhen("read", position=2, test="true", absent=True)},
    returns={"confuse.Configuration": "confuse.Configuration", "environs.Env": "environs.Env"},
)
