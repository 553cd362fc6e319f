"""The bare FastMCP server of B7: `python -m bench.bare_server --text-file F --port P` serves `guide://_static` over HTTP."""

import argparse
from pathlib import Path

from bench.baselines import static_server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--text-file", type=Path, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    options = parser.parse_args()
    server = static_server(options.text_file.read_text(encoding="utf-8"))
    server.run(transport="http", host=options.host, port=options.port, path="/mcp", show_banner=False)


if __name__ == "__main__":
    main()
