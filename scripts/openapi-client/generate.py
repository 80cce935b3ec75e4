"""Generates a Python client of the API with openapi-python-client, as its command line does, and
counts the warnings it gives: each part of the document it could not turn into code (a schema
removed, a response or a body left out) is one. Prints every warning and the count; exits 1 when
there is any, so a document the generator would not keep whole fails the test.

Usage: generate.py DOCUMENT_URL_OR_PATH CONFIG OUTPUT_DIR
"""

import sys
from pathlib import Path

from openapi_python_client import generate
from openapi_python_client.config import Config, ConfigFile, MetaType


def main() -> int:
    url, config_path, output = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    # The generator fetches a string and reads a path.
    source = url if url.startswith(("http://", "https://")) else Path(url)
    config = Config.from_sources(
        ConfigFile.load_from_path(config_path),
        MetaType.NONE,
        source,
        "utf-8",
        overwrite=True,
        output_path=output,
    )
    errors = generate(config=config)
    for error in errors:
        print(f"openapi-python-client: {error.level.value}: {error.header}", file=sys.stderr)
        if error.detail:
            print(f"  {error.detail}", file=sys.stderr)
        data = getattr(error, "data", None)
        if data is not None and hasattr(data, "model_dump_json"):
            print(f"  {data.model_dump_json(exclude_unset=True, by_alias=True)[:400]}", file=sys.stderr)
    print(f"openapi-python-client: {len(errors)} warnings generating from {url}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
