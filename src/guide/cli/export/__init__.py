"""`guide export-skills`: a docroot's skills (and commands) written into an agent's own folders."""
