"""Tools for working on the repository, never installed: the documentation generator."""
