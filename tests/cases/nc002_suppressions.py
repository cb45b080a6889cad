"""Suppression comments: `# noqa`, `# type: ignore` and `# namedcheck: ignore` silence a code on the first
line of its diagnostic; an NC code that silences nothing there is NC002 (another tool's codes never are)."""

import jax.numpy as jnp

a = jnp.ones((2, 3)) + jnp.ones((4, 5))  # noqa: NC201
b = jnp.ones((2, 3)) + jnp.ones((4, 5))  # type: ignore[NC201]
c = jnp.ones((2, 3)) + jnp.ones((4, 5))  # type: ignore[namedcheck]
d = jnp.ones((2, 3)) + jnp.ones((4, 5))  # type: ignore
e = jnp.ones((2, 3)) + jnp.ones((4, 5))  # noqa
f = jnp.ones((2, 3)) + jnp.ones((4, 5))  # namedcheck: ignore[NC2]
g = jnp.ones((2, 3)) + jnp.ones((4, 5))  # noqa: E501  # expect: NC201
h = jnp.ones((2, 3)) + jnp.ones((4, 5))  # type: ignore[attr-defined]  # expect: NC201
i = jnp.ones((2, 3)) + jnp.ones((4, 5))  # noqa: NC202  # expect: NC201, NC002
j = jnp.ones((2, 3))  # noqa: NC201  # expect: NC002
k = jnp.ones((2, 3))  # type: ignore[NC201, attr-defined]  # expect: NC002
m = jnp.ones((2, 3))  # noqa: E501, F401
n = jnp.ones((2, 3))  # noqa: NC201, NC002
s = "# noqa: NC201"
t = (
    jnp.ones((2, 3))  # noqa: NC201
    + jnp.ones((4, 5))
)
u = (  # noqa: NC201  # expect: NC002
    jnp.ones((2, 3))  # expect: NC201
    + jnp.ones((4, 5))
)


def inside(x: jnp.ndarray) -> None:
    x + jnp.ones((4, 5))  # noqa: NC201  # expect: NC002
