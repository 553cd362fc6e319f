"""What Guide keeps on disk outside the docroot (parses, check reports): one private folder, two kinds of file."""
