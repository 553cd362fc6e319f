"""Reading a docroot: layout, frontmatter, configuration and the served snapshot."""
