"""The bare FastMCP server of B7 and B9: `python -m bench.harness.bare_server --text-file F [--transport stdio | --port P]`.

It serves `guide://_static` (the text of F) and nothing else, over HTTP (B7) or stdio (B9).
"""

import argparse
from pathlib import Path

from bench.harness.baselines import static_server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--text-file", type=Path, required=True)
    parser.add_argument("--transport", choices=("http", "stdio"), default="http")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int)
    options = parser.parse_args()
    if options.transport == "http" and options.port is None:
        parser.error("--port is required over HTTP")
    server = static_server(options.text_file.read_text(encoding="utf-8"))
    if options.transport == "stdio":
        server.run(transport="stdio", show_banner=False)
    else:
        server.run(transport="http", host=options.host, port=options.port, path="/mcp", show_banner=False)


if __name__ == "__main__":
    main()
