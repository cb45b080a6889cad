"""diffrax as a program uses it: a decay and an oscillator solved at chosen times, a batch of initial states
under vmap, and a vector field that returns the wrong shape."""

import diffrax
import jax
import jax.numpy as jnp


def decay(t, y, args):
    return -args * y


def oscillator(t, state, args):
    position, velocity = state
    return velocity, -position


def forcing_only(t, y, args):
    return jnp.sin(t) * jnp.ones(4)  # a force per particle, but the state tracks three


def constant_push(t, y, args):
    return 0.5  # a scalar broadcasts to every component


y0 = jnp.array([1.0, 2.0, 3.0])
times = jnp.linspace(0.0, 2.0, 11)
solver = diffrax.Tsit5()
controller = diffrax.PIDController(rtol=1e-5, atol=1e-5)
sol = diffrax.diffeqsolve(
    diffrax.ODETerm(decay), solver, 0.0, 2.0, 0.1, y0, args=0.5, saveat=diffrax.SaveAt(ts=times), stepsize_controller=controller
)
trajectory = sol.ys  # reveal: f32[(11, 3)]
final = diffrax.diffeqsolve(diffrax.ODETerm(decay), solver, 0.0, 2.0, 0.1, y0, args=0.5).ys  # reveal: f32[(1, 3)]
both_ends = diffrax.SaveAt(t0=True, t1=True)
ends = diffrax.diffeqsolve(diffrax.ODETerm(decay), solver, 0.0, 2.0, 0.1, y0, args=0.5, saveat=both_ends).ys  # reveal: f32[(2, 3)]
from_start = diffrax.SaveAt(t0=True, ts=times)
with_start = diffrax.diffeqsolve(diffrax.ODETerm(decay), solver, 0.0, 2.0, 0.1, y0, args=0.5, saveat=from_start).ys  # reveal: f32[(12, 3)]
pushed = diffrax.diffeqsolve(diffrax.ODETerm(constant_push), solver, 0.0, 1.0, 0.1, y0).ys  # reveal: f32[(1, 3)]
phase = diffrax.diffeqsolve(
    diffrax.ODETerm(oscillator), solver, 0.0, 2.0, 0.1, (jnp.ones(2), jnp.zeros(2)), saveat=diffrax.SaveAt(ts=times)
).ys
positions = phase[0]  # reveal: f32[(11, 2)]


def solve_from(start):
    return diffrax.diffeqsolve(
        diffrax.ODETerm(decay), solver, 0.0, 2.0, 0.1, start, args=0.5, saveat=diffrax.SaveAt(ts=times)
    ).ys


batch = jax.vmap(solve_from)(jnp.ones((7, 3)))  # reveal: f32[(7, 11, 3)]
forced = diffrax.diffeqsolve(diffrax.ODETerm(forcing_only), solver, 0.0, 1.0, 0.1, y0)  # expect: NC203

motion = diffrax.VirtualBrownianTree(0.0, 2.0, 1e-3, (3,), jax.random.key(0))
kick = motion.evaluate(0.5, 1.0)  # reveal: f32[(3,)]
every_step = diffrax.diffeqsolve(diffrax.ODETerm(decay), solver, 0.0, 2.0, 0.1, y0, args=0.5, saveat=diffrax.SaveAt(steps=True), max_steps=64)
step_times = every_step.ts  # reveal: f32[(64,)]
step_states = every_step.ys  # reveal: f32[(64, 3)]
