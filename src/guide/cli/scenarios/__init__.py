"""`guide test`: run a docroot's scenarios through a real MCP client, in every channel each applies to, and report each difference."""
