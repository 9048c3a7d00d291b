"""Thin adapters over the tools: command line (and, later, HTTP, MCP, SPARQL)."""
