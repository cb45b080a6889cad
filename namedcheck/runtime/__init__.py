"""The runtime: xmap on today's JAX, the named-shape pass over jaxprs, and their helpers.

Every module here imports jax; `import namedcheck` does not import this package.
"""
