"""Data in other shapes, turned into RDF the gateway reads: JSON-lines property-graph bundles."""
